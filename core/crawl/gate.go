package crawl

import (
	"context"
	"sync"
	"time"

	"github.com/trawlhq/trawl/ports"
)

// LocalGate holds per-host politeness in the process: at most max requests
// in flight to a host and at least the delay between their starts, as the
// store's gate does for a fleet, without a write per request. It is for a
// node that is the only one crawling (SQLite, one node by construction);
// nodes sharing a database share the store's gate instead.
type LocalGate struct {
	mu    sync.Mutex
	hosts map[string]*gateHost
}

type gateHost struct {
	next  time.Time            // the least start of the next request
	slots map[string]time.Time // in flight, by token: each lease's end
}

var _ ports.HostGate = (*LocalGate)(nil)

// NewLocalGate returns an empty in-process gate.
func NewLocalGate() *LocalGate { return &LocalGate{hosts: map[string]*gateHost{}} }

// AcquireHost implements ports.HostGate.
func (g *LocalGate) AcquireHost(_ context.Context, host, token string, max int, delay time.Duration, now time.Time, lease time.Duration) (bool, time.Time, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	h := g.hosts[host]
	if h == nil {
		if len(g.hosts) >= gateSweepAt {
			g.sweep(now)
		}
		h = &gateHost{slots: map[string]time.Time{}}
		g.hosts[host] = h
	}
	if h.next.After(now) {
		return false, h.next, nil
	}
	var soonest time.Time
	for tok, until := range h.slots {
		if until.Before(now) {
			delete(h.slots, tok) // its request's node gave up on it
			continue
		}
		if soonest.IsZero() || until.Before(soonest) {
			soonest = until
		}
	}
	if len(h.slots) >= max {
		// A slot frees when its request ends; ask again shortly, or when
		// the soonest lease runs out if that is sooner.
		return false, minTime(now.Add(50*time.Millisecond), soonest), nil
	}
	h.slots[token] = now.Add(lease)
	h.next = now.Add(delay)
	return true, time.Time{}, nil
}

// ReleaseHost implements ports.HostGate.
func (g *LocalGate) ReleaseHost(_ context.Context, host, token string, notBefore time.Time) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	h := g.hosts[host]
	if h == nil {
		return nil
	}
	delete(h.slots, token)
	if notBefore.After(h.next) {
		h.next = notBefore
	}
	return nil
}

// gateSweepAt is how many hosts the gate holds before it forgets those
// with nothing in flight and no start to wait for.
const gateSweepAt = 1024

func (g *LocalGate) sweep(now time.Time) {
	for host, h := range g.hosts {
		if h.next.After(now) {
			continue
		}
		for tok, until := range h.slots {
			if until.Before(now) {
				delete(h.slots, tok)
			}
		}
		if len(h.slots) == 0 {
			delete(g.hosts, host)
		}
	}
}

func minTime(a, b time.Time) time.Time {
	if !b.IsZero() && b.Before(a) {
		return b
	}
	return a
}
