package payment_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stripe/stripe-go/v85/webhook"

	"github.com/trawlhq/trawl/adapters/payment"
	"github.com/trawlhq/trawl/core/billing"
	"github.com/trawlhq/trawl/core/credits"
	"github.com/trawlhq/trawl/ports"
	"github.com/trawlhq/trawl/testkit"
	"github.com/trawlhq/trawl/testkit/memstore"
)

const whsec = "whsec_test_0123456789abcdef"

// stripeMock is the URL of a running stripe-mock (.ci/run starts one).
func stripeMock(t *testing.T) string {
	t.Helper()
	u := os.Getenv("TRAWL_TEST_STRIPE_MOCK_URL")
	if u == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("TRAWL_TEST_STRIPE_MOCK_URL is not set and CI=true (.ci/run starts stripe-mock)")
		}
		t.Skip("no stripe-mock: go tool stripe-mock -http-addr 127.0.0.1:12111 and TRAWL_TEST_STRIPE_MOCK_URL=http://127.0.0.1:12111")
	}
	return u
}

type stripeEnv struct {
	store   *memstore.Store
	clock   *testkit.Clock
	stripe  *payment.Stripe
	credits *credits.Service
	hook    *httptest.Server
	account ports.Account
}

func newStripeEnv(t *testing.T) *stripeEnv {
	t.Helper()
	e := &stripeEnv{store: memstore.New(), clock: testkit.NewClock(time.Now().Truncate(time.Second))}
	var err error
	e.stripe, err = payment.NewStripe(e.store, e.clock, payment.StripeOptions{
		SecretKey: "sk_test_123", WebhookSecret: whsec, APIURL: stripeMock(t), PublicURL: "https://trawl.test",
		Prices: map[string]string{"basic": "price_basic", "pro": "price_pro", "business": "price_business"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if e.credits, err = credits.NewService(e.store, e.store, e.stripe, e.clock, credits.DefaultPricing, billing.DefaultPlans()); err != nil {
		t.Fatal(err)
	}
	pay, err := credits.NewPayments(e.credits, e.store, nil, e.clock)
	if err != nil {
		t.Fatal(err)
	}
	e.hook = httptest.NewServer(e.stripe.WebhookHandler(pay, nil))
	t.Cleanup(e.hook.Close)
	e.account, err = e.store.CreateAccount(context.Background(), ports.Account{Email: "buyer@example.com", CreatedAt: e.clock.Now(), UpdatedAt: e.clock.Now()})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// send posts an event signed with stripe-go's own helper.
func (e *stripeEnv) send(t *testing.T, payload []byte, secret string, at time.Time) int {
	t.Helper()
	signed := webhook.GenerateTestSignedPayload(&webhook.UnsignedPayload{Payload: payload, Secret: secret, Timestamp: at})
	code, _ := e.post(t, payload, signed.Header)
	return code
}

// post delivers a payload with the Stripe-Signature header given, and
// returns the status and the answer's message.
func (e *stripeEnv) post(t *testing.T, payload []byte, signature string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", e.hook.URL, strings.NewReader(string(payload)))
	req.Header.Set("Stripe-Signature", signature)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var body struct{ Message string }
	_ = json.NewDecoder(res.Body).Decode(&body)
	return res.StatusCode, body.Message
}

func event(id, typ string, created time.Time, object map[string]any) []byte {
	b, _ := json.Marshal(map[string]any{
		"id": id, "object": "event", "type": typ, "created": created.Unix(), "api_version": "2020-08-27",
		"data": map[string]any{"object": object},
	})
	return b
}

func (e *stripeEnv) balance(t *testing.T) int64 {
	t.Helper()
	st, err := e.credits.Status(context.Background(), e.account.ID)
	if err != nil {
		t.Fatal(err)
	}
	return st.Balance
}

func TestStripeTopUpCheckoutAndWebhook(t *testing.T) {
	e := newStripeEnv(t)
	ctx := context.Background()
	co, err := e.credits.Purchase(ctx, e.account, 2500)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(co.SessionID, "cs_") || !strings.HasPrefix(co.URL, "https://checkout.stripe.com/") {
		t.Fatalf("checkout %+v", co)
	}
	sess, err := e.store.CheckoutSession(ctx, co.SessionID)
	if err != nil || sess.Credits != 2500 || sess.AmountCents != 1250 || sess.AccountID != e.account.ID {
		t.Fatalf("recorded session %+v, %v", sess, err)
	}
	now := e.clock.Now()
	completed := event("evt_paid", "checkout.session.completed", now, map[string]any{
		"id": co.SessionID, "object": "checkout.session", "mode": "payment", "payment_status": "paid",
		"metadata": map[string]string{"account_id": fmt.Sprint(e.account.ID), "credits": "2500"},
	})
	// A bad signature, and a good one too old to trust: refused, nothing added.
	if code := e.send(t, completed, "whsec_wrong", now); code != http.StatusBadRequest {
		t.Fatalf("bad signature: %d", code)
	}
	if code := e.send(t, completed, whsec, now.Add(-payment.WebhookTolerance-time.Second)); code != http.StatusBadRequest {
		t.Fatalf("old timestamp: %d", code)
	}
	if b := e.balance(t); b != 0 {
		t.Fatalf("balance %d after refused deliveries", b)
	}
	if code := e.send(t, completed, whsec, now); code != 200 {
		t.Fatalf("valid: %d", code)
	}
	if b := e.balance(t); b != 2500 {
		t.Fatalf("balance %d, want 2500", b)
	}
	// The same delivery replayed, and a second event for the same session:
	// the credits were added once.
	if code := e.send(t, completed, whsec, now); code != 200 {
		t.Fatalf("replay: %d", code)
	}
	again := event("evt_paid_again", "checkout.session.completed", now, map[string]any{
		"id": co.SessionID, "object": "checkout.session", "mode": "payment", "payment_status": "paid",
	})
	if code := e.send(t, again, whsec, now); code != 200 {
		t.Fatalf("second event: %d", code)
	}
	if b := e.balance(t); b != 2500 {
		t.Fatalf("balance %d after replays, want 2500", b)
	}
	txs, _, _ := e.store.Transactions(ctx, e.account.ID, 10, 0)
	if len(txs) != 1 || txs[0].Credits != -2500 || txs[0].Metadata.SessionID != co.SessionID {
		t.Fatalf("transactions %+v", txs)
	}
	// A session Trawl never opened is acknowledged and ignored.
	stranger := event("evt_stranger", "checkout.session.completed", now, map[string]any{"id": "cs_unknown", "object": "checkout.session", "mode": "payment", "payment_status": "paid"})
	if code := e.send(t, stranger, whsec, now); code != 200 || e.balance(t) != 2500 {
		t.Fatalf("unknown session: %d, balance %d", code, e.balance(t))
	}
}

func TestStripeAsyncPaymentWaits(t *testing.T) {
	e := newStripeEnv(t)
	co, err := e.credits.Purchase(context.Background(), e.account, 100)
	if err != nil {
		t.Fatal(err)
	}
	now := e.clock.Now()
	obj := map[string]any{"id": co.SessionID, "object": "checkout.session", "mode": "payment", "payment_status": "unpaid"}
	if code := e.send(t, event("evt_pending", "checkout.session.completed", now, obj), whsec, now); code != 200 || e.balance(t) != 0 {
		t.Fatalf("unpaid: %d, balance %d", code, e.balance(t))
	}
	obj["payment_status"] = "paid"
	if code := e.send(t, event("evt_async", "checkout.session.async_payment_succeeded", now, obj), whsec, now); code != 200 || e.balance(t) != 100 {
		t.Fatalf("async success: %d, balance %d", code, e.balance(t))
	}
}

func subscription(id, account, price, status string) map[string]any {
	return map[string]any{
		"id": id, "object": "subscription", "status": status,
		"metadata": map[string]string{"account_id": account},
		"items":    map[string]any{"object": "list", "data": []any{map[string]any{"id": "si_1", "object": "subscription_item", "price": map[string]any{"id": price, "object": "price"}}}},
	}
}

func TestStripeSubscriptionEvents(t *testing.T) {
	e := newStripeEnv(t)
	ctx := context.Background()
	co, err := e.stripe.CreatePlanCheckout(ctx, ports.PlanCheckoutRequest{AccountID: e.account.ID, Email: e.account.Email, Plan: "pro"})
	if err != nil || !strings.HasPrefix(co.SessionID, "cs_") || co.URL == "" {
		t.Fatalf("plan checkout %+v, %v", co, err)
	}
	if _, err := e.stripe.CreatePlanCheckout(ctx, ports.PlanCheckoutRequest{AccountID: e.account.ID, Plan: "gold"}); err == nil {
		t.Fatal("a plan without a price was sold")
	}
	acct := fmt.Sprint(e.account.ID)
	plan := func() string { a, _ := e.store.AccountByID(ctx, e.account.ID); return a.Plan }
	t0 := e.clock.Now()
	steps := []struct {
		id, typ string
		at      time.Duration
		obj     map[string]any
		plan    string
	}{
		{"evt_c", "checkout.session.completed", 0, map[string]any{"id": co.SessionID, "object": "checkout.session", "mode": "subscription", "payment_status": "paid",
			"subscription": "sub_1", "client_reference_id": acct, "metadata": map[string]string{"account_id": acct, "plan": "pro"}}, "pro"},
		{"evt_up", "customer.subscription.updated", 10 * time.Second, subscription("sub_1", acct, "price_business", "active"), "business"},
		// Out of order: an update made before the upgrade arrives after it.
		{"evt_late", "customer.subscription.updated", 5 * time.Second, subscription("sub_1", acct, "price_basic", "active"), "business"},
		{"evt_renew", "invoice.paid", 20 * time.Second, map[string]any{"id": "in_1", "object": "invoice", "subscription": "sub_1"}, "business"},
		{"evt_retry", "customer.subscription.updated", 30 * time.Second, subscription("sub_1", acct, "price_business", "past_due"), "business"},
		{"evt_end", "customer.subscription.deleted", 40 * time.Second, subscription("sub_1", acct, "price_business", "canceled"), ""},
	}
	for _, s := range steps {
		if code := e.send(t, event(s.id, s.typ, t0.Add(s.at), s.obj), whsec, t0); code != 200 {
			t.Fatalf("%s: %d", s.id, code)
		}
		if got := plan(); got != s.plan {
			t.Fatalf("after %s: plan %q, want %q", s.id, got, s.plan)
		}
	}
	// Replaying the upgrade after the cancellation changes nothing.
	if code := e.send(t, event("evt_up", "customer.subscription.updated", t0.Add(10*time.Second), subscription("sub_1", acct, "price_business", "active")), whsec, t0); code != 200 || plan() != "" {
		t.Fatalf("replayed upgrade: %d, plan %q", code, plan())
	}
}

// A delivery captured more than the tolerance ago, replayed with a fresh t=
// added before or after the original one: the signature covers the old
// timestamp, so the header is refused and the plan stays as it was.
func TestStripeWebhookRefusesSeveralTimestamps(t *testing.T) {
	e := newStripeEnv(t)
	acct := fmt.Sprint(e.account.ID)
	now := e.clock.Now()
	captured := now.Add(-10 * time.Minute)
	payload := event("evt_replayed", "customer.subscription.updated", captured, subscription("sub_r", acct, "price_business", "active"))
	signed := webhook.GenerateTestSignedPayload(&webhook.UnsignedPayload{Payload: payload, Secret: whsec, Timestamp: captured})
	fresh := fmt.Sprintf("t=%d", now.Unix())
	for name, header := range map[string]string{
		"fresh t= prepended":  fresh + "," + signed.Header,
		"fresh t= appended":   signed.Header + "," + fresh,
		"spaced t= prepended": " " + fresh + "," + signed.Header,
	} {
		if code, msg := e.post(t, payload, header); code != http.StatusBadRequest {
			t.Errorf("%s: %d %q, want 400", name, code, msg)
		}
	}
	if a, _ := e.store.AccountByID(context.Background(), e.account.ID); a.Plan != "" {
		t.Fatalf("a replayed event changed the plan to %q", a.Plan)
	}
	// The same event freshly signed is applied: the refusals above were for
	// the header, not the event.
	again := webhook.GenerateTestSignedPayload(&webhook.UnsignedPayload{Payload: payload, Secret: whsec, Timestamp: now})
	if code, msg := e.post(t, payload, again.Header); code != http.StatusOK {
		t.Fatalf("freshly signed: %d %q", code, msg)
	}
	if a, _ := e.store.AccountByID(context.Background(), e.account.ID); a.Plan != "business" {
		t.Fatalf("plan %q after a valid delivery, want business", a.Plan)
	}
}
