package ratelimit

import (
	"errors"

	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/ports"
)

// Failure is the failure of a limiter that could not decide: one that
// could not count the request now (ports.ErrLimiterUnavailable) is
// TemporarilyUnavailable, which the caller may retry shortly and which the
// delivery words as its kind; anything else keeps its kind, Internal for a
// plain error.
func Failure(op string, err error) error {
	if errors.Is(err, ports.ErrLimiterUnavailable) && failure.KindOf(err) == failure.Internal {
		return failure.E(op, failure.TemporarilyUnavailable, "", err)
	}
	return failure.Wrap(op, err)
}
