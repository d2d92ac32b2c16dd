package limiter_test

import (
	"context"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/trawlhq/trawl/adapters/limiter"
	"github.com/trawlhq/trawl/testkit"
)

func TestSlidingWindow(t *testing.T) {
	clock := testkit.NewClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	m, _ := limiter.NewMemory(clock)
	ctx := context.Background()
	for i := range 3 {
		d, _ := m.Allow(ctx, "k", 3, time.Minute)
		if !d.Allowed || d.Used != i+1 || d.Remaining != 2-i {
			t.Fatalf("request %d: %+v", i+1, d)
		}
		clock.Advance(10 * time.Second)
	}
	// now = +30s; the window holds requests at 0, 10, 20.
	d, _ := m.Allow(ctx, "k", 3, time.Minute)
	if d.Allowed || d.RetryAfter != 30*time.Second || d.Remaining != 0 {
		t.Fatalf("4th request: %+v", d)
	}
	if d, _ := m.Allow(ctx, "other", 3, time.Minute); !d.Allowed {
		t.Fatal("keys are independent")
	}
	clock.Advance(30 * time.Second) // the request at 0 leaves the window
	d, _ = m.Allow(ctx, "k", 3, time.Minute)
	if !d.Allowed || d.Used != 3 || d.Reset != time.Minute {
		t.Fatalf("after the oldest left: %+v", d)
	}
	// A refused request does not count.
	clock.Advance(time.Second)
	if d, _ := m.Allow(ctx, "k", 3, time.Minute); d.Allowed || d.Used != 3 {
		t.Fatalf("refused: %+v", d)
	}
}

func TestConcurrentCallsNeverExceedTheLimit(t *testing.T) {
	clock := testkit.NewClock(time.Now())
	m, _ := limiter.NewMemory(clock)
	var wg sync.WaitGroup
	var mu sync.Mutex
	allowed := 0
	for range 100 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if d, _ := m.Allow(context.Background(), "k", 15, time.Minute); d.Allowed {
				mu.Lock()
				allowed++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if allowed != 15 {
		t.Fatalf("%d allowed, want 15", allowed)
	}
}

// A long run of requests at uneven intervals, against a plain list of the
// times allowed: the log reuses its space and still counts exactly.
func TestSlidingWindowLongRun(t *testing.T) {
	clock := testkit.NewClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	m, _ := limiter.NewMemory(clock)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(7, 7))
	var allowed []time.Time
	const limit = 40
	for i := range 5000 {
		clock.Advance(time.Duration(rng.IntN(4000)) * time.Millisecond)
		now := clock.Now()
		live := allowed[:0:0]
		for _, at := range allowed {
			if at.After(now.Add(-time.Minute)) {
				live = append(live, at)
			}
		}
		want := len(live) < limit
		if want {
			live = append(live, now)
		}
		allowed = live
		d, _ := m.Allow(ctx, "k", limit, time.Minute)
		if d.Allowed != want || d.Used != len(live) || d.Remaining != limit-len(live) || d.Reset != live[len(live)-1].Add(time.Minute).Sub(now) {
			t.Fatalf("request %d: %+v, want allowed %v, %d used", i, d, want, len(live))
		}
		if !want && d.RetryAfter != live[0].Add(time.Minute).Sub(now) {
			t.Fatalf("request %d: retry after %v, want %v", i, d.RetryAfter, live[0].Add(time.Minute).Sub(now))
		}
	}
}

func TestNilClock(t *testing.T) {
	if _, err := limiter.NewMemory(nil); err == nil {
		t.Fatal("nil clock accepted")
	}
}

// tickingClock moves a millisecond on every reading: a clock for a
// benchmark, which must not allocate on its own.
type tickingClock struct{ now time.Time }

func (c *tickingClock) Now() time.Time {
	c.now = c.now.Add(time.Millisecond)
	return c.now
}

func (c *tickingClock) After(time.Duration) <-chan time.Time { return nil }

// BenchmarkMemoryAllow counts requests under a limit far above them, as a
// generous plan does: a thousand requests a second, so the log of the key
// holds a minute's 60,000.
func BenchmarkMemoryAllow(b *testing.B) {
	m, _ := limiter.NewMemory(&tickingClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)})
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if d, _ := m.Allow(ctx, "a1:content", 1<<30, time.Minute); !d.Allowed {
			b.Fatal("refused")
		}
	}
}
