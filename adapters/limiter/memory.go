// Package ratelimit implements ports.RateLimiter: in process memory (an
// exact sliding window, a log of request times per key), which suits one
// node, and in Redis, shared by every node, with a per-node fallback while
// Redis does not answer (Failover). The PostgreSQL limiter lives with the
// SQL store (sqlstore.RateLimiter).
package limiter

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/trawlhq/trawl/ports"
)

// Memory is a sliding-window log limiter.
type Memory struct {
	clock ports.Clock
	mu    sync.Mutex
	logs  map[string][]time.Time
	calls int
}

var _ ports.RateLimiter = (*Memory)(nil)

// NewMemory builds the limiter.
func NewMemory(clock ports.Clock) (*Memory, error) {
	if clock == nil {
		return nil, errors.New("limiter.NewMemory: clock is required")
	}
	return &Memory{clock: clock, logs: map[string][]time.Time{}}, nil
}

// sweepEvery: how many calls between sweeps of idle keys, so memory tracks
// the keys active in the last window only.
const sweepEvery = 4096

// Allow counts a request for key if fewer than limit were counted in the
// last window.
func (m *Memory) Allow(_ context.Context, key string, limit int, window time.Duration) (ports.RateDecision, error) {
	now := m.clock.Now()
	m.mu.Lock()
	defer m.mu.Unlock()
	m.calls++
	if m.calls%sweepEvery == 0 {
		m.sweep(now, window)
	}
	log := m.logs[key]
	cut := 0
	for cut < len(log) && !log[cut].After(now.Add(-window)) {
		cut++
	}
	log = log[cut:]
	d := ports.RateDecision{Limit: limit}
	if len(log) < limit {
		log = append(log, now)
		d.Allowed = true
	} else if len(log) > 0 {
		d.RetryAfter = log[0].Add(window).Sub(now)
	}
	m.logs[key] = log
	d.Used = len(log)
	d.Remaining = max(0, limit-len(log))
	if len(log) > 0 {
		d.Reset = log[len(log)-1].Add(window).Sub(now)
	}
	return d, nil
}

func (m *Memory) sweep(now time.Time, window time.Duration) {
	for k, log := range m.logs {
		if len(log) == 0 || !log[len(log)-1].After(now.Add(-window)) {
			delete(m.logs, k)
		}
	}
}
