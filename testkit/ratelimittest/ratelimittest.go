// Package ratelimittest is the contract suite of ports.RateLimiter. The
// in-memory, Redis and PostgreSQL limiters run it, so a fleet gets the same
// limits as one process.
package ratelimittest

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/trawlhq/trawl/ports"
	"github.com/trawlhq/trawl/testkit"
)

// Nodes returns a limiter as one more node would see it: adapters whose
// state is shared return a new instance over the same backend each time
// (each node has its own), the in-memory one returns itself.
type Nodes func() ports.RateLimiter

// Opener gives one test an empty limiter reading time from clock.
type Opener func(t *testing.T, clock ports.Clock) Nodes

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// Run runs every contract test.
func Run(t *testing.T, open Opener) {
	t.Run("SlidingWindow", func(t *testing.T) { testSlidingWindow(t, open) })
	t.Run("WindowEdgeIsExact", func(t *testing.T) { testWindowEdge(t, open) })
	t.Run("KeysAndWindowsAreIndependent", func(t *testing.T) { testIndependent(t, open) })
	t.Run("ZeroLimitRefusesEverything", func(t *testing.T) { testZeroLimit(t, open) })
	t.Run("ConcurrentCallsGetExactlyTheLimit", func(t *testing.T) { testConcurrent(t, open) })
	t.Run("LongIdleKeyStartsEmpty", func(t *testing.T) { testIdle(t, open) })
}

func allow(t *testing.T, l ports.RateLimiter, key string, limit int, window time.Duration) ports.RateDecision {
	t.Helper()
	d, err := l.Allow(context.Background(), key, limit, window)
	if err != nil {
		t.Fatalf("Allow(%q): %v", key, err)
	}
	return d
}

func testSlidingWindow(t *testing.T, open Opener) {
	clock := testkit.NewClock(t0)
	nodes := open(t, clock)
	a, b := nodes(), nodes()
	for i := range 3 {
		l := a
		if i == 1 {
			l = b // a second node counts against the same window
		}
		d := allow(t, l, "k", 3, time.Minute)
		if !d.Allowed || d.Used != i+1 || d.Remaining != 2-i || d.Limit != 3 || d.Reset != time.Minute {
			t.Fatalf("request %d: %+v", i+1, d)
		}
		clock.Advance(10 * time.Second)
	}
	// now = +30s; the window holds requests at 0, 10 and 20.
	d := allow(t, b, "k", 3, time.Minute)
	if d.Allowed || d.RetryAfter != 30*time.Second || d.Remaining != 0 || d.Used != 3 || d.Reset != 50*time.Second {
		t.Fatalf("4th request: %+v", d)
	}
	clock.Advance(30 * time.Second) // the request at 0 leaves the window
	d = allow(t, a, "k", 3, time.Minute)
	if !d.Allowed || d.Used != 3 || d.Reset != time.Minute {
		t.Fatalf("after the oldest left: %+v", d)
	}
	// A refused request does not count: the next slot frees when the
	// request at 10 s leaves, not later.
	clock.Advance(time.Second)
	if d := allow(t, b, "k", 3, time.Minute); d.Allowed || d.Used != 3 || d.RetryAfter != 9*time.Second {
		t.Fatalf("refused: %+v", d)
	}
	clock.Advance(9 * time.Second)
	if d := allow(t, a, "k", 3, time.Minute); !d.Allowed {
		t.Fatalf("slot of the request at 10 s: %+v", d)
	}
}

func testWindowEdge(t *testing.T, open Opener) {
	clock := testkit.NewClock(t0)
	l := open(t, clock)()
	for range 2 {
		allow(t, l, "edge", 2, time.Minute)
	}
	clock.Advance(time.Minute - time.Microsecond)
	if d := allow(t, l, "edge", 2, time.Minute); d.Allowed || d.RetryAfter != time.Microsecond {
		t.Fatalf("a microsecond before the edge: %+v", d)
	}
	clock.Advance(time.Microsecond) // exactly a window later: both left
	if d := allow(t, l, "edge", 2, time.Minute); !d.Allowed || d.Used != 1 {
		t.Fatalf("at the edge: %+v", d)
	}
}

