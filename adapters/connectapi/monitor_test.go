package connectapi_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"connectrpc.com/connect"

	trawlv1 "github.com/trawlhq/trawl/adapters/connectapi/gen/trawl/v1"
	"github.com/trawlhq/trawl/adapters/connectapi/gen/trawl/v1/trawlv1connect"
	"github.com/trawlhq/trawl/testkit/apitest"
	"github.com/trawlhq/trawl/testkit/memstore"
)

// TestMonitorService runs the monitors of /v1/monitors over RPC: create,
// list, read with checks, pause and resume, delete, field errors and
// another account's monitor.
func TestMonitorService(t *testing.T) {
	e := startOn(t, memstore.New(), apitest.Options{NoWorker: true})
	cl := trawlv1connect.NewMonitorServiceClient(http.DefaultClient, e.Server.URL, connect.WithInterceptors(connect.UnaryInterceptorFunc(func(next connect.UnaryFunc) connect.UnaryFunc {
		return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
			if req.Header().Get("Authorization") == "" {
				req.Header().Set("Authorization", "Bearer "+e.tok)
			}
			return next(ctx, req)
		}
	})))
	ctx := context.Background()
	ce := code(t, errOf(cl.CreateMonitor(ctx, connect.NewRequest(&trawlv1.CreateMonitorRequest{Urls: []string{"http://news.test/article"}, Schedule: "* * * * *", Email: true}))), connect.CodeInvalidArgument)
	if br := badRequest(ce); br == nil || br.FieldViolations[0].GetField() != "schedule" {
		t.Fatalf("every minute: %v", ce.Details())
	}
	limit := int32(0)
	ce = code(t, errOf(cl.CreateMonitor(ctx, connect.NewRequest(&trawlv1.CreateMonitorRequest{Crawl: &trawlv1.CreateCrawlRequest{Url: "http://news.test/", Limit: &limit}, Schedule: "@daily", Email: true}))), connect.CodeInvalidArgument)
	if br := badRequest(ce); br == nil || br.FieldViolations[0].GetField() != "crawl.limit" {
		t.Fatalf("a crawl of no page: %v", ce.Details())
	}
	created, err := cl.CreateMonitor(ctx, connect.NewRequest(&trawlv1.CreateMonitorRequest{Name: "Tides", Urls: []string{"http://news.test/article"}, Schedule: "*/15 * * * *", Email: true}))
	if err != nil {
		t.Fatal(err)
	}
	m := created.Msg.GetMonitor()
	if m.GetStatus() != "active" || !m.GetChangesOnly() || m.GetNextRunAt() != "2026-06-15T12:15:00.000000Z" || m.GetName() != "Tides" || m.Crawl != nil {
		t.Fatalf("created: %v", m)
	}
	limit = 5
	crawled, err := cl.CreateMonitor(ctx, connect.NewRequest(&trawlv1.CreateMonitorRequest{Crawl: &trawlv1.CreateCrawlRequest{Url: "http://news.test/", Limit: &limit}, Schedule: "@daily", Email: true}))
	if err != nil || crawled.Msg.GetMonitor().GetCrawl().GetUrl() != "http://news.test/" || crawled.Msg.GetMonitor().GetCrawl().GetLimit() != 5 {
		t.Fatalf("a crawl monitor: %v %v", crawled, err)
	}
	list, err := cl.ListMonitors(ctx, connect.NewRequest(&trawlv1.ListMonitorsRequest{PerPage: 1}))
	if err != nil || list.Msg.GetTotal() != 2 || len(list.Msg.GetData()) != 1 || list.Msg.GetLastPage() != 2 {
		t.Fatalf("list: %v %v", list, err)
	}
	// The 12:15 run, taken by a scheduler tick, is the monitor's first check.
	e.Clock.Advance(15 * time.Minute)
	if n, err := e.Services.Scheduler.Tick(ctx); err != nil || n != 1 {
		t.Fatalf("tick: %d %v", n, err)
	}
	got, err := cl.GetMonitor(ctx, connect.NewRequest(&trawlv1.GetMonitorRequest{MonitorId: m.GetId()}))
	if err != nil || len(got.Msg.GetMonitor().GetChecks()) != 1 || got.Msg.GetMonitor().GetChecks()[0].GetScheduledAt() != "2026-06-15T12:15:00.000000Z" {
		t.Fatalf("get: %v %v", got, err)
	}
	paused := "paused"
	up, err := cl.UpdateMonitor(ctx, connect.NewRequest(&trawlv1.UpdateMonitorRequest{MonitorId: m.GetId(), Status: &paused}))
	if err != nil || up.Msg.GetMonitor().GetStatus() != "paused" || up.Msg.GetMonitor().NextRunAt != nil || up.Msg.GetMonitor().GetPausedReason() == "" {
		t.Fatalf("pause: %v %v", up, err)
	}
	active, hourly := "active", "0 * * * *"
	up, err = cl.UpdateMonitor(ctx, connect.NewRequest(&trawlv1.UpdateMonitorRequest{MonitorId: m.GetId(), Status: &active, Schedule: &hourly}))
	if err != nil || up.Msg.GetMonitor().GetStatus() != "active" || up.Msg.GetMonitor().GetNextRunAt() != "2026-06-15T13:00:00.000000Z" {
		t.Fatalf("resume: %v %v", up, err)
	}
	bad := "*/2 * * * *"
	code(t, errOf(cl.UpdateMonitor(ctx, connect.NewRequest(&trawlv1.UpdateMonitorRequest{MonitorId: m.GetId(), Schedule: &bad}))), connect.CodeInvalidArgument)
	// Another account's monitor is not found, whatever the call.
	_, other := e.Account("other@example.com", "business")
	as := func(r connect.AnyRequest) { r.Header().Set("Authorization", "Bearer "+other) }
	g := connect.NewRequest(&trawlv1.GetMonitorRequest{MonitorId: m.GetId()})
	as(g)
	code(t, errOf(cl.GetMonitor(ctx, g)), connect.CodeNotFound)
	d := connect.NewRequest(&trawlv1.DeleteMonitorRequest{MonitorId: m.GetId()})
	as(d)
	code(t, errOf(cl.DeleteMonitor(ctx, d)), connect.CodeNotFound)
	if _, err := cl.DeleteMonitor(ctx, connect.NewRequest(&trawlv1.DeleteMonitorRequest{MonitorId: m.GetId()})); err != nil {
		t.Fatal(err)
	}
	code(t, errOf(cl.GetMonitor(ctx, connect.NewRequest(&trawlv1.GetMonitorRequest{MonitorId: m.GetId()}))), connect.CodeNotFound)
}
