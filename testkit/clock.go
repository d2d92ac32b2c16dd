// Package testkit holds what tests share: a settable clock, an in-memory store
// (the fake, held honest by the same contract suites as the SQL adapters),
// port contract suites, a Postgres helper and mocks.
package testkit

import (
	"sync"
	"time"

	"github.com/trawlhq/trawl/ports"
)

// Clock is a settable clock: tests move time instead of sleeping. Waits
// started with After end when Advance or Set moves the clock past them.
type Clock struct {
	mu      sync.Mutex
	now     time.Time
	waiters []waiter
	changed chan struct{} // closed and replaced whenever waiters change
}

type waiter struct {
	at time.Time
	ch chan time.Time
}

var _ ports.Clock = (*Clock)(nil)

// NewClock starts a clock at t.
func NewClock(t time.Time) *Clock { return &Clock{now: t.UTC(), changed: make(chan struct{})} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// After returns a channel that receives the clock's time once the clock
// has moved d past now; at once when d <= 0.
func (c *Clock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan time.Time, 1)
	if d <= 0 {
		ch <- c.now
		return ch
	}
	c.waiters = append(c.waiters, waiter{at: c.now.Add(d), ch: ch})
	c.notify()
	return ch
}

// Advance moves the clock forward, ending the waits it passes.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	c.fire()
}

// Set moves the clock to t, ending the waits it passes.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t.UTC()
	c.fire()
}

// Waiting counts the waits started with After that have not ended.
func (c *Clock) Waiting() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.waiters)
}

// WaitFor blocks until at least n waits are pending or timeout (real time)
// passes, and reports whether they were: a test advances the clock once
// the code under test is waiting on it.
func (c *Clock) WaitFor(n int, timeout time.Duration) bool {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		c.mu.Lock()
		ok, changed := len(c.waiters) >= n, c.changed
		c.mu.Unlock()
		if ok {
			return true
		}
		select {
		case <-changed:
		case <-deadline.C:
			return false
		}
	}
}

// fire ends the waits due by now; c.mu is held.
func (c *Clock) fire() {
	kept := c.waiters[:0]
	for _, w := range c.waiters {
		if w.at.After(c.now) {
			kept = append(kept, w)
			continue
		}
		w.ch <- c.now
	}
	for i := len(kept); i < len(c.waiters); i++ {
		c.waiters[i] = waiter{}
	}
	c.waiters = kept
	c.notify()
}

func (c *Clock) notify() {
	if c.changed == nil {
		c.changed = make(chan struct{})
	}
	close(c.changed)
	c.changed = make(chan struct{})
}
