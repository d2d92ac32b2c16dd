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
	"github.com/trawlhq/trawl/testkit"
	"github.com/trawlhq/trawl/testkit/memstore"
)

var t0 = time.Date(2026, 3, 5, 12, 0, 0, 0, time.UTC)

type fixture struct {
	store   *memstore.Store
	clock   *testkit.Clock
	ledger  *credits.Ledger
	biller  *credits.Biller
	svc     *credits.Service
	account ports.Account
	token   ports.Token
}

type noPayments struct{ err error }

func (n noPayments) CreateCheckout(context.Context, ports.CheckoutRequest) (ports.Checkout, error) {
	return ports.Checkout{SessionID: "cs", URL: "https://pay.example/cs"}, n.err
}

func newFixture(t *testing.T, plan string) *fixture {
	t.Helper()
	f := &fixture{store: memstore.New(), clock: testkit.NewClock(t0)}
	var err error
	f.account, err = f.store.CreateAccount(context.Background(), ports.Account{Email: "a@example.com", Plan: plan, CreatedAt: t0, UpdatedAt: t0})
	if err != nil {
		t.Fatal(err)
	}
	f.token, _ = f.store.CreateToken(context.Background(), ports.Token{AccountID: f.account.ID, Hash: "h", CreatedAt: t0}, 5)
	f.ledger, _ = credits.NewLedger(f.store, f.clock)
	f.biller, _ = credits.NewBiller(f.ledger, f.store, f.clock, billing.DefaultPlans())
	f.svc, _ = credits.NewService(f.store, f.store, noPayments{}, f.clock, credits.DefaultPricing, billing.DefaultPlans())
	return f
}

func (f *fixture) balance(t *testing.T) int64 {
	t.Helper()
	st, err := f.svc.Status(context.Background(), f.account.ID)
	if err != nil {
		t.Fatal(err)
	}
	return st.Balance
}

