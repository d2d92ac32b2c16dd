package dashboard_test

import (
	"context"
	"encoding/csv"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/trawlhq/trawl/core/credits"
	"github.com/trawlhq/trawl/ports"
)

// TestFrontPageAndFavicon: GET / leads to the dashboard and the API
// reference, and a favicon is served, through the API's router.
func TestFrontPageAndFavicon(t *testing.T) {
	e := newEnv(t)
	b := e.browser(t)
	p := b.get("/")
	if p.status != 200 || !strings.Contains(p.body, `href="/dashboard/"`) || !strings.Contains(p.body, `href="/docs"`) || !strings.Contains(p.body, `rel="icon"`) {
		t.Fatalf("front page: %d %s", p.status, p.body)
	}
	p = b.get("/favicon.ico")
	if p.status != 200 || !strings.HasPrefix(p.body, "\x00\x00\x01\x00") || !strings.HasPrefix(p.header.Get("Content-Type"), "image/") {
		t.Fatalf("favicon: %d %v", p.status, p.header)
	}
	if p := b.get("/no-such-page"); p.status != http.StatusNotFound {
		t.Fatalf("another path: %d", p.status)
	}
}

// TestEndedSessionLandsOnSignInWithNotice: a browser whose session expired
// or was signed out elsewhere is sent to sign in and told why.
func TestEndedSessionLandsOnSignInWithNotice(t *testing.T) {
	e := newEnv(t)
	b := e.browser(t)
	b.signUp("ended@example.com")
	e.clock.Advance(15 * 24 * time.Hour)
	p := b.get("/dashboard/usage")
	if p.status != http.StatusSeeOther || p.header.Get("Location") != "/dashboard/signin?expired=1" {
		t.Fatalf("expired session: %d %v", p.status, p.header)
	}
	if p := b.get("/dashboard/signin?expired=1"); !strings.Contains(p.body, `class="notice" role="status">Your session has ended`) {
		t.Fatalf("sign-in page: %s", p.body)
	}
	// Signed out by a password change in another browser.
	b.signIn("ended@example.com", "a long passphrase")
	other := e.browser(t)
	other.posted("/dashboard/forgot", url.Values{"email": {"ended@example.com"}}, "/dashboard/forgot?sent=1")
	other.posted("/dashboard/reset", url.Values{"token": {e.mail.lastToken(t)}, "password": {"a newer passphrase"}, "password_confirmation": {"a newer passphrase"}}, "/dashboard/signin?reset=1")
	if p := b.get("/dashboard/"); p.status != http.StatusSeeOther || p.header.Get("Location") != "/dashboard/signin?expired=1" {
		t.Fatalf("signed out elsewhere: %d %v", p.status, p.header)
	}
	// A browser that never signed in gets the plain sign-in page.
	if p := e.browser(t).get("/dashboard/tokens"); p.header.Get("Location") != "/dashboard/signin" {
		t.Fatalf("never signed in: %v", p.header)
	}
}

// TestTopUpWithoutPlanIsToldFirst: an account without a plan reads, on the
// billing page and on the checkout page before paying, that top-up credits
// wait for a plan; an account with one does not.
func TestTopUpWithoutPlanIsToldFirst(t *testing.T) {
	e := newEnv(t)
	b := e.browser(t)
	b.signUp("noplan-buyer@example.com")
	if p := b.get("/dashboard/billing"); !strings.Contains(p.body, credits.TopUpNeedsPlan) {
		t.Fatalf("billing page without a plan: %s", p.body)
	}
	loc := b.post("/dashboard/billing/topup", url.Values{"credits": {"1000"}}).header.Get("Location")
	p := b.get(strings.TrimPrefix(loc, e.srv.URL))
	if p.status != 200 || !strings.Contains(p.body, credits.TopUpNeedsPlan) || !strings.Contains(p.body, `href="/dashboard/static/dashboard.css"`) ||
		!strings.Contains(p.body, `href="/dashboard/billing?purchase=cancelled"`) {
		t.Fatalf("checkout page: %d %s", p.status, p.body)
	}
	acct, _ := e.store.AccountByEmail(context.Background(), "noplan-buyer@example.com")
	if err := e.api.Credits.SetPlan(context.Background(), acct.ID, "basic"); err != nil {
		t.Fatal(err)
	}
	if p := b.get("/dashboard/billing"); strings.Contains(p.body, credits.TopUpNeedsPlan) {
		t.Fatal("the billing page warns an account that has a plan")
	}
	if p := b.get(strings.TrimPrefix(loc, e.srv.URL)); strings.Contains(p.body, credits.TopUpNeedsPlan) {
		t.Fatal("the checkout page warns an account that has a plan")
	}
	// Paid: the page leads back to the dashboard.
	if p := b.posted(strings.TrimPrefix(loc, e.srv.URL)+"/pay", nil, strings.TrimPrefix(loc, e.srv.URL)); !strings.Contains(p.body, "Payment complete") || !strings.Contains(p.body, `href="/dashboard/usage"`) {
		t.Fatalf("after paying: %s", p.body)
	}
}

