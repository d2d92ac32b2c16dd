package httpapi_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/trawlhq/trawl/core/bulk"
	"github.com/trawlhq/trawl/core/monitor"
	"github.com/trawlhq/trawl/ports"
	"github.com/trawlhq/trawl/testkit/apitest"
	"github.com/trawlhq/trawl/testkit/memstore"
	"github.com/trawlhq/trawl/testkit/sites"
)

func monitorEnv(t *testing.T, o apitest.Options) (*apitest.Env, *changingSite, *receiver) {
	t.Helper()
	rcv := newReceiver(t, 0)
	site := newChangingSite(t)
	resolve := sites.Resolve(site.Site)
	resolve[rcv.hostKey] = strings.TrimPrefix(rcv.Server.URL, "http://")
	o.Resolve = resolve
	return apitest.Start(t, memstore.New(), o), site, rcv
}

func TestMonitorValidation(t *testing.T) {
	e, site, rcv := monitorEnv(t, apitest.Options{NoWorker: true})
	_, tok := e.Account("a@example.com", "business")
	ok := func(extra map[string]any) map[string]any {
		b := map[string]any{"urls": []string{site.URL("/pricing")}, "schedule": "*/5 * * * *", "callback_url": rcv.URL()}
		for k, v := range extra {
			if v == nil {
				delete(b, k)
			} else {
				b[k] = v
			}
		}
		return b
	}
	for _, c := range []struct {
		body  map[string]any
		field string
	}{
		{ok(map[string]any{"urls": nil}), "urls"},
		{ok(map[string]any{"urls": []string{"ftp://x.test/"}}), "urls.0"},
		{ok(map[string]any{"urls": make([]string, 101)}), "urls"},
		{ok(map[string]any{"crawl": map[string]any{"url": site.URL("/")}}), "urls"},
		{ok(map[string]any{"urls": nil, "crawl": map[string]any{"url": site.URL("/"), "limit": 0}}), "crawl.limit"},
		{ok(map[string]any{"urls": nil, "crawl": "http://watch.test/"}), "crawl"},
		{ok(map[string]any{"schedule": nil}), "schedule"},
		{ok(map[string]any{"schedule": "* * * * *"}), "schedule"},
		{ok(map[string]any{"schedule": "*/4 * * * *"}), "schedule"},
		{ok(map[string]any{"schedule": "0,3 * * * *"}), "schedule"},
		{ok(map[string]any{"schedule": "every day"}), "schedule"},
		{ok(map[string]any{"schedule": "0 0 30 2 *"}), "schedule"},
		{ok(map[string]any{"callback_url": nil}), "callback_url"},
		{ok(map[string]any{"callback_url": "not a url"}), "callback_url"},
		{ok(map[string]any{"changes_only": "maybe"}), "changes_only"},
		{ok(map[string]any{"name": strings.Repeat("n", 201)}), "name"},
	} {
		res := e.Do("POST", "/v1/monitors", tok, c.body)
		if res.Status != 422 || !strings.Contains(string(res.Body), `"`+c.field+`"`) {
			t.Errorf("%v: %d %s, want 422 naming %s", c.body, res.Status, res.Body, c.field)
		}
	}
	if res := e.Do("POST", "/v1/monitors", "", ok(nil)); res.Status != 401 {
		t.Errorf("no token: %d", res.Status)
	}
	// Email alone is a place to report to.
	if res := e.Do("POST", "/v1/monitors", tok, ok(map[string]any{"callback_url": nil, "email": true})); res.Status != 201 {
		t.Errorf("email only: %d %s", res.Status, res.Body)
	}
}

