// Package ratelimit holds the per-minute limits: which endpoint group a
// request counts against, and how many requests a plan may make per group.
package ratelimit

import (
	"fmt"
	"strconv"
	"time"

	"github.com/trawlhq/trawl/core/billing"
)

// Group is a set of endpoints sharing one per-minute budget.
type Group string

const (
	Content     Group = "content"
	Prompt      Group = "prompt"
	Extract     Group = "extract"
	Scrape      Group = "scrape"
	Serp        Group = "serp"
	SerpContent Group = "serp_content"
	Map         Group = "map"
	Bulk        Group = "bulk"
)

// Window is the sliding window of every limit.
const Window = time.Minute

// WarnPercent: at or above this share of the limit, responses carry X-RateLimit-Warning.
const WarnPercent = 80

// Groups are the endpoint groups, in billing.RateGroups' order: a plan's
// per-minute limits (billing.Plan.PerMinute) name each of them.
func Groups() []Group {
	gs := make([]Group, len(billing.RateGroups))
	for i, g := range billing.RateGroups {
		gs[i] = Group(g)
	}
	return gs
}

// Limit is the per-minute limit of a plan of the table for a group.
func Limit(plans billing.Plans, plan string, g Group) int {
	return plans.Limit(plan, string(g))
}

// Key identifies the counter of one account in one group. The window
// belongs to the account, not to a token: every token of an account draws
// on it, and deleting a token and making a new one does not empty it.
func Key(accountID int64, g Group) string {
	return "a" + strconv.FormatInt(accountID, 10) + ":" + string(g)
}

// Warn reports whether used of limit deserves the approaching-limit warning.
func Warn(used, limit int) bool {
	return limit > 0 && used*100 >= limit*WarnPercent
}

// WarningText is the X-RateLimit-Warning text.
func WarningText(used, limit int, g Group) string {
	return fmt.Sprintf("%d of %d requests per minute used for %s", used, limit, g)
}
