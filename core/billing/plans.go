// Package billing holds Trawl's pricing as data: plans, the cost of every
// service, the monthly period, and the credit status and cost previews derived
// from a credit row. Every number a customer is billed by lives here, once.
package billing

import "strings"

// Plan is a subscription plan.
type Plan struct {
	Name           string // stored name: basic, pro, business
	DisplayName    string
	MonthlyCredits int64
	MaxTokens      int
	// RateMultiplier scales the Basic per-minute limits.
	RateMultiplier int
}

// NoPlan is the plan of an account without a subscription: it may hold one
// token and use the free endpoints; billed endpoints answer Plan Required.
var NoPlan = Plan{Name: "", DisplayName: "No plan", MonthlyCredits: 0, MaxTokens: 1, RateMultiplier: 1}

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

// Plans is the plan table of spec section 1.
var Plans = []Plan{
	{Name: "basic", DisplayName: "Basic", MonthlyCredits: 6000, MaxTokens: 1, RateMultiplier: 1},
	{Name: "pro", DisplayName: "Pro", MonthlyCredits: 20000, MaxTokens: 3, RateMultiplier: 4},
	{Name: "business", DisplayName: "Business", MonthlyCredits: 90000, MaxTokens: 5, RateMultiplier: 12},
}

// PlanByName finds a plan; "" and "none" give NoPlan.
func PlanByName(name string) (Plan, bool) {
	n := strings.ToLower(strings.TrimSpace(name))
	if n == "" || n == NoPlanName {
		return NoPlan, true
	}
	for _, p := range Plans {
		if p.Name == n {
			return p, true
		}
	}
	return Plan{}, false
}

// MustPlan returns the plan of a stored name; an unknown name is treated as no plan.
func MustPlan(name string) Plan {
	p, ok := PlanByName(name)
	if !ok {
		return NoPlan
	}
	return p
}

// PlanNames lists the accepted plan names, for help texts and errors.
func PlanNames() []string {
	names := make([]string, 0, len(Plans)+1)
	for _, p := range Plans {
		names = append(names, p.Name)
	}
	return append(names, NoPlanName)
}
