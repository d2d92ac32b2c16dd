package limiter

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/trawlhq/trawl/ports"
)

// Failover answers from a shared limiter and, while that one fails, from a
// limiter of this process. The choice when Redis is unreachable: keep the
// API answering, with limits enforced per node (so a fleet of N nodes lets
// an account make up to N times its limit for as long as the outage lasts),
// rather than refuse every billed call (an outage of the whole API) or let
// every call through (no limit at all). The switch is logged once each way
// and counted, so an operator sees it (trawl_ratelimit_backend_up and
// trawl_ratelimit_fallback_decisions_total).
//
// After a failure the shared limiter is left alone for Cooldown, so an
// outage costs one timeout, not one per request; then the next call tries
// it again.
type Failover struct {
	primary  ports.RateLimiter
	fallback ports.RateLimiter
	clock    ports.Clock
	log      *slog.Logger
	cooldown time.Duration

	mu        sync.Mutex
	down      bool
	retryAt   time.Time
	fallbacks atomic.Uint64
}

var _ ports.RateLimiter = (*Failover)(nil)

// DefaultCooldown is how long the shared limiter is skipped after it failed.
const DefaultCooldown = time.Second

// NewFailover builds the pair. cooldown <= 0 takes DefaultCooldown.
func NewFailover(primary, fallback ports.RateLimiter, clock ports.Clock, log *slog.Logger, cooldown time.Duration) (*Failover, error) {
	if primary == nil || fallback == nil || clock == nil {
		return nil, errors.New("limiter.NewFailover: primary, fallback and clock are required")
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if cooldown <= 0 {
		cooldown = DefaultCooldown
	}
	return &Failover{primary: primary, fallback: fallback, clock: clock, log: log, cooldown: cooldown}, nil
}

// Allow asks the shared limiter unless it failed within the cooldown.
func (f *Failover) Allow(ctx context.Context, key string, limit int, window time.Duration) (ports.RateDecision, error) {
	if f.skipPrimary() {
		f.fallbacks.Add(1)
		return f.fallback.Allow(ctx, key, limit, window)
	}
	d, err := f.primary.Allow(ctx, key, limit, window)
	if err == nil {
		f.markUp()
		return d, nil
	}
	if ctx.Err() != nil { // the caller left; nothing to learn about the limiter
		return d, err
	}
	f.markDown(err)
	f.fallbacks.Add(1)
	return f.fallback.Allow(ctx, key, limit, window)
}

func (f *Failover) skipPrimary() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.down && f.clock.Now().Before(f.retryAt)
}

func (f *Failover) markUp() {
	f.mu.Lock()
	was := f.down
	f.down = false
	f.mu.Unlock()
	if was {
		f.log.Info("shared rate limiter is back: limits hold across nodes again")
	}
}

func (f *Failover) markDown(err error) {
	f.mu.Lock()
	was := f.down
	f.down = true
	f.retryAt = f.clock.Now().Add(f.cooldown)
	f.mu.Unlock()
	if !was {
		f.log.Warn("shared rate limiter unreachable: limiting per node until it answers again", "err", err)
	}
}

// Up reports whether the last decision came from the shared limiter.
func (f *Failover) Up() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return !f.down
}

// Fallbacks counts the decisions taken by the local limiter.
func (f *Failover) Fallbacks() uint64 { return f.fallbacks.Load() }
