package credits_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/trawlhq/trawl/core/billing"
	"github.com/trawlhq/trawl/core/credits"
	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/ports"
)

func newPayments(t *testing.T, f *fixture) *credits.Payments {
	t.Helper()
	p, err := credits.NewPayments(f.svc, f.store, f.store, f.clock)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestPaymentsOnce(t *testing.T) {
	f := newFixture(t, "")
	p := newPayments(t, f)
	ctx := context.Background()
	runs := 0
	boom := errors.New("database hiccup")
	if ran, err := p.Once(ctx, "stripe", "evt_1", func() error { runs++; return boom }); !ran || !errors.Is(err, boom) {
		t.Fatalf("failing run = %v, %v", ran, err)
	}
	// The provider retries the failed event: it runs again.
	if ran, err := p.Once(ctx, "stripe", "evt_1", func() error { runs++; return nil }); !ran || err != nil {
		t.Fatalf("retry = %v, %v", ran, err)
	}
	// A replay of a handled event runs nothing.
	if ran, err := p.Once(ctx, "stripe", "evt_1", func() error { runs++; return nil }); ran || err != nil {
		t.Fatalf("replay = %v, %v", ran, err)
	}
	if runs != 2 {
		t.Fatalf("ran %d times, want 2", runs)
	}
}

func (f *fixture) plan(t *testing.T) string {
	t.Helper()
	a, err := f.store.AccountByID(context.Background(), f.account.ID)
	if err != nil {
		t.Fatal(err)
	}
	return a.Plan
}

func TestApplySubscription(t *testing.T) {
	f := newFixture(t, "")
	p := newPayments(t, f)
	ctx := context.Background()
	ch := func(sub, plan, status string, at time.Duration) credits.SubscriptionChange {
		return credits.SubscriptionChange{Provider: "stripe", AccountID: f.account.ID, SubscriptionID: sub, Plan: plan, Status: status, At: t0.Add(at)}
	}
	steps := []struct {
		change  credits.SubscriptionChange
		applied bool
		plan    string
	}{
		{ch("sub_1", "pro", "incomplete", 0), false, ""},                     // first payment not through yet
		{ch("sub_1", "pro", "active", time.Minute), true, "pro"},             // paid
		{ch("sub_1", "basic", "active", 30*time.Second), false, "pro"},       // older event, late: ignored
		{ch("sub_1", "business", "active", time.Hour), true, "business"},     // upgrade
		{ch("sub_1", "business", "past_due", 2*time.Hour), true, "business"}, // renewal payment retrying
		{ch("sub_1", "business", "canceled", 3*time.Hour), true, ""},         // ended
		{ch("sub_2", "basic", "active", 4*time.Hour), true, "basic"},         // a new subscription
		{ch("sub_1", "business", "canceled", 5*time.Hour), false, "basic"},   // the old one's end does not end it
	}
	for i, s := range steps {
		applied, err := p.ApplySubscription(ctx, s.change)
		if err != nil || applied != s.applied || f.plan(t) != s.plan {
			t.Fatalf("step %d %+v: applied %v (want %v), plan %q (want %q), %v", i, s.change, applied, s.applied, f.plan(t), s.plan, err)
		}
	}
	if _, err := p.ApplySubscription(ctx, ch("sub_2", "platinum", "active", 6*time.Hour)); err == nil {
		t.Fatal("an unknown plan was applied")
	}
	if _, err := p.ApplySubscription(ctx, ch("sub_2", "", "active", 7*time.Hour)); err == nil || f.plan(t) != "basic" {
		t.Fatalf("an active subscription without a plan: %v, plan %q", err, f.plan(t))
	}
}

func TestPlanChangeKeepsTopUps(t *testing.T) {
	f := newFixture(t, "")
	p := newPayments(t, f)
	ctx := context.Background()
	if err := f.svc.Grant(ctx, f.account.ID, 500); err != nil {
		t.Fatal(err)
	}
	if _, err := p.ApplySubscription(ctx, credits.SubscriptionChange{Provider: "stripe", AccountID: f.account.ID, SubscriptionID: "sub", Plan: "basic", Status: "active", At: t0}); err != nil {
		t.Fatal(err)
	}
	if b := f.balance(t); b != 6000+500 {
		t.Fatalf("balance %d, want 6500", b)
	}
}

type planSeller struct {
	noPayments
	got []ports.PlanCheckoutRequest
}

func (p *planSeller) CreatePlanCheckout(_ context.Context, r ports.PlanCheckoutRequest) (ports.Checkout, error) {
	p.got = append(p.got, r)
	return ports.Checkout{SessionID: "cs_plan", URL: "https://pay.example/cs_plan"}, nil
}

func TestSubscribe(t *testing.T) {
	f := newFixture(t, "basic")
	ctx := context.Background()
	if f.svc.SellsPlans() {
		t.Fatal("a provider without plan checkout sells plans")
	}
	if _, err := f.svc.Subscribe(ctx, f.account, "pro"); !failure.Is(err, failure.Unavailable) {
		t.Fatalf("no plan checkout: %v", err)
	}
	seller := &planSeller{}
	svc, _ := credits.NewService(f.store, f.store, seller, f.clock, credits.DefaultPricing, billing.DefaultPlans())
	if !svc.SellsPlans() {
		t.Fatal("SellsPlans = false")
	}
	for _, bad := range []string{"", "none", "gold", "basic"} {
		if _, err := svc.Subscribe(ctx, f.account, bad); !failure.Is(err, failure.Invalid) {
			t.Errorf("Subscribe(%q): %v", bad, err)
		}
	}
	co, err := svc.Subscribe(ctx, f.account, "Pro")
	if err != nil || co.SessionID != "cs_plan" || len(seller.got) != 1 || seller.got[0].Plan != "pro" || seller.got[0].AccountID != f.account.ID {
		t.Fatalf("subscribe = %+v, %v, %+v", co, err, seller.got)
	}
	if a, _ := f.store.AccountByID(ctx, f.account.ID); a.Plan != "basic" {
		t.Fatal("the plan changed before the payment")
	}
}

func TestLocalPlanCheckout(t *testing.T) {
	f := newFixture(t, "")
	p := newPayments(t, f)
	ctx := context.Background()
	if err := f.store.CreatePlanCheckout(ctx, ports.PlanCheckoutSession{ID: "pcs_1", AccountID: f.account.ID, Plan: "business", CreatedAt: t0}); err != nil {
		t.Fatal(err)
	}
	other, _ := f.store.CreateAccount(ctx, ports.Account{Email: "other@example.com", CreatedAt: t0, UpdatedAt: t0})
	if _, err := p.CompletePlanCheckout(ctx, other.ID, "pcs_1"); !failure.Is(err, failure.NotFound) {
		t.Fatalf("another account paid the session: %v", err)
	}
	if ok, err := p.CompletePlanCheckout(ctx, f.account.ID, "pcs_1"); !ok || err != nil || f.plan(t) != "business" {
		t.Fatalf("pay = %v, %v, plan %q", ok, err, f.plan(t))
	}
	if f.balance(t) != 90000 {
		t.Fatalf("balance %d", f.balance(t))
	}
	// Paying again (a reload, a second click) changes nothing.
	f.spendAllowance(t, 100)
	if ok, err := p.CompletePlanCheckout(ctx, f.account.ID, "pcs_1"); ok || err != nil || f.balance(t) != 89900 {
		t.Fatalf("second pay = %v, %v, balance %d", ok, err, f.balance(t))
	}
}
