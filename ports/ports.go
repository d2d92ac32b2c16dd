// Package ports is Trawl's vocabulary: the interfaces between the core and the
// world, and the plain data types that cross them. It imports nothing of this
// module, so every other package can depend on it.
package ports

import "time"

// Clock tells the time. Everything that depends on time (rate windows,
// renewals, hold expiry, link expiry) reads it through this port, and
// background work waits through it (the bulk worker's polls, lease
// renewals and webhook retries), so tests can move time without sleeping.
type Clock interface {
	Now() time.Time
	// After sends the clock's time on the channel once d has passed on
	// this clock (at once when d <= 0). The channel has room for the value,
	// so a waiter that gave up leaks nothing.
	After(d time.Duration) <-chan time.Time
}

// TimeLayout is how every timestamp crosses the API (JSON, RPC, webhook
// payloads): UTC, RFC 3339 with microseconds.
const TimeLayout = "2006-01-02T15:04:05.000000Z07:00"

// FormatTime writes t in TimeLayout.
func FormatTime(t time.Time) string { return t.UTC().Format(TimeLayout) }
