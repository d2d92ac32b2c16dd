package app

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/trawlhq/trawl/adapters/clock"
	"github.com/trawlhq/trawl/adapters/metrics"
	"github.com/trawlhq/trawl/adapters/oteltrace"
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
	m := metrics.New()
	out, err := NewOutbound(c, Observers{Metrics: m})
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	if out.Renderer == nil {
		t.Fatalf("no renderer: %s", out.Rendering)
	}
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

// TestOutboundIsObservedBeforeItIsShared: the sitemap reader fetches and
// the webhook sender posts through the counted, traced adapters, because
// they are wrapped before anything is built from them.
func TestOutboundIsObservedBeforeItIsShared(t *testing.T) {
	site := sites.New(t, "harbour.test")
	site.Handle("/sitemap.xml", "application/xml", `<urlset><url><loc>http://harbour.test/a</loc></url><url><loc>http://harbour.test/b</loc></url></urlset>`)
	site.Mux.HandleFunc("POST /hook", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })
	c := DefaultConfig()
	c.DataDir, c.BrowserOff, c.Resolve = t.TempDir(), true, sites.ResolveFlags(site)
	m := metrics.New()
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	defer tp.Shutdown(context.Background())
	out, err := NewOutbound(c, Observers{Metrics: m, Tracing: oteltrace.WithProvider(tp)})
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	ctx := context.Background()
	urls, err := out.Discoverer.Read(ctx, site.URL("/sitemap.xml"), 10)
	if err != nil || len(urls) != 2 {
		t.Fatalf("sitemap: %v %v", urls, err)
	}
	if code, err := out.Webhooks.Send(ctx, ports.Webhook{URL: site.URL("/hook"), Body: []byte(`{}`), Timeout: 5 * time.Second}); err != nil || code != http.StatusNoContent {
		t.Fatalf("webhook: %d %v", code, err)
	}
	got := scrapeMetrics(t, m)
	for _, want := range []string{`trawl_fetches_total{outcome="ok"} 1`, `trawl_webhook_attempts_total{outcome="2xx"} 1`} {
		if !strings.Contains(got, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	spans := exp.GetSpans()
	for name, status := range map[string]string{"fetch": "200", "webhook": "204"} {
		s := spanNamed(spans, name)
		if s == nil {
			t.Errorf("no %s span among %v", name, names(spans))
			continue
		}
		if attr(s, "server.address") != "harbour.test" || attr(s, "http.response.status_code") != status {
			t.Errorf("%s span: %+v", name, s.Attributes)
		}
	}
}
