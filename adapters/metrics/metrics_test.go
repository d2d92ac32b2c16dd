package metrics_test

import (
	"context"
	"database/sql"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"github.com/trawlhq/trawl/adapters/limiter"
	"github.com/trawlhq/trawl/adapters/metrics"
	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/core/ratelimit"
	"github.com/trawlhq/trawl/ports"
	"github.com/trawlhq/trawl/testkit"
)

type ctxKey struct{}

func scrape(t *testing.T, m *metrics.Metrics) string {
	t.Helper()
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if rec.Code != 200 {
		t.Fatalf("/metrics = %d", rec.Code)
	}
	return rec.Body.String()
}

func TestRequestsByRoutePatternNeverByPath(t *testing.T) {
	m := metrics.New()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/jobs/{id}", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(202) })
	mux.HandleFunc("POST /v1/content", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(429) })
	route := func(r *http.Request) string { _, p := mux.Handler(r); return p }
	// Middleware between the instrument and the router replaces the request,
	// as the API's does: the route is known all the same.
	inner := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mux.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), ctxKey{}, 1)))
	})
	srv := httptest.NewServer(m.HTTP(inner, route))
	defer srv.Close()
	for _, c := range []struct{ method, path string }{
		{"GET", "/v1/jobs/secret-job-x1"}, {"GET", "/v1/jobs/other"}, {"POST", "/v1/content?url=https://private.example/x&token=trawl_abc"},
		{"GET", "/no/such/place@example.com"},
	} {
		req, _ := http.NewRequest(c.method, srv.URL+c.path, nil)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
	}
	out := scrape(t, m)
	for _, want := range []string{
		`trawl_http_requests_total{code="202",route="GET /v1/jobs/{id}"} 2`,
		`trawl_http_requests_total{code="429",route="POST /v1/content"} 1`,
		`trawl_http_requests_total{code="404",route="unmatched"} 1`,
		`trawl_http_request_duration_seconds_count{route="GET /v1/jobs/{id}"} 2`,
		`trawl_http_requests_in_flight 0`,
		`go_goroutines`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %s in:\n%s", want, grep(out, "trawl_http"))
		}
	}
	for _, leak := range []string{"secret-job", "private.example", "trawl_abc", "example.com"} {
		if strings.Contains(out, leak) {
			t.Errorf("%q reached the metrics", leak)
		}
	}
}

func grep(s, prefix string) string {
	var b strings.Builder
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, prefix) {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

func TestRateLimitDecisions(t *testing.T) {
	m := metrics.New()
	mem, _ := limiter.NewMemory(testkit.NewClock(time.Now()))
	l := m.Limiter(mem)
	key := ratelimit.Key(7, ratelimit.Prompt)
	for range 3 {
		if _, err := l.Allow(context.Background(), key, 2, time.Minute); err != nil {
			t.Fatal(err)
		}
	}
	out := scrape(t, m)
	for _, want := range []string{
		`trawl_ratelimit_decisions_total{group="prompt",outcome="allowed"} 2`,
		`trawl_ratelimit_decisions_total{group="prompt",outcome="refused"} 1`,
		`trawl_ratelimit_decision_duration_seconds_count 3`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %s in:\n%s", want, grep(out, "trawl_ratelimit"))
		}
	}
}

type fetchFunc func(context.Context, ports.FetchRequest) (ports.FetchResponse, error)

func (f fetchFunc) Fetch(ctx context.Context, r ports.FetchRequest) (ports.FetchResponse, error) {
	return f(ctx, r)
}

func TestFetchesByOutcome(t *testing.T) {
	m := metrics.New()
	f := m.Fetcher(fetchFunc(func(_ context.Context, r ports.FetchRequest) (ports.FetchResponse, error) {
		if strings.Contains(r.URL.Host, "down") {
			return ports.FetchResponse{}, failure.E("fetch", failure.Unavailable, "unreachable", errors.New("dial"))
		}
		return ports.FetchResponse{URL: r.URL.String(), StatusCode: 200}, nil
	}))
	for _, u := range []string{"http://a.test/", "http://b.test/", "http://down.test/"} {
		_, _ = f.Fetch(context.Background(), ports.FetchRequest{URL: parseURL(u)})
	}
	out := scrape(t, m)
	for _, want := range []string{`trawl_fetches_total{outcome="ok"} 2`, `trawl_fetches_total{outcome="unavailable"} 1`, `trawl_fetch_duration_seconds_count{outcome="ok"} 2`} {
		if !strings.Contains(out, want) {
			t.Errorf("no %s in:\n%s", want, grep(out, "trawl_fetch"))
		}
	}
	if strings.Contains(out, "a.test") || strings.Contains(out, "down.test") {
		t.Error("a URL reached the metrics")
	}
}

