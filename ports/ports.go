// Package ports is Trawl's vocabulary: the interfaces between the core and the
// world, and the plain data types that cross them. It imports nothing of this
// module, so every other package can depend on it.
package ports

import "time"

// Clock tells the time. Everything that depends on time (rate windows,
// renewals, hold expiry, link expiry) reads it through this port so tests can
// move time without sleeping.
type Clock interface {
	Now() time.Time
}
