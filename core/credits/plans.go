package credits

import (
	"context"
	"strings"

	"github.com/trawlhq/trawl/core/billing"
	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/ports"
)

// Plans is the plan table in force.
func (s *Service) Plans() billing.Plans { return s.plans }

// Pricing returns the price of top-ups.
func (s *Service) Pricing() Pricing { return s.pricing }

// SellsPlans reports whether the payment provider sells subscriptions.
func (s *Service) SellsPlans() bool {
	_, ok := s.payments.(ports.PlanCheckout)
	return ok
}

// Subscribe opens a hosted checkout that subscribes the account to a plan.
// The plan changes when the provider reports the subscription active.
func (s *Service) Subscribe(ctx context.Context, account ports.Account, planName string) (ports.Checkout, error) {
	const op = "credits.Subscribe"
	plan, ok := s.plans.ByName(planName)
	if !ok || plan.Name == "" {
		names := s.plans.Names()
		names = names[:len(names)-1] // none is not sold
		return ports.Checkout{}, failure.Invalidf(op, "plan", "The plan must be one of: %s.", strings.Join(names, ", "))
	}
	if account.Plan == plan.Name {
		return ports.Checkout{}, failure.Invalidf(op, "plan", "You are already on the %s plan.", plan.DisplayName)
	}
	pc, ok := s.payments.(ports.PlanCheckout)
	if !ok {
		return ports.Checkout{}, failure.Unable(op, failure.ReasonNotOffered, "Plans are not sold online on this server: the operator sets them.")
	}
	co, err := pc.CreatePlanCheckout(ctx, ports.PlanCheckoutRequest{AccountID: account.ID, Email: account.Email, Plan: plan.Name})
	return co, failure.Wrap(op, err)
}

// TopUpNotice is what a checkout page tells the account before it pays
// for top-up credits: TopUpNeedsPlan when it has no plan (or one no longer
// offered), else nothing.
func (s *Service) TopUpNotice(ctx context.Context, accountID int64) string {
	acct, err := s.accounts.AccountByID(ctx, accountID)
	if err != nil {
		return ""
	}
	if _, ok := s.plans.ByName(acct.Plan); ok && acct.Plan != "" {
		return ""
	}
	return TopUpNeedsPlan
}
