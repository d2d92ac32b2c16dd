package client

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/trawlhq/trawl/testkit/apitest"
	"github.com/trawlhq/trawl/testkit/memstore"
)

// TestServerMonitors runs every monitor call against the real API, each
// request and answer checked against the OpenAPI document.
func TestServerMonitors(t *testing.T) {
	e := apitest.Start(t, memstore.New(), apitest.Options{NoWorker: true})
	_, token := e.Account("monitors@example.com", "pro")
	c := New(e.Server.URL, token, WithHTTPClient(&http.Client{Transport: newCheckedTransport(t, e.Server.URL), Timeout: time.Minute}))
	ctx := context.Background()

	_, err := c.CreateMonitor(ctx, MonitorRequest{URLs: []string{"http://news.test/a"}, Schedule: "*/2 * * * *", Email: true})
	wantStatus(t, err, 422, "schedule")
	all := false
	m, err := c.CreateMonitor(ctx, MonitorRequest{Name: "Docs", URLs: []string{"http://news.test/a", "http://news.test/b"}, Schedule: "0 */6 * * *", Email: true, ChangesOnly: &all})
	if err != nil || m.ID == "" || m.Status != MonitorActive || m.ChangesOnly || len(m.URLs) != 2 || m.NextRunAt == nil || *m.NextRunAt != "2026-06-15T18:00:00.000000Z" {
		t.Fatalf("CreateMonitor = %+v %v", m, err)
	}
	e.Clock.Advance(time.Minute) // newest first: the crawl monitor is the newer
	limit := 3
	cm, err := c.CreateMonitor(ctx, MonitorRequest{Crawl: &MonitorCrawl{URL: "http://news.test/", Limit: &limit}, Schedule: "@daily", Email: true})
	if err != nil || cm.Crawl == nil || cm.Crawl.URL != "http://news.test/" || cm.Crawl.Limit == nil || *cm.Crawl.Limit != 3 {
		t.Fatalf("a crawl monitor = %+v %v", cm, err)
	}
	page, err := c.Monitors(ctx, 1, 1)
	if err != nil || page.Total != 2 || len(page.Data) != 1 || page.Data[0].ID != cm.ID || page.LastPage != 2 {
		t.Fatalf("Monitors = %+v %v", page, err)
	}
	e.Clock.Advance(6 * time.Hour)
	if n, err := e.Services.Scheduler.Tick(ctx); err != nil || n != 1 {
		t.Fatalf("tick: %d %v", n, err)
	}
	got, err := c.Monitor(ctx, m.ID)
	if err != nil || len(got.Checks) != 1 || got.Checks[0].ScheduledAt != "2026-06-15T18:00:00.000000Z" || got.Checks[0].Status != "queued" {
		t.Fatalf("Monitor = %+v %v", got, err)
	}
	paused := MonitorPaused
	got, err = c.UpdateMonitor(ctx, m.ID, MonitorPatch{Status: &paused})
	if err != nil || got.Status != MonitorPaused || got.NextRunAt != nil || got.PausedReason == nil {
		t.Fatalf("pause = %+v %v", got, err)
	}
	active, noHook := MonitorActive, ""
	got, err = c.UpdateMonitor(ctx, m.ID, MonitorPatch{Status: &active, CallbackURL: &noHook})
	if err != nil || got.Status != MonitorActive || got.NextRunAt == nil || got.CallbackURL != nil {
		t.Fatalf("resume = %+v %v", got, err)
	}
	if err := c.DeleteMonitor(ctx, m.ID); err != nil {
		t.Fatal(err)
	}
	_, err = c.Monitor(ctx, m.ID)
	wantStatus(t, err, 404, "")
}
