package credits

import (
	"context"
	"errors"
	"time"

	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/ports"
)

// Payments applies what a payment provider reports: each event once, and
// subscription changes in the order the provider made them.
type Payments struct {
	credits *Service
	events  ports.PaymentEventStore
	plans   ports.PlanCheckoutStore
	clock   ports.Clock
}

// NewPayments builds the use case; plans keeps the local provider's plan
// checkouts (nil when no provider keeps its own).
func NewPayments(credits *Service, events ports.PaymentEventStore, plans ports.PlanCheckoutStore, clock ports.Clock) (*Payments, error) {
	if credits == nil || events == nil || clock == nil {
		return nil, errors.New("credits.NewPayments: credits, events and clock are required")
	}
	return &Payments{credits: credits, events: events, plans: plans, clock: clock}, nil
}

// LocalProvider names the subscriptions of the local checkout.
const LocalProvider = "local"

// PlanCheckout returns an account's pending plan checkout; another
// account's (or an unknown) session is NotFound.
func (p *Payments) PlanCheckout(ctx context.Context, accountID int64, id string) (ports.PlanCheckoutSession, error) {
	const op = "credits.Payments.PlanCheckout"
	if p.plans == nil {
		return ports.PlanCheckoutSession{}, failure.E(op, failure.NotFound, "Checkout session not found.")
	}
	s, err := p.plans.PlanCheckoutSession(ctx, id)
	if failure.Is(err, failure.NotFound) || (err == nil && s.AccountID != accountID) {
		return ports.PlanCheckoutSession{}, failure.E(op, failure.NotFound, "Checkout session not found.")
	}
	return s, failure.Wrap(op, err)
}

// CompletePlanCheckout starts the plan of a paid local checkout, once:
// paying the same session again changes nothing and reports false.
func (p *Payments) CompletePlanCheckout(ctx context.Context, accountID int64, id string) (bool, error) {
	const op = "credits.Payments.CompletePlanCheckout"
	s, err := p.PlanCheckout(ctx, accountID, id)
	if err != nil {
		return false, err
	}
	now := p.clock.Now()
	first, err := p.plans.MarkPlanCheckoutPaid(ctx, s.ID, now)
	if err != nil || !first {
		return false, failure.Wrap(op, err)
	}
	_, err = p.ApplySubscription(ctx, SubscriptionChange{Provider: LocalProvider, AccountID: accountID, SubscriptionID: s.ID, Plan: s.Plan, Status: SubActive, At: now})
	return err == nil, err
}

// Once runs fn for a provider event the first time it arrives. A replay
// runs nothing and reports false. When fn fails the event is forgotten, so
// the provider's retry runs it again.
func (p *Payments) Once(ctx context.Context, provider, eventID string, fn func() error) (bool, error) {
	const op = "credits.Payments.Once"
	if eventID == "" {
		return false, failure.Invalidf(op, "id", "The event has no id.")
	}
	first, err := p.events.RecordPaymentEvent(ctx, provider, eventID, p.clock.Now())
	if err != nil || !first {
		return false, failure.Wrap(op, err)
	}
	if err := fn(); err != nil {
		if ferr := p.events.ForgetPaymentEvent(context.WithoutCancel(ctx), provider, eventID); ferr != nil {
			return true, failure.Wrap(op, errors.Join(err, ferr))
		}
		return true, err
	}
	return true, nil
}

// CompletePurchase adds a paid top-up's credits, exactly once per session.
func (p *Payments) CompletePurchase(ctx context.Context, sessionID string) (bool, error) {
	return p.credits.CompletePurchase(ctx, sessionID)
}

// Subscription statuses as providers report them (Stripe's names).
const (
	SubActive            = "active"
	SubTrialing          = "trialing"
	SubPastDue           = "past_due"
	SubIncomplete        = "incomplete"
	SubIncompleteExpired = "incomplete_expired"
	SubUnpaid            = "unpaid"
	SubCanceled          = "canceled"
	SubPaused            = "paused"
)

// SubscriptionChange is a provider's report on one subscription.
type SubscriptionChange struct {
	Provider       string
	AccountID      int64
	SubscriptionID string
	Plan           string
	Status         string
	// At is when the provider created the event.
	At time.Time
}

// PlanFor is the plan an account holds while its subscription is in a
// status: active, trialing and past_due (the provider is still retrying the
// payment) keep the plan; an incomplete first payment grants nothing yet;
// every other status ends it.
func PlanFor(status, plan string) (string, bool) {
	switch status {
	case SubActive, SubTrialing, SubPastDue:
		return plan, true
	case SubIncomplete:
		return "", false
	}
	return "", true
}

// ApplySubscription moves the account to the plan its subscription stands
// for. An event older than the one last applied changes nothing (false):
// providers do not promise to deliver in order.
func (p *Payments) ApplySubscription(ctx context.Context, ch SubscriptionChange) (bool, error) {
	const op = "credits.Payments.ApplySubscription"
	known, ok := p.credits.plans.ByName(ch.Plan)
	if !ok || ch.AccountID == 0 {
		return false, failure.Invalidf(op, "plan", "The subscription names no known plan or account.")
	}
	if live := ch.Status == SubActive || ch.Status == SubTrialing || ch.Status == SubPastDue; live && known.Name == "" {
		return false, failure.Invalidf(op, "plan", "A live subscription must name its plan.")
	}
	prev, err := p.events.Subscription(ctx, ch.AccountID)
	switch {
	case err == nil && ch.At.Before(prev.EventAt):
		return false, nil
	case err != nil && !failure.Is(err, failure.NotFound):
		return false, failure.Wrap(op, err)
	}
	plan, change := PlanFor(ch.Status, ch.Plan)
	if err == nil && prev.ID != ch.SubscriptionID && plan == "" {
		// An older subscription ending does not end the current one.
		return false, nil
	}
	if change {
		if err := p.credits.SetPlan(ctx, ch.AccountID, plan); err != nil {
			return false, failure.Wrap(op, err)
		}
	}
	err = p.events.SaveSubscription(ctx, ports.Subscription{
		AccountID: ch.AccountID, Provider: ch.Provider, ID: ch.SubscriptionID, Plan: ch.Plan, Status: ch.Status, EventAt: ch.At,
	})
	return change, failure.Wrap(op, err)
}
