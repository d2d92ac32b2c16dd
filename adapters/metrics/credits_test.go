package metrics_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/trawlhq/trawl/adapters/fetch"
	"github.com/trawlhq/trawl/adapters/metrics"
	"github.com/trawlhq/trawl/adapters/smtpmail"
	"github.com/trawlhq/trawl/adapters/webhook"
	"github.com/trawlhq/trawl/core/billing"
	"github.com/trawlhq/trawl/core/credits"
	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/ports"
	"github.com/trawlhq/trawl/testkit"
	"github.com/trawlhq/trawl/testkit/memstore"
)

func want(t *testing.T, out, prefix string, lines ...string) {
	t.Helper()
	for _, l := range lines {
		if !strings.Contains(out, l+"\n") {
			t.Errorf("no %s in:\n%s", l, grep(out, prefix))
		}
	}
}

// TestCreditsByService runs billed calls and a bulk-style hold through the
// real ledger over the in-memory store, and reads what was charged and
// given back.
func TestCreditsByService(t *testing.T) {
	m := metrics.New()
	ctx := context.Background()
	store := memstore.New()
	clk := testkit.NewClock(time.Date(2026, 6, 15, 12, 0, 0, 0, time.UTC))
	acct, err := store.CreateAccount(ctx, ports.Account{Name: "M", Email: "m@example.com", Plan: "business"})
	if err != nil {
		t.Fatal(err)
	}
	core, err := credits.NewLedger(store, clk)
	if err != nil {
		t.Fatal(err)
	}
	ledger := m.Ledger(core)
	biller, err := credits.NewBiller(ledger, store, clk, billing.DefaultPlans())
	if err != nil {
		t.Fatal(err)
	}
	p := ports.Principal{Account: acct.Caller()}
	ok := func(n int64) credits.Work {
		return func(context.Context) (int64, ports.TransactionMetadata, error) {
			return n, ports.TransactionMetadata{}, nil
		}
	}
	fail := func(context.Context) (int64, ports.TransactionMetadata, error) {
		return 0, ports.TransactionMetadata{}, failure.E("fetch", failure.Unavailable, "down", errors.New("dial"))
	}
	for _, c := range []struct {
		svc  billing.ServiceType
		max  int64
		work credits.Work
	}{
		{billing.Content, 0, ok(2)}, {billing.Content, 0, ok(2)}, {billing.Content, 0, fail},
		{billing.SerpContent, 25, ok(9)}, // 16 of the 25 held come back
		{billing.Prompt, 0, fail},
	} {
		_, _ = biller.Run(ctx, credits.Call{Principal: p, Service: c.svc, MaxCredits: c.max}, c.work)
	}
	// A bulk job: a hold of 3 URLs, one charged, one failed, the last never
	// processed and freed with the hold.
	bctx := credits.WithService(ctx, billing.BulkContent)
	h, err := ledger.Reserve(bctx, ports.ReserveRequest{AccountID: acct.ID, Amount: 6})
	if err != nil {
		t.Fatal(err)
	}
	if _, charged, err := ledger.ChargeHold(bctx, h, ports.Charge{Credits: 2, ServiceType: string(billing.BulkContent), ServiceName: "Bulk"}, "job:0"); err != nil || !charged {
		t.Fatal(charged, err)
	}
	if _, charged, _ := ledger.ChargeHold(bctx, h, ports.Charge{Credits: 2, ServiceType: string(billing.BulkContent), ServiceName: "Bulk"}, "job:0"); charged {
		t.Fatal("a repeated key charged twice")
	}
	if err := ledger.ReleasePart(bctx, h, 2); err != nil {
		t.Fatal(err)
	}
	if err := ledger.Release(bctx, h); err != nil {
		t.Fatal(err)
	}
	out := scrape(t, m)
	want(t, out, "trawl_credits",
		`trawl_credits_charged_total{service="content"} 4`,
		`trawl_credits_released_total{service="content"} 2`,
		`trawl_credits_charged_total{service="serp_content"} 9`,
		`trawl_credits_released_total{service="serp_content"} 16`,
		`trawl_credits_released_total{service="prompt"} 10`,
		`trawl_credits_charged_total{service="bulk_content"} 2`,
		`trawl_credits_released_total{service="bulk_content"} 4`,
	)
	st, held, _ := store.ReadCredits(ctx, acct.ID, clk.Now())
	if held != 0 || st.Used != 15 {
		t.Errorf("the ledger itself: used %d, held %d", st.Used, held)
	}
}

