package sqlstore

import (
	"context"
	"database/sql"
	"time"

	"github.com/trawlhq/trawl/ports"
)

var _ ports.PaymentEventStore = (*Store)(nil)

// RecordPaymentEvent stores an event id once: the primary key decides.
func (s *Store) RecordPaymentEvent(ctx context.Context, provider, eventID string, at time.Time) (bool, error) {
	res, err := s.w().ExecContext(ctx, s.q(`INSERT INTO payment_events (provider, event_id, received_at) VALUES (?, ?, ?)
		ON CONFLICT (provider, event_id) DO NOTHING`), provider, eventID, ms(at))
	if err != nil {
		return false, fail(ctx, "sqlstore.RecordPaymentEvent", err)
	}
	n, err := res.RowsAffected()
	return n == 1, fail(ctx, "sqlstore.RecordPaymentEvent", err)
}

// ForgetPaymentEvent removes an event id.
func (s *Store) ForgetPaymentEvent(ctx context.Context, provider, eventID string) error {
	_, err := s.w().ExecContext(ctx, s.q(`DELETE FROM payment_events WHERE provider = ? AND event_id = ?`), provider, eventID)
	return fail(ctx, "sqlstore.ForgetPaymentEvent", err)
}

type subscriptionRow struct {
	AccountID int64  `db:"account_id"`
	Provider  string `db:"provider"`
	ID        string `db:"subscription_id"`
	Plan      string `db:"plan"`
	Status    string `db:"status"`
	EventAt   int64  `db:"event_at"`
}

// Subscription returns an account's subscription.
func (s *Store) Subscription(ctx context.Context, accountID int64) (ports.Subscription, error) {
	var r subscriptionRow
	err := s.x().GetContext(ctx, &r, s.q(`SELECT account_id, provider, subscription_id, plan, status, event_at FROM subscriptions WHERE account_id = ?`), accountID)
	if err != nil {
		return ports.Subscription{}, notFound(ctx, "sqlstore.Subscription", "subscription", err)
	}
	return ports.Subscription{AccountID: r.AccountID, Provider: r.Provider, ID: r.ID, Plan: r.Plan, Status: r.Status, EventAt: fromMS(r.EventAt)}, nil
}

// SaveSubscription inserts or replaces an account's subscription.
func (s *Store) SaveSubscription(ctx context.Context, x ports.Subscription) error {
	_, err := s.w().ExecContext(ctx, s.q(`INSERT INTO subscriptions (account_id, provider, subscription_id, plan, status, event_at) VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (account_id) DO UPDATE SET provider = excluded.provider, subscription_id = excluded.subscription_id,
		plan = excluded.plan, status = excluded.status, event_at = excluded.event_at`),
		x.AccountID, x.Provider, x.ID, x.Plan, x.Status, ms(x.EventAt))
	return fail(ctx, "sqlstore.SaveSubscription", err)
}

var _ ports.PlanCheckoutStore = (*Store)(nil)

// CreatePlanCheckout stores a plan checkout session.
func (s *Store) CreatePlanCheckout(ctx context.Context, x ports.PlanCheckoutSession) error {
	_, err := s.w().ExecContext(ctx, s.q(`INSERT INTO plan_checkouts (id, account_id, plan, created_at, paid_at) VALUES (?, ?, ?, ?, ?)`),
		x.ID, x.AccountID, x.Plan, ms(x.CreatedAt), msPtr(x.PaidAt))
	return fail(ctx, "sqlstore.CreatePlanCheckout", err)
}

type planCheckoutRow struct {
	ID        string        `db:"id"`
	AccountID int64         `db:"account_id"`
	Plan      string        `db:"plan"`
	CreatedAt int64         `db:"created_at"`
	PaidAt    sql.NullInt64 `db:"paid_at"`
}

// PlanCheckoutSession finds a plan checkout session.
func (s *Store) PlanCheckoutSession(ctx context.Context, id string) (ports.PlanCheckoutSession, error) {
	var r planCheckoutRow
	if err := s.x().GetContext(ctx, &r, s.q(`SELECT id, account_id, plan, created_at, paid_at FROM plan_checkouts WHERE id = ?`), id); err != nil {
		return ports.PlanCheckoutSession{}, notFound(ctx, "sqlstore.PlanCheckoutSession", "plan checkout", err)
	}
	return ports.PlanCheckoutSession{ID: r.ID, AccountID: r.AccountID, Plan: r.Plan, CreatedAt: fromMS(r.CreatedAt), PaidAt: timePtr(r.PaidAt)}, nil
}

// MarkPlanCheckoutPaid marks a session paid once: one statement decides.
func (s *Store) MarkPlanCheckoutPaid(ctx context.Context, id string, at time.Time) (bool, error) {
	res, err := s.w().ExecContext(ctx, s.q(`UPDATE plan_checkouts SET paid_at = ? WHERE id = ? AND paid_at IS NULL`), ms(at), id)
	if err != nil {
		return false, fail(ctx, "sqlstore.MarkPlanCheckoutPaid", err)
	}
	n, err := res.RowsAffected()
	return n == 1, fail(ctx, "sqlstore.MarkPlanCheckoutPaid", err)
}
