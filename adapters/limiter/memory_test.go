package limiter_test

import (
	"context"
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

func TestNilClock(t *testing.T) {
	if _, err := limiter.NewMemory(nil); err == nil {
		t.Fatal("nil clock accepted")
	}
}
