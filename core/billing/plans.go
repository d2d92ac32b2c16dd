// Package billing holds Trawl's pricing as data: plans, the cost of every
// service, the monthly period, and the credit status and cost previews derived
// from a credit row. Every number a customer is billed by lives here, once.
package billing

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Plan is a subscription plan.
type Plan struct {
	Name           string // stored name: basic, pro, business
	DisplayName    string
	MonthlyCredits int64
	MaxTokens      int
	// PerMinute is the requests a minute of each endpoint group (RateGroups).
	PerMinute map[string]int
}

// RateGroups are the endpoint groups that share a per-minute budget; the
// groups of core/ratelimit are these.
var RateGroups = []string{"content", "prompt", "extract", "scrape", "serp", "serp_content", "map", "bulk"}

// basicPerMinute is the Basic plan's limit per group (spec section 8 and
// DECISIONS.md); Pro has four times as much, Business twelve times.
var basicPerMinute = map[string]int{
	"content": 15, "prompt": 8, "extract": 8, "scrape": 15, "serp": 10, "serp_content": 5, "map": 10, "bulk": 5,
}

func scaled(n int) map[string]int {
	m := make(map[string]int, len(basicPerMinute))
	for g, v := range basicPerMinute {
		m[g] = v * n
	}
	return m
}

// DefaultPlanList is the plan table of spec section 1, a fresh copy.
func DefaultPlanList() []Plan {
	return []Plan{
		{Name: "basic", DisplayName: "Basic", MonthlyCredits: 6000, MaxTokens: 1, PerMinute: scaled(1)},
		{Name: "pro", DisplayName: "Pro", MonthlyCredits: 20000, MaxTokens: 3, PerMinute: scaled(4)},
		{Name: "business", DisplayName: "Business", MonthlyCredits: 90000, MaxTokens: 5, PerMinute: scaled(12)},
	}
}

// NoPlan is the plan of an account without a subscription: it may hold one
// token and use the free endpoints; billed endpoints answer Plan Required.
// Its per-minute limits are the default Basic ones.
func NoPlan() Plan {
	return Plan{Name: "", DisplayName: "No plan", MonthlyCredits: 0, MaxTokens: 1, PerMinute: scaled(1)}
}

// NoPlanName is how callers name NoPlan (its stored name is "").
const NoPlanName = "none"

// DefaultPlanName is the plan an operator's new account is on unless
// another is named.
const DefaultPlanName = "basic"

// PlanLabel is a stored plan name as callers type it: NoPlanName for none.
func PlanLabel(stored string) string {
	if stored == "" {
		return NoPlanName
	}
	return stored
}

// Plans is a validated plan table: the one an operator configured, or the
// defaults. The zero value is the default table.
type Plans struct {
	list []Plan
	none Plan
}

// DefaultPlans is the plan table of spec section 1.
func DefaultPlans() Plans { return defaultPlans() }

// defaultPlans is built once: the zero Plans stands for it on every lookup
// (a request's limit, its plan's token cap), and a table is never changed
// once built.
var defaultPlans = sync.OnceValue(func() Plans {
	p, err := NewPlans(DefaultPlanList())
	if err != nil {
		panic(err)
	}
	return p
})

var planName = regexp.MustCompile(`^[a-z][a-z0-9_-]{0,31}$`)

// NewPlans validates a plan table. The error names the bad field as
// plans[i].field (plans[i].per_minute.group for a limit).
func NewPlans(list []Plan) (Plans, error) {
	if len(list) == 0 {
		return Plans{}, fmt.Errorf("plans: at least one plan is required")
	}
	seen := map[string]bool{}
	out := make([]Plan, len(list))
	for i, p := range list {
		field := func(f string) string { return fmt.Sprintf("plans[%d].%s", i, f) }
		switch {
		case !planName.MatchString(p.Name):
			return Plans{}, fmt.Errorf("%s %q: want 1 to 32 lower-case letters, digits, _ or -, starting with a letter", field("name"), p.Name)
		case p.Name == NoPlanName:
			return Plans{}, fmt.Errorf("%s: none means no plan and cannot name one", field("name"))
		case seen[p.Name]:
			return Plans{}, fmt.Errorf("%s %q: named twice", field("name"), p.Name)
		case strings.TrimSpace(p.DisplayName) == "":
			return Plans{}, fmt.Errorf("%s: required", field("display_name"))
		case p.MonthlyCredits < 0:
			return Plans{}, fmt.Errorf("%s: must be 0 or more, got %d", field("monthly_credits"), p.MonthlyCredits)
		case p.MaxTokens < 1:
			return Plans{}, fmt.Errorf("%s: must be 1 or more, got %d", field("max_tokens"), p.MaxTokens)
		}
		seen[p.Name] = true
		for g := range p.PerMinute {
			if !slices.Contains(RateGroups, g) {
				return Plans{}, fmt.Errorf("%s: unknown endpoint group; the groups are %s", field("per_minute."+g), strings.Join(RateGroups, ", "))
			}
		}
		pm := make(map[string]int, len(RateGroups))
		for _, g := range RateGroups {
			n, ok := p.PerMinute[g]
			if !ok {
				return Plans{}, fmt.Errorf("%s: required", field("per_minute."+g))
			}
			if n < 1 {
				return Plans{}, fmt.Errorf("%s: must be 1 or more requests a minute, got %d", field("per_minute."+g), n)
			}
			pm[g] = n
		}
		p.PerMinute = pm
		out[i] = p
	}
	return Plans{list: out, none: NoPlan()}, nil
}

func (t Plans) table() Plans {
	if t.list == nil {
		return DefaultPlans()
	}
	return t
}

// All lists the plans in their configured order (copies).
func (t Plans) All() []Plan {
	t = t.table()
	return slices.Clone(t.list)
}

// ByName finds a plan; "" and "none" give the no-plan plan.
func (t Plans) ByName(name string) (Plan, bool) {
	t = t.table()
	n := strings.ToLower(strings.TrimSpace(name))
	if n == "" || n == NoPlanName {
		return t.none, true
	}
	for _, p := range t.list {
		if p.Name == n {
			return p, true
		}
	}
	return Plan{}, false
}

// Must returns the plan of a stored name; an unknown name (a plan the
// operator removed) is treated as no plan.
func (t Plans) Must(name string) Plan {
	p, ok := t.ByName(name)
	if !ok {
		return t.table().none
	}
	return p
}

// Names lists the accepted plan names, for help texts and errors.
func (t Plans) Names() []string {
	t = t.table()
	names := make([]string, 0, len(t.list)+1)
	for _, p := range t.list {
		names = append(names, p.Name)
	}
	return append(names, NoPlanName)
}

// Limit is the requests a minute of the plan name for an endpoint group.
func (t Plans) Limit(plan, group string) int {
	return t.Must(plan).PerMinute[group]
}