func TestMonitorCRUD(t *testing.T) {
	e, site, rcv := monitorEnv(t, apitest.Options{NoWorker: true})
	acct, tok := e.Account("a@example.com", "business")
	before, _ := e.Credits.Status(context.Background(), acct.ID)
	res := e.Do("POST", "/v1/monitors", tok, map[string]any{"name": "Pricing", "urls": []string{site.URL("/pricing"), site.URL("/pricing")}, "schedule": "*/15 * * * *", "callback_url": rcv.URL()})
	m := res.JSON(t)
	if res.Status != 201 || m["status"] != "active" || m["changes_only"] != true || m["name"] != "Pricing" || m["crawl"] != nil || m["paused_reason"] != nil {
		t.Fatalf("create: %d %v", res.Status, m)
	}
	if urls, _ := m["urls"].([]any); len(urls) != 1 {
		t.Fatalf("urls are kept once each: %v", m["urls"])
	}
	// The clock is at 12:00: the first check is at 12:15.
	if m["next_run_at"] != "2026-06-15T12:15:00.000000Z" {
		t.Fatalf("next_run_at = %v", m["next_run_at"])
	}
	id := m["id"].(string)
	if after, _ := e.Credits.Status(context.Background(), acct.ID); after.Balance != before.Balance {
		t.Fatalf("creating a monitor cost %d credits", before.Balance-after.Balance)
	}
	got := e.Do("GET", "/v1/monitors/"+id, tok, nil).JSON(t)
	if checks, ok := got["checks"].([]any); !ok || len(checks) != 0 || got["id"] != id {
		t.Fatalf("get: %v", got)
	}
	list := e.Do("GET", "/v1/monitors?per_page=1", tok, nil).JSON(t)
	if list["total"] != float64(1) || len(list["data"].([]any)) != 1 {
		t.Fatalf("list: %v", list)
	}
	if r := e.Do("GET", "/v1/monitors?per_page=101", tok, nil); r.Status != 422 {
		t.Fatalf("per_page 101: %d", r.Status)
	}
	// Another account sees nothing of it.
	_, other := e.Account("b@example.com", "business")
	for _, method := range []string{"GET", "PATCH", "DELETE"} {
		if r := e.Do(method, "/v1/monitors/"+id, other, map[string]any{"status": "paused"}); r.Status != 404 {
			t.Errorf("another account's %s: %d %s", method, r.Status, r.Body)
		}
	}
	if l := e.Do("GET", "/v1/monitors", other, nil).JSON(t); l["total"] != float64(0) {
		t.Errorf("another account's list: %v", l)
	}
	// Pause, change the schedule, resume: taken up from now.
	p := e.Do("PATCH", "/v1/monitors/"+id, tok, map[string]any{"status": "paused"}).JSON(t)
	if p["status"] != "paused" || p["paused_reason"] != monitor.ReasonPausedByOwner || p["next_run_at"] != nil {
		t.Fatalf("pause: %v", p)
	}
	for _, c := range []struct {
		body  map[string]any
		field string
	}{
		{map[string]any{"schedule": "*/2 * * * *"}, "schedule"},
		{map[string]any{"status": "sleeping"}, "status"},
		{map[string]any{"callback_url": nil}, "callback_url"},
	} {
		if r := e.Do("PATCH", "/v1/monitors/"+id, tok, c.body); r.Status != 422 || !strings.Contains(string(r.Body), `"`+c.field+`"`) {
			t.Errorf("patch %v: %d %s", c.body, r.Status, r.Body)
		}
	}
	e.Clock.Advance(40 * time.Minute)
	p = e.Do("PATCH", "/v1/monitors/"+id, tok, map[string]any{"status": "active", "schedule": "0 * * * *", "changes_only": false, "name": "Prices"}).JSON(t)
	if p["status"] != "active" || p["next_run_at"] != "2026-06-15T13:00:00.000000Z" || p["changes_only"] != false || p["name"] != "Prices" || p["schedule"] != "0 * * * *" {
		t.Fatalf("resume: %v", p)
	}
	if r := e.Do("DELETE", "/v1/monitors/"+id, tok, nil); r.Status != 204 {
		t.Fatalf("delete: %d %s", r.Status, r.Body)
	}
	if r := e.Do("GET", "/v1/monitors/"+id, tok, nil); r.Status != 404 {
		t.Fatalf("deleted: %d", r.Status)
	}
}

