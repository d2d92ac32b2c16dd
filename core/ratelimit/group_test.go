package ratelimit_test

import (
	"testing"

	"github.com/trawlhq/trawl/core/ratelimit"
)

func TestGroupOf(t *testing.T) {
	for _, g := range ratelimit.Groups() {
		if got := ratelimit.GroupOf(ratelimit.Key(42, g)); got != g {
			t.Errorf("GroupOf(Key(42, %s)) = %q", g, got)
		}
	}
	for _, k := range []string{"", "a1", "a1:nope", "a1:content:x"} {
		if got := ratelimit.GroupOf(k); got != "" {
			t.Errorf("GroupOf(%q) = %q, want none", k, got)
		}
	}
}
