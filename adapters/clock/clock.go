// Package clock is the wall clock behind ports.Clock.
package clock

import (
	"time"

	"github.com/trawlhq/trawl/ports"
)

// System reads the machine's clock, in UTC.
type System struct{}

var _ ports.Clock = System{}

// Now returns the current time in UTC.
func (System) Now() time.Time { return time.Now().UTC() }

// After waits d on the machine's clock.
func (System) After(d time.Duration) <-chan time.Time { return time.After(d) }
