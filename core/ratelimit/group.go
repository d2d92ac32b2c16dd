package ratelimit

import (
	"slices"
	"strings"

	"github.com/trawlhq/trawl/core/billing"
)

// GroupOf is the group a Key counts, or "" for a key Key did not make.
func GroupOf(key string) Group {
	_, g, ok := strings.Cut(key, ":")
	if !ok {
		return ""
	}
	if !slices.Contains(billing.RateGroups, g) {
		return ""
	}
	return Group(g)
}
