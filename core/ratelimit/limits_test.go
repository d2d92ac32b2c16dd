package ratelimit_test

import (
	"testing"

	"github.com/trawlhq/trawl/core/billing"
	"github.com/trawlhq/trawl/core/ratelimit"
)

func TestLimitsPerPlan(t *testing.T) {
	for _, c := range []struct {
		plan  string
		group ratelimit.Group
		want  int
	}{
		{"basic", ratelimit.Content, 15}, {"basic", ratelimit.Prompt, 8}, {"basic", ratelimit.Scrape, 15},
		{"basic", ratelimit.Serp, 10}, {"basic", ratelimit.SerpContent, 5}, {"basic", ratelimit.Map, 10}, {"basic", ratelimit.Bulk, 5},
		{"pro", ratelimit.Content, 60}, {"pro", ratelimit.Prompt, 32},
		{"business", ratelimit.Content, 180}, {"business", ratelimit.Prompt, 96}, {"business", ratelimit.SerpContent, 60},
		{"", ratelimit.Content, 15},
	} {
		if got := ratelimit.Limit(billing.DefaultPlans(), c.plan, c.group); got != c.want {
			t.Errorf("Limit(%q, %s) = %d, want %d", c.plan, c.group, got, c.want)
		}
	}
}

func TestWarn(t *testing.T) {
	for _, c := range []struct {
		used, limit int
		want        bool
	}{{11, 15, false}, {12, 15, true}, {15, 15, true}, {7, 8, true}, {6, 8, false}, {0, 0, false}} {
		if got := ratelimit.Warn(c.used, c.limit); got != c.want {
			t.Errorf("Warn(%d, %d) = %v", c.used, c.limit, got)
		}
	}
	if ratelimit.Key(7, ratelimit.Map) == ratelimit.Key(7, ratelimit.Serp) || ratelimit.Key(7, ratelimit.Map) == ratelimit.Key(8, ratelimit.Map) {
		t.Error("keys collide")
	}
}