func testIndependent(t *testing.T, open Opener) {
	clock := testkit.NewClock(t0)
	l := open(t, clock)()
	if d := allow(t, l, "a1:content", 1, time.Minute); !d.Allowed {
		t.Fatalf("first: %+v", d)
	}
	if d := allow(t, l, "a1:content", 1, time.Minute); d.Allowed {
		t.Fatalf("second: %+v", d)
	}
	for _, k := range []string{"a1:prompt", "a2:content", "a10:content"} {
		if d := allow(t, l, k, 1, time.Minute); !d.Allowed || d.Used != 1 {
			t.Fatalf("%s is not independent: %+v", k, d)
		}
	}
	// A short window on its own key.
	allow(t, l, "short", 1, time.Second)
	clock.Advance(time.Second)
	if d := allow(t, l, "short", 1, time.Second); !d.Allowed {
		t.Fatalf("1 s window: %+v", d)
	}
}

func testZeroLimit(t *testing.T, open Opener) {
	clock := testkit.NewClock(t0)
	l := open(t, clock)()
	for range 3 {
		if d := allow(t, l, "none", 0, time.Minute); d.Allowed || d.Used != 0 || d.Remaining != 0 {
			t.Fatalf("limit 0: %+v", d)
		}
	}
	// Counting with a limit afterwards starts from nothing.
	if d := allow(t, l, "none", 1, time.Minute); !d.Allowed || d.Used != 1 {
		t.Fatalf("after limit 0: %+v", d)
	}
}

func testConcurrent(t *testing.T, open Opener) {
	clock := testkit.NewClock(t0)
	nodes := open(t, clock)
	ls := []ports.RateLimiter{nodes(), nodes(), nodes()}
	const calls, limit = 120, 15
	var allowed atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, calls)
	for i := range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d, err := ls[i%len(ls)].Allow(context.Background(), "burst", limit, time.Minute)
			if err != nil {
				errs <- err
				return
			}
			if d.Allowed {
				allowed.Add(1)
			}
			if d.Used > limit || d.Used < 1 {
				errs <- fmt.Errorf("used %d of %d", d.Used, limit)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if allowed.Load() != limit {
		t.Fatalf("%d allowed over %d nodes, want exactly %d", allowed.Load(), len(ls), limit)
	}
	if d := allow(t, ls[0], "burst", limit, time.Minute); d.Allowed || d.Used != limit {
		t.Fatalf("after the burst: %+v", d)
	}
}

func testIdle(t *testing.T, open Opener) {
	clock := testkit.NewClock(t0)
	l := open(t, clock)()
	for range 5 {
		allow(t, l, "idle", 5, time.Minute)
	}
	clock.Advance(24 * time.Hour)
	if d := allow(t, l, "idle", 5, time.Minute); !d.Allowed || d.Used != 1 || d.Remaining != 4 {
		t.Fatalf("a day later: %+v", d)
	}
}

// Bench measures decisions of l over 1000 keys with a limit of 15 (a mix of
// allowed and refused calls, as under load) from parallel callers, and
// reports the median and 99th percentile latency of one decision.
func Bench(b *testing.B, l ports.RateLimiter) {
	b.Helper()
	var mu sync.Mutex
	var lat []time.Duration
	var next atomic.Int64
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		local := make([]time.Duration, 0, 1024)
		for pb.Next() {
			key := fmt.Sprintf("a%d:content", next.Add(1)%1000)
			start := time.Now()
			if _, err := l.Allow(context.Background(), key, 15, time.Minute); err != nil {
				b.Error(err)
				return
			}
			local = append(local, time.Since(start))
		}
		mu.Lock()
		lat = append(lat, local...)
		mu.Unlock()
	})
	b.StopTimer()
	if len(lat) == 0 {
		return
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2])/1e3, "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100])/1e3, "p99-µs")
}
