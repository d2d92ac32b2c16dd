package dashboard_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

func TestTopUpThroughLocalCheckout(t *testing.T) {
	e := newEnv(t)
	b := e.browser(t)
	b.signUp("buyer@example.com")
	p := b.get("/dashboard/billing")
	if p.status != 200 || !strings.Contains(p.body, "<strong>without a plan</strong>") || !strings.Contains(p.body, "1,000 credits for 5.00 USD") ||
		strings.Contains(p.body, "Subscribe to") || !strings.Contains(p.body, "set by the operator") {
		t.Fatalf("billing page: %d %s", p.status, p.body)
	}
	for _, bad := range []struct{ in, msg string }{
		{"lots", "must be a whole number between 100 and 10000"},
		{"50", "must be between 100 and 10000"},
	} {
		p := b.post("/dashboard/billing/topup", url.Values{"credits": {bad.in}})
		if p.status != http.StatusUnprocessableEntity || !strings.Contains(p.body, `id="credits-error">The credits field `+bad.msg) || !strings.Contains(p.body, `value="`+bad.in+`"`) {
			t.Fatalf("%q: %d %s", bad.in, p.status, p.body)
		}
	}
	p = b.post("/dashboard/billing/topup", url.Values{"credits": {"1,500"}})
	loc := p.header.Get("Location")
	if p.status != http.StatusSeeOther || !strings.HasPrefix(loc, e.srv.URL+"/checkout/cs_local_") {
		t.Fatalf("top-up: %d %q", p.status, loc)
	}
	// The local checkout page's Pay button.
	res, err := http.Post(loc+"/pay", "application/x-www-form-urlencoded", nil)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	acct, _ := e.store.AccountByEmail(context.Background(), "buyer@example.com")
	if st, _ := e.api.Credits.Status(context.Background(), acct.ID); st.Balance != 1500 {
		t.Fatalf("balance %d, want 1500", st.Balance)
	}
	if p := b.get("/dashboard/usage"); !strings.Contains(p.body, "You have <strong>1,500 credits</strong>") || !strings.Contains(p.body, "+1,500") {
		t.Fatalf("usage after the top-up: %s", p.body)
	}
}

func TestSubscribeWithoutPlanSales(t *testing.T) {
	e := newEnv(t)
	b := e.browser(t)
	b.signUp("sub@example.com")
	p := b.post("/dashboard/billing/subscribe", url.Values{"plan": {"pro"}})
	if p.status != http.StatusServiceUnavailable || !strings.Contains(p.body, "Plans are not sold online on this server") {
		t.Fatalf("subscribe: %d %s", p.status, p.body)
	}
	p = b.post("/dashboard/billing/subscribe", url.Values{"plan": {"gold"}})
	if p.status != http.StatusUnprocessableEntity || !strings.Contains(p.body, `role="alert">The plan must be one of: basic, pro, business.`) {
		t.Fatalf("unknown plan: %d %s", p.status, p.body)
	}
}
