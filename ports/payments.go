package ports

import (
	"context"
	"time"
)

// PlanCheckoutRequest asks a payment provider for a hosted checkout that
// subscribes an account to a plan.
type PlanCheckoutRequest struct {
	AccountID int64
	Email     string
	Plan      string
}

// PlanCheckout is a payment provider that sells subscriptions.
type PlanCheckout interface {
	CreatePlanCheckout(ctx context.Context, r PlanCheckoutRequest) (Checkout, error)
}

// Subscription is what Trawl last applied of an account's subscription at
// a payment provider.
type Subscription struct {
	AccountID int64
	Provider  string
	ID        string
	Plan      string
	Status    string
	// EventAt is when the provider created the event last applied: an older
	// event arriving late must not undo it.
	EventAt time.Time
}

// PaymentEventStore remembers the provider events already handled, and the
// subscription state they left.
type PaymentEventStore interface {
	// RecordPaymentEvent stores an event id; false when it was stored before.
	RecordPaymentEvent(ctx context.Context, provider, eventID string, at time.Time) (bool, error)
	// ForgetPaymentEvent removes an event id whose handling failed, so the
	// provider's retry is handled.
	ForgetPaymentEvent(ctx context.Context, provider, eventID string) error
	// Subscription returns an account's subscription; failure.NotFound when none.
	Subscription(ctx context.Context, accountID int64) (Subscription, error)
	SaveSubscription(ctx context.Context, s Subscription) error
}

// PlanCheckoutSession is a plan subscription waiting for payment at a
// provider that keeps its own sessions (the local checkout).
type PlanCheckoutSession struct {
	ID        string
	AccountID int64
	Plan      string
	CreatedAt time.Time
	PaidAt    *time.Time
}

// PlanCheckoutStore keeps local plan checkout sessions.
type PlanCheckoutStore interface {
	CreatePlanCheckout(ctx context.Context, s PlanCheckoutSession) error
	// PlanCheckoutSession finds a session; failure.NotFound when unknown.
	PlanCheckoutSession(ctx context.Context, id string) (PlanCheckoutSession, error)
	// MarkPlanCheckoutPaid marks a session paid; false if it already was.
	MarkPlanCheckoutPaid(ctx context.Context, id string, at time.Time) (bool, error)
}
