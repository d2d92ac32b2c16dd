package dashboard_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/trawlhq/trawl/core/monitor"
)

// TestMonitorsPage: the list shows each monitor's state, next check and
// last check; pause, resume and delete work from it, for the account's
// own monitors only.
func TestMonitorsPage(t *testing.T) {
	e := newEnv(t)
	alice, bob := e.browser(t), e.browser(t)
	alice.signUp("alice-mon@example.com")
	bob.signUp("bob-mon@example.com")
	ctx := context.Background()
	a, _ := e.store.AccountByEmail(ctx, "alice-mon@example.com")
	bb, _ := e.store.AccountByEmail(ctx, "bob-mon@example.com")
	mk := func(acct int64, r monitor.Request) string {
		t.Helper()
		m, err := e.api.Services.Monitors.Create(ctx, acct, r)
		if err != nil {
			t.Fatal(err)
		}
		return m.ID
	}
	pricing := mk(a.ID, monitor.Request{Name: "Competitor pricing", URLs: []string{"https://example.com/pricing", "https://example.com/plans"}, Schedule: "*/15 * * * *", Email: true})
	docs := mk(a.ID, monitor.Request{Name: "Docs", URLs: []string{"https://example.com/docs"}, Schedule: "@daily", Email: true})
	theirs := mk(bb.ID, monitor.Request{Name: "Bob's", URLs: []string{"https://example.com/bob"}, Schedule: "@daily", Email: true})
	// The 12:15 check of the pricing monitor is taken (and queued: no worker here).
	e.clock.Advance(15 * time.Minute)
	if n, err := e.api.Services.Scheduler.Tick(ctx); err != nil || n != 1 {
		t.Fatalf("tick: %d %v", n, err)
	}

	p := alice.get("/dashboard/monitors")
	for _, want := range []string{"Competitor pricing", pricing, docs, "2 pages", "<code>*/15 * * * *</code>", `<span class="state active">active</span>`,
		"2026-06-15 12:30 UTC", "2026-06-15 12:15 UTC: <span class=\"state queued\">queued</span>", "none yet",
		`action="/dashboard/monitors/` + pricing + `/pause"`, `href="/dashboard/monitors/` + docs + `/delete"`, `aria-current="page">Monitors`} {
		if !strings.Contains(p.body, want) {
			t.Errorf("monitors page lacks %q", want)
		}
	}
	if p.status != 200 || strings.Contains(p.body, theirs) || strings.Contains(p.body, "Bob&#39;s") {
		t.Fatalf("monitors: %d %s", p.status, p.body)
	}

	p = alice.posted("/dashboard/monitors/"+pricing+"/pause", url.Values{}, "/dashboard/monitors?done=paused")
	if !strings.Contains(p.body, "The monitor is paused") || !strings.Contains(p.body, `<span class="state paused">paused</span>`) ||
		!strings.Contains(p.body, monitor.ReasonPausedByOwner) || !strings.Contains(p.body, `action="/dashboard/monitors/`+pricing+`/resume"`) {
		t.Fatalf("after pause: %s", p.body)
	}
	p = alice.posted("/dashboard/monitors/"+pricing+"/resume", url.Values{}, "/dashboard/monitors?done=resumed")
	if !strings.Contains(p.body, "active again") || !strings.Contains(p.body, `action="/dashboard/monitors/`+pricing+`/pause"`) {
		t.Fatalf("after resume: %s", p.body)
	}

	p = alice.get("/dashboard/monitors/" + docs + "/delete")
	if p.status != 200 || !strings.Contains(p.body, "Delete the monitor <strong>Docs</strong>") {
		t.Fatalf("delete page: %d %s", p.status, p.body)
	}
	p = alice.posted("/dashboard/monitors/"+docs+"/delete", url.Values{}, "/dashboard/monitors?done=deleted")
	if strings.Contains(p.body, docs) || !strings.Contains(p.body, "were deleted") {
		t.Fatalf("after delete: %s", p.body)
	}

	// Another account's monitor: not found, whatever the action, and untouched.
	for _, path := range []string{"/dashboard/monitors/" + theirs + "/pause", "/dashboard/monitors/" + theirs + "/delete"} {
		if p := alice.post(path, url.Values{}); p.status != http.StatusNotFound || !strings.Contains(p.body, monitor.MsgNotFound) {
			t.Errorf("POST %s: %d %s", path, p.status, p.body)
		}
	}
	if p := alice.get("/dashboard/monitors/" + theirs + "/delete"); p.status != http.StatusNotFound {
		t.Errorf("another account's delete page: %d", p.status)
	}
	if p := bob.get("/dashboard/monitors"); !strings.Contains(p.body, theirs) || !strings.Contains(p.body, `<span class="state active">active</span>`) {
		t.Fatalf("bob's monitor after alice's attempts: %s", p.body)
	}
	// A form from another site is refused.
	if p := alice.post("/dashboard/monitors/"+pricing+"/pause", url.Values{}, "Sec-Fetch-Site", "cross-site", "Origin", "https://evil.example"); p.status != http.StatusForbidden {
		t.Errorf("cross-site pause: %d", p.status)
	}
}