// runDue starts the due checks as a node's scheduler tick would, and waits
// for the worker to finish every check of the monitor.
func runDue(t *testing.T, e *apitest.Env, monitorID string, want int) {
	t.Helper()
	n, err := e.Services.Scheduler.Tick(context.Background())
	if err != nil || n != want {
		t.Fatalf("tick started %d checks (%v), want %d", n, err, want)
	}
	waitChecks(t, e, monitorID)
}

// spend charges n credits of the account, as a call would.
func spend(t *testing.T, e *apitest.Env, accountID, n int64) {
	t.Helper()
	ctx := context.Background()
	h, err := e.Services.Ledger.Reserve(ctx, ports.ReserveRequest{AccountID: accountID, Amount: n})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Services.Ledger.Settle(ctx, h, ports.Charge{Credits: n, ServiceType: "content", ServiceName: "Content"}); err != nil {
		t.Fatal(err)
	}
}

func TestMonitorChecksReportChanges(t *testing.T) {
	e, site, rcv := monitorEnv(t, apitest.Options{})
	acct, tok := e.Account("a@example.com", "business")
	site.set("/pricing", pricing(10, 20))
	site.set("/about", `<h1>About</h1><p>We are a small team that builds tools for people who read the web for a living, every day.</p>`)
	res := e.Do("POST", "/v1/monitors", tok, map[string]any{"name": "Pricing", "urls": []string{site.URL("/pricing"), site.URL("/about")},
		"schedule": "*/5 * * * *", "callback_url": rcv.URL(), "email": true})
	id := res.JSON(t)["id"].(string)
	start, _ := e.Credits.Status(context.Background(), acct.ID)

	// Nothing is due before 12:05.
	runDue(t, e, id, 0)
	e.Clock.Set(time.Date(2026, 6, 15, 12, 5, 0, 0, time.UTC))
	runDue(t, e, id, 1)
	runDue(t, e, id, 0) // the 12:05 run is taken: a second tick starts nothing
	hooks := rcv.deliveries()
	if len(hooks) != 1 {
		t.Fatalf("first check: %d webhooks", len(hooks))
	}
	first := report(t, hooks[0])
	if hooks[0].header.Get(bulk.HeaderEvent) != monitor.EventCheck || !strings.HasPrefix(hooks[0].header.Get(bulk.HeaderSignature), "t=") {
		t.Fatalf("headers: %v", hooks[0].header)
	}
	if first.Counts.New != 2 || len(first.Changes) != 2 || first.Check.Credits != 4 || first.Check.PagesChecked != 2 || first.Check.ScheduledAt != "2026-06-15T12:05:00.000000Z" {
		t.Fatalf("first report: %+v", first)
	}
	if mid, _ := e.Credits.Status(context.Background(), acct.ID); start.Balance-mid.Balance != 4 {
		t.Fatalf("first check charged %d, want 4", start.Balance-mid.Balance)
	}

	// Nothing changed (only the page chrome): changes_only sends nothing.
	e.Clock.Set(time.Date(2026, 6, 15, 12, 10, 0, 0, time.UTC))
	runDue(t, e, id, 1)
	if n := len(rcv.deliveries()); n != 1 {
		t.Fatalf("a check with no change sent a webhook (%d in all)", n)
	}

	// The price changes and the about page goes away.
	site.set("/pricing", pricing(10, 25))
	site.mu.Lock()
	delete(site.body, "/about")
	site.mu.Unlock()
	e.Clock.Set(time.Date(2026, 6, 15, 12, 15, 0, 0, time.UTC))
	runDue(t, e, id, 1)
	hooks = rcv.deliveries()
	if len(hooks) != 2 {
		t.Fatalf("third check: %d webhooks in all", len(hooks))
	}
	third := report(t, hooks[1])
	t.Logf("monitor-check webhook of the third check: %s", hooks[1].body)
	if third.Counts.Changed != 1 || third.Counts.Removed != 1 || len(third.Changes) != 2 || third.Check.Credits != 2 {
		t.Fatalf("third report: %+v", third)
	}
	for _, p := range third.Changes {
		switch p.URL {
		case site.URL("/pricing"):
			if p.Status != "changed" || !strings.Contains(p.Diff, "+Pro costs 25 euros") || p.PreviousAt == nil {
				t.Fatalf("pricing: %+v", p)
			}
		case site.URL("/about"):
			if p.Status != "removed" {
				t.Fatalf("about: %+v", p)
			}
		}
	}
	end, _ := e.Credits.Status(context.Background(), acct.ID)
	if start.Balance-end.Balance != 4+4+2 {
		t.Fatalf("three checks charged %d, want 10", start.Balance-end.Balance)
	}
	got := e.Do("GET", "/v1/monitors/"+id, tok, nil).JSON(t)
	checks, _ := got["checks"].([]any)
	if len(checks) != 3 {
		t.Fatalf("checks: %v", got)
	}
	latest := checks[0].(map[string]any)
	if latest["status"] != "completed" || latest["pages_checked"] != float64(1) || latest["changed"] != float64(2) || latest["credits"] != float64(2) || latest["finished_at"] == nil {
		t.Fatalf("latest check: %v", latest)
	}
	if got["next_run_at"] != "2026-06-15T12:20:00.000000Z" {
		t.Fatalf("next run: %v", got["next_run_at"])
	}
}

