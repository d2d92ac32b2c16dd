package search_test

import (
	"context"
	"errors"
	"testing"

	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/core/search"
	"github.com/trawlhq/trawl/ports"
)

// TestEngineFailure: each engine reason is worded for the caller as an
// Unavailable failure with its reason code; other errors pass as they are.
func TestEngineFailure(t *testing.T) {
	for _, c := range []struct {
		se     ports.SearchError
		reason failure.Reason
		msg    string
	}{
		{ports.SearchError{Reason: ports.SearchBlocked, Engine: "bing"}, failure.ReasonEngineBlocked, "The bing search could not be completed: Bing answered with a captcha or bot check instead of results."},
		{ports.SearchError{Reason: ports.SearchUnreachable, Engine: "google"}, failure.ReasonEngineUnreachable, "The google search could not be completed: the engine could not be reached."},
		{ports.SearchError{Reason: ports.SearchTimeout, Engine: "google"}, failure.ReasonEngineUnreachable, "The google search could not be completed: the engine did not answer in time."},
		{ports.SearchError{Reason: ports.SearchStatus, Engine: "duckduckgo", Status: 503}, failure.ReasonEngineUnreachable, "The duckduckgo search could not be completed: Duckduckgo answered 503."},
		{ports.SearchError{Reason: ports.SearchUnreadable, Engine: "bing"}, failure.ReasonEngineFailed, "The bing search could not be completed: the result page could not be read."},
		{ports.SearchError{Reason: ports.SearchTooLarge, Engine: "bing"}, failure.ReasonEngineFailed, "The bing search could not be completed: the result page was too large."},
	} {
		se := c.se
		err := search.EngineFailure(&se)
		fe, ok := failure.As(err)
		if !ok || fe.Kind != failure.Unavailable || fe.Reason != c.reason || fe.Message != c.msg || !errors.Is(err, &se) {
			t.Errorf("%v: %v", c.se.Reason, err)
		}
	}
	if err := search.EngineFailure(context.Canceled); err != context.Canceled {
		t.Errorf("a plain error: %v", err)
	}
}
