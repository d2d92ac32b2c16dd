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
		!strings.Contains(p.body, "Subscribe to Basic") {
		t.Fatalf("billing page: %d %s", p.status, p.body)
	}
	for _, bad := range []struct{ in, msg string }{
		{"lots", "must be a whole number between 100 and 10,000"},
		{"50", "must be between 100 and 10,000"},
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

func TestSubscribeThroughLocalCheckout(t *testing.T) {
	e := newEnv(t)
	b := e.browser(t)
	b.signUp("sub@example.com")
	acct, _ := e.store.AccountByEmail(context.Background(), "sub@example.com")
	p := b.get("/dashboard/billing")
	if !strings.Contains(p.body, "Subscribe to Pro") || strings.Contains(p.body, "set by the operator") {
		t.Fatalf("billing page: %s", p.body)
	}
	p = b.post("/dashboard/billing/subscribe", url.Values{"plan": {"gold"}})
	if p.status != http.StatusUnprocessableEntity || !strings.Contains(p.body, `role="alert">The plan must be one of: basic, pro, business.`) {
		t.Fatalf("unknown plan: %d %s", p.status, p.body)
	}
	p = b.post("/dashboard/billing/subscribe", url.Values{"plan": {"pro"}})
	loc := p.header.Get("Location")
	if p.status != http.StatusSeeOther || !strings.HasPrefix(loc, e.srv.URL+"/dashboard/checkout/plan/pcs_local_") {
		t.Fatalf("subscribe: %d %q", p.status, loc)
	}
	path := strings.TrimPrefix(loc, e.srv.URL)
	if a, _ := e.store.AccountByID(context.Background(), acct.ID); a.Plan != "" {
		t.Fatal("the plan started before paying")
	}
	// Another account cannot see or pay this checkout.
	other := e.browser(t)
	other.signUp("other-sub@example.com")
	if p := other.get(path); p.status != http.StatusNotFound {
		t.Fatalf("another account's checkout: %d", p.status)
	}
	if p := other.post(path+"/pay", nil); p.status != http.StatusNotFound {
		t.Fatalf("another account paid: %d", p.status)
	}
	if p := b.get(path); p.status != 200 || !strings.Contains(p.body, "Subscribe to Pro") {
		t.Fatalf("checkout page: %d %s", p.status, p.body)
	}
	if p := b.post(path+"/pay", nil); p.status != http.StatusSeeOther || p.header.Get("Location") != "/dashboard/billing?subscribed=1" {
		t.Fatalf("pay: %d %v", p.status, p.header)
	}
	if p := b.get("/dashboard/billing?subscribed=1"); !strings.Contains(p.body, "You are on the Pro plan.") {
		t.Fatalf("after paying: %s", p.body)
	}
	// With the plan, the token cap is Pro's and billed calls pass the plan check.
	if p := b.get("/dashboard/tokens"); !strings.Contains(p.body, "0 of 3 active tokens allowed on the Pro plan") {
		t.Fatalf("tokens after subscribing: %s", p.body)
	}
	if p := b.post(path+"/pay", nil); p.status != http.StatusSeeOther {
		t.Fatalf("paying twice: %d", p.status)
	}
	if a, _ := e.store.AccountByID(context.Background(), acct.ID); a.Plan != "pro" {
		t.Fatalf("plan %q", a.Plan)
	}
}