// TestUsageTableAndCSVAgree: a charge and a top-up carry the same sign in
// the table and in the export, counts carry thousands separators, and a
// long URL may break only after its slashes and before its query.
func TestUsageTableAndCSVAgree(t *testing.T) {
	e := newEnv(t)
	b := e.browser(t)
	b.signUp("agree@example.com")
	acct, _ := e.store.AccountByEmail(context.Background(), "agree@example.com")
	now := e.clock.Now()
	long := "https://example.com/a-very-long-path/with/many/segments?query=value&other=1"
	e.charge(t, acct.ID, now, "Scrape", 2, ports.TransactionMetadata{URL: long})
	e.charge(t, acct.ID, now.Add(time.Minute), "Credit Top-up", -1500, ports.TransactionMetadata{})
	for i := range 1100 {
		e.charge(t, acct.ID, now.Add(2*time.Minute+time.Duration(i)*time.Millisecond), "Scrape", 1, ports.TransactionMetadata{})
	}
	p := b.get("/dashboard/usage?page=45")
	for _, want := range []string{"(1,102 transactions)", "−2", "+1,500",
		`<code class="url">https://<wbr>example.com/<wbr>a-<wbr>very-<wbr>long-<wbr>path/<wbr>with/<wbr>many/<wbr>segments<wbr>?query<wbr>=value<wbr>&amp;other<wbr>=1</code>`} {
		if !strings.Contains(p.body, want) {
			t.Errorf("usage page lacks %q", want)
		}
	}
	rows, err := csv.NewReader(strings.NewReader(b.get("/dashboard/usage/transactions.csv").body)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range rows[1:] {
		if r[3] != "Scrape" || r[6] != "" {
			got[r[3]+" "+r[6]] = r[4]
		}
	}
	if got["Scrape "+long] != "-2" || got["Credit Top-up "] != "1500" {
		t.Fatalf("CSV credits: %v", got)
	}
}

// TestStrangersCannotLockOutTheOwner: the owner's browser signed in before;
// strangers then spend the account's budget of failures. The owner still
// signs in from that browser, while strangers wait. Successful sign-ins
// are never counted.
func TestStrangersCannotLockOutTheOwner(t *testing.T) {
	e := newEnv(t)
	owner := e.browser(t)
	owner.signUp("owner@example.com")
	for range 12 {
		owner.signIn("owner@example.com", "a long passphrase")
	}
	for i := range 30 {
		stranger := e.browser(t)
		p := stranger.post("/dashboard/signin", url.Values{"email": {"owner@example.com"}, "password": {"guess " + strconv.Itoa(i)}})
		if p.status != http.StatusUnprocessableEntity && p.status != http.StatusTooManyRequests {
			t.Fatalf("guess %d: %d", i, p.status)
		}
	}
	stranger := e.browser(t)
	if p := stranger.post("/dashboard/signin", url.Values{"email": {"owner@example.com"}, "password": {"a long passphrase"}}); p.status != http.StatusTooManyRequests {
		t.Fatalf("a stranger after the guesses: %d", p.status)
	}
	owner.posted("/dashboard/signout", nil, "/dashboard/signin?signedout=1")
	owner.signIn("owner@example.com", "a long passphrase")
	// The device cookie goes only to the sign-in form.
	u, _ := url.Parse(e.srv.URL + "/dashboard/signin")
	found := false
	for _, c := range owner.jar.Cookies(u) {
		found = found || c.Name == "trawl_device"
	}
	tokensURL, _ := url.Parse(e.srv.URL + "/dashboard/tokens")
	for _, c := range owner.jar.Cookies(tokensURL) {
		if c.Name == "trawl_device" {
			t.Fatal("the device cookie is sent beyond the sign-in form")
		}
	}
	if !found {
		t.Fatal("no device cookie")
	}
}

// TestSignUpWithRegisteredEmailLooksTheSame: the answer does not say the
// address has an account; its owner is told by email.
func TestSignUpWithRegisteredEmailLooksTheSame(t *testing.T) {
	e := newEnv(t)
	e.browser(t).signUp("known@example.com")
	before := len(e.mail.mail)
	fresh := e.browser(t).post("/dashboard/signup", url.Values{"email": {"unknown@example.com"}, "password": {"a long passphrase"}, "password_confirmation": {"a long passphrase"}})
	taken := e.browser(t).post("/dashboard/signup", url.Values{"email": {"known@example.com"}, "password": {"a long passphrase"}, "password_confirmation": {"a long passphrase"}})
	if taken.status != fresh.status || taken.header.Get("Location") != fresh.header.Get("Location") || taken.body != fresh.body {
		t.Fatalf("answers differ: %d %q / %d %q", fresh.status, fresh.header.Get("Location"), taken.status, taken.header.Get("Location"))
	}
	e.mail.mu.Lock()
	defer e.mail.mu.Unlock()
	if len(e.mail.mail) != before+2 || e.mail.mail[len(e.mail.mail)-1].To != "known@example.com" || !strings.Contains(e.mail.mail[len(e.mail.mail)-1].Subject, "tried to sign up") {
		t.Fatalf("mails: %+v", e.mail.mail[before:])
	}
}
