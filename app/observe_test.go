package app

import (
	"context"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/trawlhq/trawl/adapters/clock"
	"github.com/trawlhq/trawl/adapters/metrics"
	"github.com/trawlhq/trawl/adapters/sqlstore"
	"github.com/trawlhq/trawl/core/auth"
	"github.com/trawlhq/trawl/core/billing"
	"github.com/trawlhq/trawl/core/credits"
	"github.com/trawlhq/trawl/ports"
	"github.com/trawlhq/trawl/testkit/pgtest"
	"github.com/trawlhq/trawl/testkit/sites"
)

func scrapeMetrics(t *testing.T, m *metrics.Metrics) string {
	t.Helper()
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	return rec.Body.String()
}

// TestOpenHoldsGauge reads the open holds from SQLite and PostgreSQL while
// a hold is open and after it is released.
func TestOpenHoldsGauge(t *testing.T) {
	for name, open := range map[string]func(t *testing.T) sqlstore.Options{
		"sqlite":   func(t *testing.T) sqlstore.Options { return sqlstore.Options{DataDir: t.TempDir()} },
		"postgres": func(t *testing.T) sqlstore.Options { return sqlstore.Options{DatabaseURL: pgtest.NewDatabase(t)} },
	} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			store, err := sqlstore.Open(ctx, open(t))
			if err != nil {
				t.Fatal(err)
			}
			defer store.Close()
			clk := clock.System{}
			a, err := auth.NewService(store, store, clk, billing.DefaultPlans())
			if err != nil {
				t.Fatal(err)
			}
			acct, err := a.CreateAccount(ctx, "holds@example.com", "", "business")
			if err != nil {
				t.Fatal(err)
			}
			ledger, _ := credits.NewLedger(store, clk)
			m := metrics.New()
			m.Holds(store.OpenHolds, time.Now)
			h1, err := ledger.Reserve(ctx, ports.ReserveRequest{AccountID: acct.ID, Amount: 10})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := ledger.Reserve(ctx, ports.ReserveRequest{AccountID: acct.ID, Amount: 5}); err != nil {
				t.Fatal(err)
			}
			out := scrapeMetrics(t, m)
			for _, w := range []string{"trawl_credit_holds_open 2\n", "trawl_credit_holds_open_credits 15\n", "trawl_credit_holds_scrape_ok 1\n"} {
				if !strings.Contains(out, w) {
					t.Errorf("no %s", w)
				}
			}
			if err := ledger.Release(ctx, h1); err != nil {
				t.Fatal(err)
			}
			if out := scrapeMetrics(t, m); !strings.Contains(out, "trawl_credit_holds_open 1\n") || !strings.Contains(out, "trawl_credit_holds_open_credits 5\n") {
				t.Errorf("after a release: %s", out)
			}
		})
	}
}

// TestRenderMetricsWithChromium renders fixture pages in the real browser,
// restarted after every page, and reads the renders and the restarts.
func TestRenderMetricsWithChromium(t *testing.T) {
	c := DefaultConfig()
	if FindBrowser(c) == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("no Chromium on this machine and CI=true")
		}
		t.Skip("no Chromium on PATH")
	}
	site := sites.New(t, "dune.test")
	site.Handle("/a", "text/html", `<html><body><p>Dunes move.</p></body></html>`)
	site.Handle("/b", "text/html", `<html><body><p>Sand sings.</p></body></html>`)
	c.DataDir, c.Resolve, c.BrowserRestartAfter, c.BrowserPages = t.TempDir(), sites.ResolveFlags(site), 1, 1
	out, err := NewOutbound(c)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	if out.Renderer == nil {
		t.Fatalf("no renderer: %s", out.Rendering)
	}
	m := metrics.New()
	out = instrumentOutbound(out, m)
	for _, p := range []string{"/a", "/b"} {
		page, err := url.Parse(site.URL(p))
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		if _, err := out.Renderer.Render(ctx, ports.RenderRequest{URL: page}); err != nil {
			t.Fatal(err)
		}
		cancel()
	}
	got := scrapeMetrics(t, m)
	for _, l := range strings.Split(got, "\n") {
		if strings.HasPrefix(l, "trawl_render_duration_seconds_sum") || strings.HasPrefix(l, "trawl_browser_resident_bytes") {
			t.Log(l)
		}
	}
	for _, w := range []string{`trawl_renders_total{outcome="ok"} 2`, "trawl_browser_restarts_total 1", `trawl_render_duration_seconds_count{outcome="ok"} 2`} {
		if !strings.Contains(got, w+"\n") {
			t.Errorf("no %s in\n%s", w, got)
		}
	}
	if strings.Contains(got, "trawl_browser_resident_bytes 0\n") {
		t.Error("the local browser's memory reads 0")
	}
}
