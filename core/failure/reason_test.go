package failure_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/trawlhq/trawl/core/failure"
)

func TestReasonOf(t *testing.T) {
	captcha := failure.Unable("extract", failure.ReasonCaptcha, "a challenge")
	for _, c := range []struct {
		name string
		err  error
		want failure.Reason
	}{
		{"its own", captcha, failure.ReasonCaptcha},
		{"wrapped in fmt", fmt.Errorf("serving: %w", captcha), failure.ReasonCaptcha},
		{"under a failure without one", failure.E("search", failure.Unavailable, "x", captcha), failure.ReasonCaptcha},
		{"the outer one wins", failure.Unable("search", failure.ReasonEngineFailed, "x", captcha), failure.ReasonEngineFailed},
		{"database busy", failure.E("store", failure.TemporarilyUnavailable, "busy"), failure.ReasonBusy},
		{"none", failure.E("x", failure.Unavailable, "y"), ""},
		{"plain", errors.New("boom"), ""},
		{"nil", nil, ""},
	} {
		if got := failure.ReasonOf(c.err); got != c.want {
			t.Errorf("%s: ReasonOf = %q, want %q", c.name, got, c.want)
		}
	}
	if !failure.Is(captcha, failure.Unavailable) {
		t.Error("Unable is not Unavailable")
	}
}

func TestReasonsAreUniqueAndDescribed(t *testing.T) {
	seen := map[failure.Reason]bool{}
	for _, r := range failure.Reasons() {
		if seen[r.Code] || r.Code == "" || r.Meaning == "" {
			t.Errorf("reason %+v is a duplicate or undescribed", r)
		}
		seen[r.Code] = true
		if info, ok := r.Code.Info(); !ok || info != r {
			t.Errorf("Info(%s) = %+v, %v", r.Code, info, ok)
		}
	}
	if _, ok := failure.Reason("nope").Info(); ok {
		t.Error("an unknown code has info")
	}
}

func TestOutcomeNormalisesUnknownCodes(t *testing.T) {
	for _, c := range []struct {
		err       error
		reason    failure.Reason
		retryable bool
	}{
		{failure.Unable("fetch", failure.ReasonNotHTML, "x"), failure.ReasonNotHTML, false},
		{failure.Unable("fetch", failure.ReasonTimeout, "x"), failure.ReasonTimeout, true},
		{failure.Unable("fetch", "made_up", "x"), failure.ReasonUnavailable, true},
		{failure.E("x", failure.Unavailable, "y"), failure.ReasonUnavailable, true},
		{failure.E("store", failure.TemporarilyUnavailable, "busy"), failure.ReasonBusy, true},
	} {
		if r, retry := failure.Outcome(c.err); r != c.reason || retry != c.retryable {
			t.Errorf("Outcome(%v) = %s %v, want %s %v", c.err, r, retry, c.reason, c.retryable)
		}
	}
	if r, retry := failure.Reason("").Normal(); r != failure.ReasonUnavailable || !retry {
		t.Errorf("empty code = %s %v", r, retry)
	}
}
