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
	// base is the instant the logs count from: a request time is kept as
	// nanoseconds since base, 8 bytes without a pointer, so a long log
	// (a generous limit) costs a third of the memory of time.Time values
	// and nothing to the garbage collector's scan.
	base  time.Time
	mu    sync.Mutex
	logs  map[string]*keyLog
	calls int
}

// keyLog is one key's log: the times of the requests it counts are
// times[start:]. Requests leave at the front and arrive at the back; the
// space they leave is reused when the back runs out, so a steady stream
// of requests allocates nothing.
type keyLog struct {
	times []int64
	start int
}

func (w *keyLog) live() []int64 { return w.times[w.start:] }

// expire drops the requests at or before cutoff.
func (w *keyLog) expire(cutoff int64) {
	for w.start < len(w.times) && w.times[w.start] <= cutoff {
		w.start++
	}
}

func (w *keyLog) add(t int64) {
	if len(w.times) == cap(w.times) && w.start > 0 {
		n := copy(w.times, w.times[w.start:])
		w.times, w.start = w.times[:n], 0
	}
	w.times = append(w.times, t)
}

var _ ports.RateLimiter = (*Memory)(nil)

// NewMemory builds the limiter.
func NewMemory(clock ports.Clock) (*Memory, error) {
	if clock == nil {
		return nil, errors.New("limiter.NewMemory: clock is required")
	}
	return &Memory{clock: clock, base: clock.Now(), logs: map[string]*keyLog{}}, nil
}

// sweepEvery: how many calls between sweeps of idle keys, so memory tracks
// the keys active in the last window only.
const sweepEvery = 4096

// Allow counts a request for key if fewer than limit were counted in the
// last window.
func (m *Memory) Allow(_ context.Context, key string, limit int, window time.Duration) (ports.RateDecision, error) {
	now := int64(m.clock.Now().Sub(m.base))
	w := int64(window)
	m.mu.Lock()
	defer m.mu.Unlock()
	m.calls++
	if m.calls%sweepEvery == 0 {
		m.sweep(now, w)
	}
	win := m.logs[key]
	if win == nil {
		win = &keyLog{}
		m.logs[key] = win
	}
	win.expire(now - w)
	d := ports.RateDecision{Limit: limit}
	if log := win.live(); len(log) < limit {
		win.add(now)
		d.Allowed = true
	} else if len(log) > 0 {
		d.RetryAfter = time.Duration(log[0] + w - now)
	}
	log := win.live()
	d.Used = len(log)
	d.Remaining = max(0, limit-len(log))
	if len(log) > 0 {
		d.Reset = time.Duration(log[len(log)-1] + w - now)
	}
	return d, nil
}

func (m *Memory) sweep(now, window int64) {
	for k, win := range m.logs {
		if log := win.live(); len(log) == 0 || log[len(log)-1] <= now-window {
			delete(m.logs, k)
		}
	}
}