func TestMonitorPausesWhenCreditsRunOut(t *testing.T) {
	e, site, rcv := monitorEnv(t, apitest.Options{})
	acct, tok := e.Account("a@example.com", "basic")
	site.set("/pricing", pricing(10, 20))
	res := e.Do("POST", "/v1/monitors", tok, map[string]any{"urls": []string{site.URL("/pricing")}, "schedule": "*/5 * * * *", "callback_url": rcv.URL()})
	if res.Status != 201 {
		t.Fatalf("create: %d %s", res.Status, res.Body)
	}
	id := res.JSON(t)["id"].(string)
	// Spend the balance but one credit: the check's page (2) cannot be paid for.
	st, _ := e.Credits.Status(context.Background(), acct.ID)
	spend(t, e, acct.ID, st.Balance-1)
	e.Clock.Set(time.Date(2026, 6, 15, 12, 5, 0, 0, time.UTC))
	runDue(t, e, id, 1)
	got := e.Do("GET", "/v1/monitors/"+id, tok, nil).JSON(t)
	if got["status"] != "paused" || got["paused_reason"] != monitor.ReasonInsufficientCredits || got["next_run_at"] != nil {
		t.Fatalf("monitor: %v", got)
	}
	checks, _ := got["checks"].([]any)
	if len(checks) != 1 || checks[0].(map[string]any)["status"] != "insufficient_credits" || checks[0].(map[string]any)["credits"] != float64(0) {
		t.Fatalf("checks: %v", checks)
	}
	hooks := rcv.deliveries()
	if len(hooks) != 1 {
		t.Fatalf("%d webhooks, want the one saying why the monitor paused", len(hooks))
	}
	if r := report(t, hooks[0]); r.Check.Status != "insufficient_credits" || r.Monitor.Status != "paused" {
		t.Fatalf("report: %+v", r)
	}
	// Paused: no later run is taken.
	e.Clock.Set(time.Date(2026, 6, 15, 12, 10, 0, 0, time.UTC))
	runDue(t, e, id, 0)
}

func report(t *testing.T, d delivery) monitor.Report {
	t.Helper()
	var r monitor.Report
	if err := json.Unmarshal(d.body, &r); err != nil {
		t.Fatalf("report: %v in %s", err, d.body)
	}
	return r
}

