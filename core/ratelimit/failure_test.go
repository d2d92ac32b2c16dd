package ratelimit_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/core/ratelimit"
	"github.com/trawlhq/trawl/ports"
)

// TestFailure: a limiter that cannot count now is TemporarilyUnavailable,
// with no text of its own; a kind already given is kept; anything else is
// Internal.
func TestFailure(t *testing.T) {
	down := fmt.Errorf("limiter.Redis: %w: %w", ports.ErrLimiterUnavailable, errors.New("dial tcp: refused"))
	err := ratelimit.Failure("call.Run", down)
	if fe, ok := failure.As(err); !ok || fe.Kind != failure.TemporarilyUnavailable || fe.Message != "" {
		t.Errorf("limiter down: %v", err)
	}
	busy := failure.E("sqlstore.Allow", failure.TemporarilyUnavailable, "busy")
	if err := ratelimit.Failure("call.Run", busy); err != busy {
		t.Errorf("a kind already given: %v", err)
	}
	if err := ratelimit.Failure("call.Run", errors.New("odd reply")); !failure.Is(err, failure.Internal) {
		t.Errorf("odd reply: %v", err)
	}
}