func TestOpenHolds(t *testing.T) {
	m := metrics.New()
	var fail bool
	m.Holds(func(context.Context, time.Time) (int, int64, error) {
		if fail {
			return 0, 0, errors.New("database down")
		}
		return 3, 42, nil
	}, time.Now)
	want(t, scrape(t, m), "trawl_credit_holds", "trawl_credit_holds_open 3", "trawl_credit_holds_open_credits 42", "trawl_credit_holds_scrape_ok 1")
	fail = true
	if out := scrape(t, m); !strings.Contains(out, "trawl_credit_holds_scrape_ok 0") || strings.Contains(out, "trawl_credit_holds_open ") {
		t.Errorf("a failed read:\n%s", grep(out, "trawl_credit_holds"))
	}
}

type renderFunc func(context.Context, ports.RenderRequest) (ports.RenderResponse, error)

func (f renderFunc) Render(ctx context.Context, r ports.RenderRequest) (ports.RenderResponse, error) {
	return f(ctx, r)
}

func TestRendersAndBrowser(t *testing.T) {
	m := metrics.New()
	if m.Renderer(nil) != nil {
		t.Error("no browser became a renderer")
	}
	r := m.Renderer(renderFunc(func(_ context.Context, req ports.RenderRequest) (ports.RenderResponse, error) {
		if strings.Contains(req.URL.String(), "spin") {
			return ports.RenderResponse{}, &ports.RenderError{Reason: ports.RenderTimeout, Err: errors.New("budget")}
		}
		return ports.RenderResponse{StatusCode: 200}, nil
	}))
	for _, u := range []string{"https://a.test/x?token=trawl_abc", "https://spin.test/", "https://b.test/"} {
		page, _ := url.Parse(u)
		_, _ = r.Render(context.Background(), ports.RenderRequest{URL: page})
	}
	restarts := int64(0)
	m.Browser(func() int64 { return restarts }, func() int64 { return 300 << 20 })
	restarts = 3
	out := scrape(t, m)
	want(t, out, "trawl_render", `trawl_renders_total{outcome="ok"} 2`, `trawl_renders_total{outcome="unavailable"} 1`,
		`trawl_render_duration_seconds_count{outcome="ok"} 2`)
	want(t, out, "trawl_browser", "trawl_browser_restarts_total 3", "trawl_browser_resident_bytes 3.145728e+08")
	if strings.Contains(out, "a.test") || strings.Contains(out, "trawl_abc") {
		t.Error("a URL reached the metrics")
	}
}

// TestDeliveries sends webhooks and mail through the real adapters: a
// receiver that fails then accepts, a host that refuses, a mail outbox and
// an SMTP server that is not there.
func TestDeliveries(t *testing.T) {
	m := metrics.New()
	calls := 0
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls++
		if calls == 1 {
			w.WriteHeader(503)
		}
	}))
	defer recv.Close()
	closed := httptest.NewServer(http.NotFoundHandler())
	closedAddr := strings.TrimPrefix(closed.URL, "http://")
	closed.Close()
	f := fetch.New(fetch.Options{Resolve: map[string]string{
		"hooks.test:80": strings.TrimPrefix(recv.URL, "http://"), "gone.test:80": closedAddr,
	}, Timeout: 5 * time.Second})
	sender, err := webhook.New(f)
	if err != nil {
		t.Fatal(err)
	}
	hooks := m.Webhooks(sender)
	for _, u := range []string{"http://hooks.test/cb?secret=s1", "http://hooks.test/cb?secret=s1", "http://gone.test/cb"} {
		_, _ = hooks.Send(context.Background(), ports.Webhook{URL: u, Body: []byte(`{}`), Timeout: 5 * time.Second})
	}
	if err := hooks.Check(context.Background(), &url.URL{Scheme: "http", Host: "hooks.test", Path: "/cb"}); err != nil {
		t.Errorf("Check did not reach the sender: %v", err)
	}
	outbox, err := smtpmail.NewOutbox(filepath.Join(t.TempDir(), "outbox"))
	if err != nil {
		t.Fatal(err)
	}
	nowhere, err := smtpmail.NewSMTP("smtp://" + closedAddr)
	if err != nil {
		t.Fatal(err)
	}
	msg := ports.Mail{From: "no-reply@trawl.test", To: "owner@example.com", Subject: "Results", Text: "done"}
	if err := m.Mailer(outbox).Send(context.Background(), msg); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := m.Mailer(nowhere).Send(ctx, msg); err == nil {
		t.Fatal("a mail to no server was sent")
	}
	out := scrape(t, m)
	want(t, out, "trawl_webhook", `trawl_webhook_attempts_total{outcome="5xx"} 1`, `trawl_webhook_attempts_total{outcome="2xx"} 1`,
		`trawl_webhook_attempts_total{outcome="refused"} 1`)
	want(t, out, "trawl_mail", `trawl_mail_attempts_total{outcome="ok"} 1`, `trawl_mail_attempts_total{outcome="refused"} 1`)
	for _, leak := range []string{"hooks.test", "secret", "example.com"} {
		if strings.Contains(out, leak) {
			t.Errorf("%q reached the metrics", leak)
		}
	}
}
