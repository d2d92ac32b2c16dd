package limiter_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/trawlhq/trawl/adapters/limiter"
	"github.com/trawlhq/trawl/ports"
	"github.com/trawlhq/trawl/testkit"
	"github.com/trawlhq/trawl/testkit/redistest"
)

// switchable is a limiter that fails while broken is set: the shared
// limiter going away and coming back.
type switchable struct {
	ports.RateLimiter
	broken atomic.Bool
	calls  atomic.Int64
}

func (s *switchable) Allow(ctx context.Context, key string, limit int, window time.Duration) (ports.RateDecision, error) {
	s.calls.Add(1)
	if s.broken.Load() {
		return ports.RateDecision{}, errors.New("connection refused")
	}
	return s.RateLimiter.Allow(ctx, key, limit, window)
}

func TestFailoverLimitsPerNodeWhileTheSharedLimiterIsDown(t *testing.T) {
	clock := testkit.NewClock(time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC))
	shared, _ := limiter.NewMemory(clock)
	primary := &switchable{RateLimiter: shared}
	local, _ := limiter.NewMemory(clock)
	var logs bytes.Buffer
	f, err := limiter.NewFailover(primary, local, clock, slog.New(slog.NewTextHandler(&logs, nil)), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if d, err := f.Allow(ctx, "k", 2, time.Minute); err != nil || !d.Allowed || !f.Up() {
		t.Fatalf("shared: %+v %v", d, err)
	}
	primary.broken.Store(true)
	// Still answering, still limiting: the local window allows 2.
	for i, want := range []bool{true, true, false} {
		d, err := f.Allow(ctx, "k", 2, time.Minute)
		if err != nil || d.Allowed != want {
			t.Fatalf("call %d while down: %+v %v", i, d, err)
		}
	}
	if f.Up() || f.Fallbacks() != 3 {
		t.Fatalf("up %v, fallbacks %d", f.Up(), f.Fallbacks())
	}
	if primary.calls.Load() != 2 {
		t.Fatalf("the shared limiter was asked %d times within the cooldown, want 2 (one ok, one failing)", primary.calls.Load())
	}
	if n := strings.Count(logs.String(), "shared rate limiter unreachable"); n != 1 {
		t.Fatalf("%d warnings, want 1:\n%s", n, logs.String())
	}
	// After the cooldown the shared limiter is tried again and is back.
	primary.broken.Store(false)
	clock.Advance(time.Second)
	if d, err := f.Allow(ctx, "k", 2, time.Minute); err != nil || !d.Allowed || d.Used != 2 || !f.Up() {
		t.Fatalf("back: %+v %v up=%v", d, err, f.Up())
	}
	if !strings.Contains(logs.String(), "shared rate limiter is back") {
		t.Fatalf("no recovery line:\n%s", logs.String())
	}
}

// With a real server that does not answer, the API keeps answering.
func TestFailoverOverAnUnreachableRedis(t *testing.T) {
	c, _ := limiter.NewRedisClient("redis://127.0.0.1:1/0")
	defer c.Close()
	clock := testkit.NewClock(time.Now())
	r, _ := limiter.NewRedis(c, clock, limiter.RedisOptions{})
	local, _ := limiter.NewMemory(clock)
	f, _ := limiter.NewFailover(r, local, clock, nil, 0)
	d, err := f.Allow(context.Background(), "k", 1, time.Minute)
	if err != nil || !d.Allowed || f.Up() {
		t.Fatalf("%+v %v up=%v", d, err, f.Up())
	}
}

func TestFailoverCallerGone(t *testing.T) {
	srv := redistest.New(t)
	clock := testkit.NewClock(time.Now())
	r, _ := limiter.NewRedis(srv.Client, clock, limiter.RedisOptions{Prefix: srv.Prefix})
	local, _ := limiter.NewMemory(clock)
	f, _ := limiter.NewFailover(r, local, clock, nil, 0)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := f.Allow(ctx, "k", 1, time.Minute); err == nil {
		t.Fatal("a cancelled call was answered")
	}
	if !f.Up() || f.Fallbacks() != 0 {
		t.Fatal("a caller leaving marked the shared limiter down")
	}
}

func TestFailoverNeedsBoth(t *testing.T) {
	m, _ := limiter.NewMemory(testkit.NewClock(time.Now()))
	if _, err := limiter.NewFailover(nil, m, testkit.NewClock(time.Now()), nil, 0); err == nil {
		t.Fatal("nil primary accepted")
	}
}