type shared struct{ up bool }

func (s shared) Up() bool          { return s.up }
func (s shared) Fallbacks() uint64 { return 4 }

func TestPoolAndSharedLimiter(t *testing.T) {
	m := metrics.New()
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	m.DB(db, "trawl")
	m.Shared(shared{up: false})
	out := scrape(t, m)
	for _, want := range []string{`go_sql_open_connections{db_name="trawl"}`, `go_sql_max_open_connections{db_name="trawl"}`,
		"trawl_ratelimit_backend_up 0", "trawl_ratelimit_fallback_decisions_total 4"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %s", want)
		}
	}
}

func TestBulkQueue(t *testing.T) {
	m := metrics.New()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	var fail bool
	m.Jobs(func(context.Context) ([]metrics.JobState, error) {
		if fail {
			return nil, errors.New("database down")
		}
		return []metrics.JobState{{Status: "queued", Count: 3, Oldest: now.Add(-90 * time.Second)}}, nil
	}, func(context.Context) (int, error) { return 250, nil }, func() time.Time { return now })
	out := scrape(t, m)
	for _, want := range []string{`trawl_bulk_jobs{status="queued"} 3`, `trawl_bulk_jobs{status="processing"} 0`,
		`trawl_bulk_oldest_job_age_seconds{status="queued"} 90`, `trawl_bulk_oldest_job_age_seconds{status="processing"} 0`,
		"trawl_bulk_urls_pending 250", "trawl_bulk_queue_scrape_ok 1"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %s in:\n%s", want, grep(out, "trawl_bulk"))
		}
	}
	fail = true
	if out := scrape(t, m); !strings.Contains(out, "trawl_bulk_queue_scrape_ok 0") || strings.Contains(out, "trawl_bulk_jobs{") {
		t.Errorf("a failed read:\n%s", grep(out, "trawl_bulk"))
	}
}

// parseURL is a fetch target as a caller hands it over, parsed once.
func parseURL(raw string) *url.URL {
	u, err := url.Parse(raw)
	if err != nil {
		panic(err)
	}
	return u
}

// A streamed answer is flushed through the instrument, and an answer that
// writes nothing counts as the 200 net/http sends.
func TestHTTPFlushesAndCountsSilentAnswers(t *testing.T) {
	m := metrics.New()
	h := m.HTTP(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/stream" {
			_, _ = io.WriteString(w, "part")
			if err := http.NewResponseController(w).Flush(); err != nil {
				t.Errorf("flush: %v", err)
			}
		}
	}), func(r *http.Request) string { return "GET " + r.URL.Path })
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/stream", nil))
	if !rec.Flushed {
		t.Error("the flush did not reach the client's writer")
	}
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/silent", nil))
	out := scrape(t, m)
	for _, want := range []string{
		`trawl_http_requests_total{code="200",route="GET /stream"} 1`,
		`trawl_http_requests_total{code="200",route="GET /silent"} 1`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %s in:\n%s", want, grep(out, "trawl_http"))
		}
	}
}

// BenchmarkHTTP is what the instrument adds to a request: the in-flight
// gauge, the latency and the count of its route and status.
func BenchmarkHTTP(b *testing.B) {
	m := metrics.New()
	h := m.HTTP(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) }),
		func(*http.Request) string { return "GET /v1/credits" })
	req := httptest.NewRequest(http.MethodGet, "/v1/credits", nil)
	w := httptest.NewRecorder()
	b.ReportAllocs()
	for b.Loop() {
		h.ServeHTTP(w, req)
	}
}
