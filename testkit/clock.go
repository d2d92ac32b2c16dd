// Package testkit holds what tests share: a settable clock, an in-memory store
// (the fake, held honest by the same contract suites as the SQL adapters),
// port contract suites, a Postgres helper and mocks.
package testkit

import (
	"sync"
	"time"

	"github.com/trawlhq/trawl/ports"
)

// Clock is a settable clock: tests move time instead of sleeping.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

var _ ports.Clock = (*Clock)(nil)

// NewClock starts a clock at t.
func NewClock(t time.Time) *Clock { return &Clock{now: t.UTC()} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock forward.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// Set moves the clock to t.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t.UTC()
}