func TestMonitorOfACrawl(t *testing.T) {
	rcv := newReceiver(t, 0)
	e, tok, acct, _ := crawlEnv(t, rcv, 20, apitest.Options{})
	res := e.Do("POST", "/v1/monitors", tok, map[string]any{"crawl": map[string]any{"url": "http://site.test/", "limit": 5, "sitemap": "skip", "callback_url": "http://ignored.test/"},
		"schedule": "*/5 * * * *", "callback_url": rcv.URL()})
	m := res.JSON(t)
	if res.Status != 201 || m["urls"] != nil {
		t.Fatalf("create: %d %s", res.Status, res.Body)
	}
	if c, _ := m["crawl"].(map[string]any); c["url"] != "http://site.test/" || c["limit"] != float64(5) || c["callback_url"] != nil {
		t.Fatalf("crawl as stored: %v", m["crawl"])
	}
	id := m["id"].(string)
	start, _ := e.Credits.Status(context.Background(), acct.ID)
	e.Clock.Set(time.Date(2026, 6, 15, 12, 5, 0, 0, time.UTC))
	stop := make(chan struct{})
	go func() { // the crawl waits on its politeness delays: move the clock along
		for {
			select {
			case <-stop:
				return
			case <-time.After(2 * time.Millisecond):
				e.Clock.Advance(10 * time.Millisecond)
			}
		}
	}()
	runDue(t, e, id, 1)
	close(stop)
	hooks := rcv.deliveries()
	if len(hooks) != 1 {
		t.Fatalf("%d webhooks, want 1 (a crawl monitor sends no crawl events)", len(hooks))
	}
	r := report(t, hooks[0])
	if r.Counts.New != 5 || len(r.Changes) != 5 || r.Check.Credits != 10 {
		t.Fatalf("report: %+v", r)
	}
	if end, _ := e.Credits.Status(context.Background(), acct.ID); start.Balance-end.Balance != 10 {
		t.Fatalf("charged %d, want 10", start.Balance-end.Balance)
	}
	if _, held, _ := e.Store.ReadCredits(context.Background(), acct.ID, e.Clock.Now()); held != 0 {
		t.Fatalf("%d credits still held after the check", held)
	}
}

// A monitor whose stored schedule no longer passes the rules (a time zone
// this node lacks) is paused with the rule as its reason, not left due and
// retried at every tick; and two runs are never closer than 5 minutes.
func TestMonitorWhoseScheduleNoLongerHoldsPauses(t *testing.T) {
	e, site, rcv := monitorEnv(t, apitest.Options{NoWorker: true})
	_, tok := e.Account("a@example.com", "business")
	site.set("/pricing", pricing(10, 20))
	res := e.Do("POST", "/v1/monitors", tok, map[string]any{"urls": []string{site.URL("/pricing")}, "schedule": "*/5 * * * *", "callback_url": rcv.URL()})
	if res.Status != 201 {
		t.Fatalf("create: %d %s", res.Status, res.Body)
	}
	id := res.JSON(t)["id"].(string)
	store := e.Store.(ports.MonitorStore)
	if _, err := store.UpdateMonitor(context.Background(), id, func(m *ports.Monitor) error {
		m.Schedule = "CRON_TZ=Nowhere/Atlantis */5 * * * *"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	e.Clock.Set(time.Date(2026, 6, 15, 12, 5, 0, 0, time.UTC))
	if n, err := e.Services.Scheduler.Tick(context.Background()); err != nil || n != 0 {
		t.Fatalf("tick started %d checks (%v), want 0", n, err)
	}
	got := e.Do("GET", "/v1/monitors/"+id, tok, nil).JSON(t)
	reason, _ := got["paused_reason"].(string)
	if got["status"] != "paused" || !strings.Contains(reason, "schedule") || !strings.HasSuffix(reason, "then resume the monitor.") {
		t.Fatalf("monitor: %v", got)
	}
}
