package credits

import (
	"context"
	"errors"
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
	return co, failure.Wrap(op, PaymentFailure(op, err))
}

// PaymentFailure words a payment provider's typed reason for the caller: a
// plan the provider does not sell is a 422 naming the plan field and the
// plans it sells; a provider that could not be reached is Unavailable.
// Anything else is returned as it is.
func PaymentFailure(op string, err error) error {
	var pe *ports.PaymentError
	if !errors.As(err, &pe) {
		return err
	}
	if pe.Reason == ports.PaymentPlanNotSold {
		return failure.Invalidf(op, "plan", "The plan must be one of: %s.", strings.Join(pe.Plans, ", "))
	}
	return failure.Unable(op, failure.ReasonPaymentUnavailable, "The payment provider could not be reached. Please try again.", err)
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