func (f *fixture) spendAllowance(t *testing.T, n int64) {
	t.Helper()
	err := f.store.WithCredits(context.Background(), f.account.ID, func(tx ports.LedgerTx) error {
		s, _ := billing.DefaultPlans().Spend(tx.State(), n)
		return tx.SaveState(s)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) call(credits0 int64) credits.Call {
	return credits.Call{Principal: ports.Principal{Account: f.account.Caller(), Token: f.token.Caller()}, Service: billing.Content, MaxCredits: credits0, RequestID: "req_1"}
}

func charge(n int64, err error) credits.Work {
	return func(context.Context) (int64, ports.TransactionMetadata, error) {
		return n, ports.TransactionMetadata{URL: "https://example.com/a"}, err
	}
}

func TestConstructorsRejectNil(t *testing.T) {
	if _, err := credits.NewLedger(nil, testkit.NewClock(t0)); err == nil {
		t.Error("NewLedger(nil store)")
	}
	if _, err := credits.NewBiller(nil, nil, nil, billing.DefaultPlans()); err == nil {
		t.Error("NewBiller(nil)")
	}
	if _, err := credits.NewService(nil, nil, nil, nil, credits.Pricing{}, billing.DefaultPlans()); err == nil {
		t.Error("NewService(nil)")
	}
}

func TestRunChargesOnlyOnSuccess(t *testing.T) {
	f := newFixture(t, "basic")
	ctx := context.Background()
	rc, err := f.biller.Run(ctx, f.call(0), charge(2, nil))
	if err != nil || rc.Charged != 2 || rc.Balance != 5998 || rc.IsLow {
		t.Fatalf("Run = %+v, %v", rc, err)
	}
	if rc.Transaction.Metadata.RequestID != "req_1" || rc.Transaction.Metadata.URL != "https://example.com/a" || rc.Transaction.ServiceType != "content" || rc.Transaction.ServiceName != "Content Extraction" {
		t.Fatalf("transaction = %+v", rc.Transaction)
	}
	boom := failure.E("work", failure.Unavailable, "target down")
	if _, err := f.biller.Run(ctx, f.call(0), charge(2, boom)); !failure.Is(err, failure.Unavailable) {
		t.Fatalf("failed work: %v", err)
	}
	if b := f.balance(t); b != 5998 {
		t.Fatalf("balance after a failed call = %d, want 5998", b)
	}
	_, _, held := mustRead(t, f)
	if held != 0 {
		t.Fatalf("a failed call left %d credits held", held)
	}
	// A zero-cost outcome (say, a map with nothing found) charges nothing and writes nothing.
	if rc, err := f.biller.Run(ctx, f.call(0), charge(0, nil)); err != nil || rc.Charged != 0 || rc.Balance != 5998 {
		t.Fatalf("zero charge = %+v, %v", rc, err)
	}
	if _, total, _ := f.store.Transactions(ctx, f.account.ID, 10, 0); total != 1 {
		t.Fatalf("%d transactions, want 1", total)
	}
}

func mustRead(t *testing.T, f *fixture) (ports.CreditState, int64, int64) {
	st, held, err := f.store.ReadCredits(context.Background(), f.account.ID, f.clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	return st, billing.DefaultPlans().Balance(st), held
}

func TestRunReleasesOnPanic(t *testing.T) {
	f := newFixture(t, "basic")
	func() {
		defer func() { _ = recover() }()
		_, _ = f.biller.Run(context.Background(), f.call(0), func(context.Context) (int64, ports.TransactionMetadata, error) { panic("boom") })
	}()
	if _, _, held := mustRead(t, f); held != 0 {
		t.Fatalf("panicking work left %d held", held)
	}
}

func TestPlanRequired(t *testing.T) {
	f := newFixture(t, "")
	_, err := f.biller.Run(context.Background(), f.call(0), charge(2, nil))
	if !failure.Is(err, failure.PlanRequired) {
		t.Fatalf("no plan: %v", err)
	}
}

func TestInsufficientCreditsReportsAmounts(t *testing.T) {
	f := newFixture(t, "basic")
	f.spendAllowance(t, 5999)
	_, err := f.biller.Run(context.Background(), f.call(0), charge(2, nil))
	fe, _ := failure.As(err)
	if !failure.Is(err, failure.InsufficientCredits) || fe.Required != 2 || fe.Balance != 1 {
		t.Fatalf("err = %v (%+v)", err, fe)
	}
}

func TestHoldsCountAgainstTheBalance(t *testing.T) {
	f := newFixture(t, "basic")
	f.spendAllowance(t, 5990)
	ctx := context.Background()
	h, err := f.ledger.Reserve(ctx, ports.ReserveRequest{AccountID: f.account.ID, Amount: 8})
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.ledger.Reserve(ctx, ports.ReserveRequest{AccountID: f.account.ID, Amount: 3})
	if fe, _ := failure.As(err); !failure.Is(err, failure.InsufficientCredits) || fe.Balance != 2 {
		t.Fatalf("second reserve over the held balance: %v", err)
	}
	// Settling less than held frees the rest.
	if _, err := f.ledger.Settle(ctx, h, ports.Charge{Credits: 5, ServiceType: "bulk_content"}); err != nil {
		t.Fatal(err)
	}
	if b := f.balance(t); b != 5 {
		t.Fatalf("balance = %d, want 5", b)
	}
	if _, err := f.ledger.Settle(ctx, ports.Hold{ID: "x", AccountID: f.account.ID, Amount: 1}, ports.Charge{Credits: 2}); err == nil {
		t.Fatal("a charge above its hold was accepted")
	}
}

func TestHoldsExpire(t *testing.T) {
	f := newFixture(t, "basic")
	f.spendAllowance(t, 5990)
	ctx := context.Background()
	if _, err := f.ledger.Reserve(ctx, ports.ReserveRequest{AccountID: f.account.ID, Amount: 10, TTL: time.Minute}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.ledger.Reserve(ctx, ports.ReserveRequest{AccountID: f.account.ID, Amount: 10}); !failure.Is(err, failure.InsufficientCredits) {
		t.Fatalf("reserve while held: %v", err)
	}
	f.clock.Advance(time.Minute) // the process holding it "died"
	if _, err := f.ledger.Reserve(ctx, ports.ReserveRequest{AccountID: f.account.ID, Amount: 10}); err != nil {
		t.Fatalf("reserve after the hold expired: %v", err)
	}
}

func TestSettleAfterExpiryChargesOnlyIfCovered(t *testing.T) {
	f := newFixture(t, "basic")
	f.spendAllowance(t, 5990)
	ctx := context.Background()
	h1, _ := f.ledger.Reserve(ctx, ports.ReserveRequest{AccountID: f.account.ID, Amount: 10, TTL: time.Minute})
	f.clock.Advance(2 * time.Minute)
	h2, _ := f.ledger.Reserve(ctx, ports.ReserveRequest{AccountID: f.account.ID, Amount: 10})
	if _, err := f.ledger.Settle(ctx, h1, ports.Charge{Credits: 10}); !failure.Is(err, failure.InsufficientCredits) {
		t.Fatalf("late settle stole held credits: %v", err)
	}
	if _, err := f.ledger.Settle(ctx, h2, ports.Charge{Credits: 10}); err != nil {
		t.Fatal(err)
	}
	if b := f.balance(t); b != 0 {
		t.Fatalf("balance %d", b)
	}
}

func TestMonthlyRenewalThroughTheLedger(t *testing.T) {
	f := newFixture(t, "basic")
	f.spendAllowance(t, 6000)
	ctx := context.Background()
	if err := f.svc.Grant(ctx, f.account.ID, 100); err != nil {
		t.Fatal(err)
	}
	if _, err := f.biller.Run(ctx, f.call(0), charge(2, nil)); err != nil {
		t.Fatal(err)
	}
	st, _ := f.svc.Status(ctx, f.account.ID)
	if st.Balance != 98 || st.Used != 6002 || st.PercentageUsed != 100 || !st.IsLow {
		t.Fatalf("before renewal: %+v", st)
	}
	f.clock.Set(billing.AddMonths(t0, 1))
	st, _ = f.svc.Status(ctx, f.account.ID)
	if st.Balance != 6098 || st.Used != 0 || st.IsLow || !st.NextRenewal.Equal(billing.AddMonths(t0, 2)) {
		t.Fatalf("after renewal: %+v", st)
	}
	rc, err := f.biller.Run(ctx, f.call(0), charge(2, nil))
	if err != nil || rc.Balance != 6096 {
		t.Fatalf("charge after renewal = %+v, %v", rc, err)
	}
	raw, _, _ := mustRead(t, f)
	if raw.TopUp != 98 || raw.AllowanceUsed != 2 {
		t.Fatalf("allowance must be spent before top-ups: %+v", raw)
	}
}

func TestSetPlan(t *testing.T) {
	f := newFixture(t, "")
	ctx := context.Background()
	if err := f.svc.SetPlan(ctx, f.account.ID, "gold"); !failure.Is(err, failure.Invalid) {
		t.Fatalf("unknown plan: %v", err)
	}
	f.clock.Advance(48 * time.Hour)
	if err := f.svc.SetPlan(ctx, f.account.ID, "pro"); err != nil {
		t.Fatal(err)
	}
	st, _ := f.svc.Status(ctx, f.account.ID)
	if st.Limit != 20000 || st.Balance != 20000 || !st.NextRenewal.Equal(billing.AddMonths(f.clock.Now(), 1)) {
		t.Fatalf("after subscribing: %+v", st)
	}
	if err := f.svc.SetPlan(ctx, f.account.ID, "none"); err != nil {
		t.Fatal(err)
	}
	st, _ = f.svc.Status(ctx, f.account.ID)
	if st.Limit != 0 || st.NextRenewal != nil {
		t.Fatalf("after cancelling: %+v", st)
	}
}

func TestPurchaseAndCompleteExactlyOnce(t *testing.T) {
	f := newFixture(t, "basic")
	ctx := context.Background()
	for _, n := range []int64{0, 99, 10001, -5} {
		if _, err := f.svc.Purchase(ctx, f.account, n); !failure.Is(err, failure.Invalid) || failure.FieldNames(err)[0] != "credits" {
			t.Errorf("Purchase(%d): %v", n, err)
		}
	}
	co, err := f.svc.Purchase(ctx, f.account, 500)
	if err != nil || co.URL == "" {
		t.Fatalf("Purchase = %+v, %v", co, err)
	}
	if got := f.svc.PriceCents(500); got != 250 {
		t.Errorf("price of 500 credits = %d cents, want 250", got)
	}
	if err := f.store.CreateCheckoutSession(ctx, ports.CheckoutSession{ID: "cs_1", AccountID: f.account.ID, Credits: 500, CreatedAt: t0}); err != nil {
		t.Fatal(err)
	}
	for i, want := range []bool{true, false, false} {
		added, err := f.svc.CompletePurchase(ctx, "cs_1")
		if err != nil || added != want {
			t.Fatalf("completion #%d = %v, %v", i+1, added, err)
		}
	}
	if b := f.balance(t); b != 6500 {
		t.Fatalf("balance = %d, want 6500", b)
	}
	txs, _, _ := f.store.Transactions(ctx, f.account.ID, 10, 0)
	if len(txs) != 1 || txs[0].Credits != -500 || txs[0].ServiceType != "topup" || txs[0].Metadata.SessionID != "cs_1" || txs[0].BalanceAfter != 6500 {
		t.Fatalf("transactions = %+v", txs)
	}
	if _, err := f.svc.CompletePurchase(ctx, "cs_unknown"); !failure.Is(err, failure.NotFound) || failure.Public(err, "") != "Checkout session not found." {
		t.Fatalf("unknown session: %v", err)
	}
	bad, _ := credits.NewService(f.store, f.store, noPayments{err: errors.New("provider down")}, f.clock, credits.DefaultPricing, billing.DefaultPlans())
	if _, err := bad.Purchase(ctx, f.account, 500); err == nil || failure.KindOf(err) != failure.Internal {
		t.Fatalf("provider failure: %v", err)
	}
}

func TestValidatePreview(t *testing.T) {
	for _, c := range []struct {
		st     string
		qty    int64
		fields []string
	}{
		{"content", 1, nil},
		{"prompt", 100, nil},
		{"", 1, []string{"service_type"}},
		{"map", 1, []string{"service_type"}},
		{"bulk_content", 1, []string{"service_type"}},
		{"serp", 0, []string{"quantity"}},
		{"serp", 101, []string{"quantity"}},
		{"crawl", 10_000, nil},
		{"crawl", 10_001, []string{"quantity"}},
		{"nope", -1, []string{"quantity", "service_type"}},
	} {
		_, err := credits.ValidatePreview(c.st, c.qty)
		got := failure.FieldNames(err)
		if len(got) != len(c.fields) {
			t.Errorf("ValidatePreview(%q, %d) fields = %v, want %v", c.st, c.qty, got, c.fields)
			continue
		}
		for i := range got {
			if got[i] != c.fields[i] {
				t.Errorf("ValidatePreview(%q, %d) fields = %v, want %v", c.st, c.qty, got, c.fields)
			}
		}
	}
}

// A preview without a quantity prices one call; a quantity given is
// checked as it is.
func TestPreviewQuantity(t *testing.T) {
	f := newFixture(t, "basic")
	ctx := context.Background()
	p, err := f.svc.Preview(ctx, f.account.ID, "serp", nil)
	if err != nil || p.Quantity != credits.DefaultPreviewQuantity || p.TotalCost != p.CreditCostPerRequest {
		t.Fatalf("no quantity = %+v, %v", p, err)
	}
	p, err = f.svc.Preview(ctx, f.account.ID, "serp", new(int64(3)))
	if err != nil || p.Quantity != 3 || p.TotalCost != 3*p.CreditCostPerRequest {
		t.Fatalf("quantity 3 = %+v, %v", p, err)
	}
	if _, err := f.svc.Preview(ctx, f.account.ID, "serp", new(int64(0))); !failure.Is(err, failure.Invalid) {
		t.Fatalf("explicit 0 = %v", err)
	}
}

func TestTransactionsPaging(t *testing.T) {
	f := newFixture(t, "basic")
	ctx := context.Background()
	for range 5 {
		if _, err := f.biller.Run(ctx, f.call(0), charge(2, nil)); err != nil {
			t.Fatal(err)
		}
	}
	p, err := f.svc.Transactions(ctx, f.account.ID, credits.Paging{Page: new(2), PerPage: new(2)})
	if err != nil || len(p.Items) != 2 || p.Total != 5 || p.LastPage() != 3 || p.Items[0].BalanceAfter != 5994 {
		t.Fatalf("page 2 = %+v, %v", p, err)
	}
	// Nothing given: the first page of DefaultPerPage.
	p, err = f.svc.Transactions(ctx, f.account.ID, credits.Paging{})
	if err != nil || p.Page != credits.DefaultPage || p.PerPage != credits.DefaultPerPage || len(p.Items) != 5 {
		t.Fatalf("defaults = %+v, %v", p, err)
	}
	p, err = f.svc.Transactions(ctx, f.account.ID, credits.Paging{PerPage: new(3)})
	if err != nil || p.Page != 1 || len(p.Items) != 3 {
		t.Fatalf("per page only = %+v, %v", p, err)
	}
	// A value given is checked as it is: an explicit 0 is not the default.
	for _, c := range []credits.Paging{{Page: new(0)}, {PerPage: new(0)}, {Page: new(1), PerPage: new(101)}} {
		if _, err := f.svc.Transactions(ctx, f.account.ID, c); !failure.Is(err, failure.Invalid) {
			t.Errorf("paging %v: %v", c, err)
		}
	}
	if (credits.Page{PerPage: 20}).LastPage() != 1 {
		t.Error("an empty list has one (empty) page")
	}
	f.store.DeleteAccount(f.account.ID)
	if _, err := f.svc.Transactions(ctx, f.account.ID, credits.Paging{}); !failure.Is(err, failure.NotFound) || failure.Public(err, "") != "Account not found." {
		t.Fatalf("vanished account: %v", err)
	}
}

// StatusFor answers from the credit row read with the token, without a
// second read; a principal without it is answered from the store.
func TestStatusForUsesThePrincipalsCreditRow(t *testing.T) {
	f := newFixture(t, "basic")
	ctx := context.Background()
	p, err := f.store.PrincipalByTokenHash(ctx, "h")
	if err != nil || p.Credits.AccountID != f.account.ID {
		t.Fatalf("principal %+v, %v", p, err)
	}
	full := f.balance(t)
	// A charge after authentication: the store moves, the principal does not.
	if err := f.svc.Grant(ctx, f.account.ID, 500); err != nil {
		t.Fatal(err)
	}
	st, err := f.svc.StatusFor(ctx, p)
	if err != nil || st.Balance != full {
		t.Fatalf("StatusFor = %d, %v; want the principal's %d", st.Balance, err, full)
	}
	st, err = f.svc.StatusFor(ctx, ports.Principal{Account: f.account.Caller(), Token: f.token.Caller()})
	if err != nil || st.Balance != full+500 {
		t.Fatalf("StatusFor without a credit row = %d, %v; want the store's %d", st.Balance, err, full+500)
	}
}
