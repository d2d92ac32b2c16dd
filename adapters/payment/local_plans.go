package payment

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"

	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/ports"
)

// LocalPlans is the local provider selling plans as well: its hosted page
// for a plan is the dashboard's checkout page, whose Pay button starts the
// plan. Like top-ups it takes no money.
type LocalPlans struct {
	*Local
	plans ports.PlanCheckoutStore
}

var (
	_ ports.PaymentProvider = (*LocalPlans)(nil)
	_ ports.PlanCheckout    = (*LocalPlans)(nil)
)

// NewLocalPlans adds plan checkouts to a local provider.
func NewLocalPlans(l *Local, plans ports.PlanCheckoutStore) (*LocalPlans, error) {
	if l == nil || plans == nil {
		return nil, errors.New("payment.NewLocalPlans: provider and plan store are required")
	}
	return &LocalPlans{Local: l, plans: plans}, nil
}

// CreatePlanCheckout stores a plan checkout and points at its page.
func (l *LocalPlans) CreatePlanCheckout(ctx context.Context, r ports.PlanCheckoutRequest) (ports.Checkout, error) {
	var b [18]byte
	if _, err := rand.Read(b[:]); err != nil {
		return ports.Checkout{}, failure.Wrap("payment.CreatePlanCheckout", err)
	}
	id := "pcs_local_" + hex.EncodeToString(b[:])
	err := l.plans.CreatePlanCheckout(ctx, ports.PlanCheckoutSession{ID: id, AccountID: r.AccountID, Plan: r.Plan, CreatedAt: l.clock.Now()})
	if err != nil {
		return ports.Checkout{}, failure.Wrap("payment.CreatePlanCheckout", err)
	}
	return ports.Checkout{SessionID: id, URL: l.publicURL + "/dashboard/checkout/plan/" + id}, nil
}
