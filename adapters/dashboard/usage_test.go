package dashboard_test

import (
	"context"
	"encoding/csv"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/trawlhq/trawl/core/bulk"
	"github.com/trawlhq/trawl/ports"
)

func (e *env) charge(t *testing.T, accountID int64, at time.Time, service string, credits int64, meta ports.TransactionMetadata) {
	t.Helper()
	err := e.store.WithCredits(context.Background(), accountID, func(tx ports.LedgerTx) error {
		_, err := tx.AddTransaction(ports.Transaction{AccountID: accountID, ServiceType: strings.ToLower(service), ServiceName: service, Credits: credits, BalanceAfter: 100, CreatedAt: at, Metadata: meta})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestUsagePage(t *testing.T) {
	e := newEnv(t)
	b := e.browser(t)
	b.signUp("usage@example.com")
	acct, _ := e.store.AccountByEmail(context.Background(), "usage@example.com")
	if err := e.api.Credits.SetPlan(context.Background(), acct.ID, "pro"); err != nil {
		t.Fatal(err)
	}
	now := e.clock.Now()
	for i := range 28 {
		e.charge(t, acct.ID, now.Add(time.Duration(i)*time.Minute), "Scrape", 5, ports.TransactionMetadata{URL: "https://example.com/" + string(rune('a'+i%26))})
	}
	e.charge(t, acct.ID, now.Add(time.Hour), "Search", 40, ports.TransactionMetadata{Query: "golang"})
	e.charge(t, acct.ID, now.Add(2*time.Hour), "Credit Top-up", -1000, ports.TransactionMetadata{})
	e.clock.Advance(3 * time.Hour)

	p := b.get("/dashboard/usage")
	if p.status != 200 {
		t.Fatalf("usage: %d %s", p.status, p.body)
	}
	for _, want := range []string{
		"You have <strong>20,000 credits</strong>", "the <strong>Pro</strong> plan: 20,000 credits a month",
		"Your allowance renews on 2026-07-15 12:00 UTC", "You are warned when your balance falls below 4,000 credits",
		`role="img"`, "180 credits used from Jun 15 to Jun 15, 2026: Scrape 140, Search 40.",
		"<title>Jun 15, Scrape: 140 credits</title>", "Page 1 of 2 (30 transactions)", `href="/dashboard/usage?page=2#transactions"`,
		"+1,000", "−40", "“golang”",
	} {
		if !strings.Contains(p.body, want) {
			t.Errorf("usage page lacks %q", want)
		}
	}
	if t.Failed() {
		t.Log(p.body)
	}
	if p := b.get("/dashboard/usage?page=2"); !strings.Contains(p.body, "Page 2 of 2") || !strings.Contains(p.body, `rel="prev"`) {
		t.Fatalf("page 2: %s", p.body)
	}
	if p := b.get("/dashboard/usage?page=zero"); p.status != http.StatusUnprocessableEntity {
		t.Fatalf("bad page: %d", p.status)
	}
}

func TestUsageWithoutPlan(t *testing.T) {
	e := newEnv(t)
	b := e.browser(t)
	b.signUp("noplan@example.com")
	p := b.get("/dashboard/usage")
	for _, want := range []string{"You have <strong>0 credits</strong>", "You have no plan", "No credits used in this period yet.", "No transactions yet."} {
		if !strings.Contains(p.body, want) {
			t.Errorf("lacks %q", want)
		}
	}
}

func TestTransactionsCSV(t *testing.T) {
	e := newEnv(t)
	b := e.browser(t)
	b.signUp("csv@example.com")
	acct, _ := e.store.AccountByEmail(context.Background(), "csv@example.com")
	now := e.clock.Now()
	for i := range 130 {
		e.charge(t, acct.ID, now.Add(time.Duration(i)*time.Second), "Scrape", 1, ports.TransactionMetadata{URL: "https://example.com/p"})
	}
	e.charge(t, acct.ID, now.Add(time.Hour), "Search", 2, ports.TransactionMetadata{Query: "=HYPERLINK(\"http://evil.example\")", RequestID: "req_1"})
	other := e.browser(t)
	other.signUp("other-csv@example.com")
	p := b.get("/dashboard/usage/transactions.csv")
	if p.status != 200 || !strings.HasPrefix(p.header.Get("Content-Type"), "text/csv") || !strings.Contains(p.header.Get("Content-Disposition"), "attachment") {
		t.Fatalf("csv: %d %v", p.status, p.header)
	}
	rows, err := csv.NewReader(strings.NewReader(p.body)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 132 || rows[0][0] != "id" || rows[1][3] != "Search" || rows[1][4] != "-2" || rows[1][7] != "'=HYPERLINK(\"http://evil.example\")" || rows[1][9] != "req_1" {
		t.Fatalf("%d rows; first two %v", len(rows), rows[:2])
	}
	if p := other.get("/dashboard/usage/transactions.csv"); strings.Count(p.body, "\n") != 1 {
		t.Fatalf("another account's export: %q", p.body)
	}
}

func TestJobsPages(t *testing.T) {
	e := newEnv(t)
	alice, bob := e.browser(t), e.browser(t)
	alice.signUp("alice-jobs@example.com")
	bob.signUp("bob-jobs@example.com")
	ctx := context.Background()
	a, _ := e.store.AccountByEmail(ctx, "alice-jobs@example.com")
	bb, _ := e.store.AccountByEmail(ctx, "bob-jobs@example.com")
	now := e.clock.Now()
	mk := func(id string, acct int64, n int) {
		urls := make([]string, n)
		for i := range urls {
			urls[i] = "https://example.com/" + id + "/" + string(rune('a'+i))
		}
		if err := e.store.CreateJob(ctx, ports.BulkJob{ID: id, AccountID: acct, Status: ports.JobQueued, URLSource: "urls", CallbackURL: "https://hooks.example/x", URLsCount: n, QueuedAt: now}, urls); err != nil {
			t.Fatal(err)
		}
	}
	mk("job_alice", a.ID, 3)
	mk("job_bob", bb.ID, 1)
	done := now.Add(time.Minute)
	_ = e.store.FinishURL(ctx, ports.BulkURL{JobID: "job_alice", Index: 0, Status: ports.URLSucceeded, StatusCode: 200, FinishedAt: &done})
	_ = e.store.RecordDelivery(ctx, ports.DeliveryAttempt{JobID: "job_alice", Channel: "webhook", Attempt: 1, Target: "https://hooks.example/x", StatusCode: 503, At: done})

	p := alice.get("/dashboard/jobs")
	if p.status != 200 || !strings.Contains(p.body, "job_alice") || strings.Contains(p.body, "job_bob") ||
		!strings.Contains(p.body, "1 succeeded, 0 failed, 2 to go, of 3") || !strings.Contains(p.body, "1 attempt<") {
		t.Fatalf("jobs: %d %s", p.status, p.body)
	}
	p = alice.get("/dashboard/jobs/job_alice")
	if p.status != 200 || !strings.Contains(p.body, "HTTP 503") || !strings.Contains(p.body, `webhook to <code class="url">https://<wbr>hooks.example/<wbr>x</code>`) {
		t.Fatalf("job: %d %s", p.status, p.body)
	}
	// A job of another account and an id no job can have read alike, in
	// the words core gives every caller.
	for _, path := range []string{"/dashboard/jobs/job_bob", "/dashboard/jobs/no%20such%20job"} {
		if p := alice.get(path); p.status != http.StatusNotFound || strings.Contains(p.body, "job_bob") || !strings.Contains(p.body, bulk.MsgJobNotFound) {
			t.Fatalf("%s: %d %s", path, p.status, p.body)
		}
	}
	if p := bob.get("/dashboard/jobs"); strings.Contains(p.body, "job_alice") {
		t.Fatal("bob sees alice's job")
	}
}

var whsecRE = regexp.MustCompile(`value="(whsec_[0-9a-f]+)"`)

func TestWebhookSecretShowAndRotate(t *testing.T) {
	e := newEnv(t)
	b := e.browser(t)
	b.signUp("hooks@example.com")
	acct, _ := e.store.AccountByEmail(context.Background(), "hooks@example.com")
	if p := b.get("/dashboard/webhooks"); p.status != 200 || strings.Contains(p.body, "whsec_") {
		t.Fatalf("the page shows a secret before it is asked for: %d", p.status)
	}
	p := b.posted("/dashboard/webhooks/secret", nil, "/dashboard/webhooks?show=1")
	m := whsecRE.FindStringSubmatch(p.body)
	if p.status != 200 || m == nil {
		t.Fatalf("show: %d %s", p.status, p.body)
	}
	first := m[1]
	if again := whsecRE.FindStringSubmatch(b.posted("/dashboard/webhooks/secret", nil, "/dashboard/webhooks?show=1").body); again == nil || again[1] != first {
		t.Fatal("showing twice changed the secret")
	}
	if p := b.post("/dashboard/webhooks/rotate", nil, "Sec-Fetch-Site", "cross-site", "Origin", "https://evil.example"); p.status != http.StatusForbidden {
		t.Fatalf("cross-site rotate: %d", p.status)
	}
	p = b.posted("/dashboard/webhooks/rotate", nil, "/dashboard/webhooks?rotated=1")
	m = whsecRE.FindStringSubmatch(p.body)
	if p.status != 200 || m == nil || m[1] == first || !strings.Contains(p.body, "The signing secret was replaced") {
		t.Fatalf("rotate: %d %s", p.status, p.body)
	}
	if used, _ := e.store.WebhookSecret(context.Background(), acct.ID, bulk.NewWebhookSecret); used != m[1] {
		t.Fatal("deliveries would not use the rotated secret")
	}
}
