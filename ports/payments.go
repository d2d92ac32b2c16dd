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
