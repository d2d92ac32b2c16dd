package errmap_test

import (
	"errors"
	"fmt"
	"net/http"
	"testing"

	"connectrpc.com/connect"

	"github.com/trawlhq/trawl/adapters/errmap"
	"github.com/trawlhq/trawl/core/failure"
)

func TestEveryKindHasAnEntry(t *testing.T) {
	known := map[failure.Kind]bool{}
	for _, k := range errmap.Kinds() {
		known[k] = true
	}
	for _, k := range failure.Kinds() {
		if !known[k] {
			t.Errorf("kind %s has no entry in the table", k)
		}
	}
}

func TestTemporarilyUnavailableIs503WithRetryAfter(t *testing.T) {
	e := errmap.Lookup(failure.TemporarilyUnavailable)
	if e.HTTPStatus != http.StatusServiceUnavailable || e.ConnectCode != connect.CodeUnavailable || e.RetryAfter <= 0 {
		t.Fatalf("entry = %+v", e)
	}
	err := fmt.Errorf("serving: %w", failure.E("sqlstore.WithCredits", failure.TemporarilyUnavailable, "busy", errors.New("pq: sorry, too many clients already")))
	if secs, ok := errmap.RetryAfter(err); !ok || secs != e.RetryAfter {
		t.Fatalf("RetryAfter = %d, %v", secs, ok)
	}
}

func TestRetryAfter(t *testing.T) {
	limited := failure.E("ratelimit", failure.RateLimited, "")
	limited.RetryAfterSeconds = 17
	for _, c := range []struct {
		name string
		err  error
		secs int
		ok   bool
	}{
		{"rate limited with its own delay", limited, 17, true},
		{"rate limited without one", failure.E("ratelimit", failure.RateLimited, ""), 1, true},
		{"database busy", failure.E("store", failure.TemporarilyUnavailable, ""), 2, true},
		{"target site down: no Retry-After", failure.E("fetch", failure.Unavailable, "The page could not be fetched."), 0, false},
		{"internal", errors.New("boom"), 0, false},
		{"invalid", failure.Invalidf("op", "url", "bad"), 0, false},
	} {
		secs, ok := errmap.RetryAfter(c.err)
		if secs != c.secs || ok != c.ok {
			t.Errorf("%s: RetryAfter = %d, %v; want %d, %v", c.name, secs, ok, c.secs, c.ok)
		}
	}
}

func TestOutcome(t *testing.T) {
	for _, c := range []struct {
		name      string
		err       error
		reason    failure.Reason
		retryable bool
		ok        bool
	}{
		{"a reason", failure.Unable("fetch", failure.ReasonTimeout, "slow"), failure.ReasonTimeout, true, true},
		{"a final reason", failure.Unable("extract", failure.ReasonCaptcha, "challenge"), failure.ReasonCaptcha, false, true},
		{"no reason", failure.E("x", failure.Unavailable, "y"), failure.ReasonUnavailable, true, true},
		{"unknown reason", failure.Unable("x", "made_up", "y"), failure.ReasonUnavailable, true, true},
		{"database busy", failure.E("store", failure.TemporarilyUnavailable, ""), failure.ReasonBusy, true, true},
		{"not a 503", failure.Invalidf("op", "url", "bad"), "", false, false},
		{"internal", errors.New("boom"), "", false, false},
	} {
		reason, retryable, ok := errmap.Outcome(c.err)
		if reason != c.reason || retryable != c.retryable || ok != c.ok {
			t.Errorf("%s: Outcome = %s %v %v", c.name, reason, retryable, ok)
		}
	}
}
