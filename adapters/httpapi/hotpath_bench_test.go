package httpapi_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/trawlhq/trawl/core/billing"
	"github.com/trawlhq/trawl/testkit/apitest"
	"github.com/trawlhq/trawl/testkit/memstore"
	"github.com/trawlhq/trawl/testkit/sites"
)

// sink is a ResponseWriter reused between requests, so a benchmark counts
// the handler's allocations and not a recorder's.
type sink struct {
	header http.Header
	status int
	n      int
}

func (s *sink) Header() http.Header { return s.header }
func (s *sink) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
}

func (s *sink) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	s.n += len(b)
	return len(b), nil
}

func (s *sink) reset() {
	clear(s.header)
	s.status, s.n = 0, 0
}

// BenchmarkCredits serves GET /v1/credits in process over the in-memory
// store: what the request costs outside the store (routing, middleware,
// authentication, encoding), allocations included.
func BenchmarkCredits(b *testing.B) {
	e := apitest.Start(b, memstore.New(), apitest.Options{NoWorker: true})
	_, tok := e.Account("bench@example.com", "business")
	serveEach(b, e.API.Handler(), "/v1/credits", tok)
}

// serveEach serves GET target with tok at every turn of b's loop, into a
// reused sink, failing on any answer but 200.
func serveEach(b *testing.B, h http.Handler, target, tok string) {
	req := httptest.NewRequest(http.MethodGet, target, nil)
	req.Header.Set("Authorization", "Bearer "+tok)
	w := &sink{header: http.Header{}}
	b.ReportAllocs()
	for b.Loop() {
		w.reset()
		h.ServeHTTP(w, req)
		if w.status != http.StatusOK {
			b.Fatalf("status %d", w.status)
		}
	}
}

// BenchmarkContent serves GET /v1/content in process over the in-memory
// store for an article page, sent as it is and gzip-coded: the fetch, the
// extraction and the answer, without the cost of a database.
func BenchmarkContent(b *testing.B) {
	dir := filepath.Join("..", "..", "testdata", "extraction", "dev", "html")
	files, _ := filepath.Glob(filepath.Join(dir, "*.html.gz"))
	if len(files) == 0 {
		b.Skip("no article pages")
	}
	gz, err := os.ReadFile(files[0])
	if err != nil {
		b.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		b.Fatal(err)
	}
	page, _ := io.ReadAll(zr)
	site := sites.New(b, "articles.test")
	site.Mux.HandleFunc("/{enc}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if r.PathValue("enc") == "gzip" {
			w.Header().Set("Content-Encoding", "gzip")
			_, _ = w.Write(gz)
			return
		}
		_, _ = w.Write(page)
	})
	e := apitest.Start(b, memstore.New(), apitest.Options{NoWorker: true, Resolve: sites.Resolve(site), Plans: liftedPlans()})
	acct, tok := e.Account("bench@example.com", "business")
	if err := e.Credits.Grant(context.Background(), acct.ID, 1<<40); err != nil {
		b.Fatal(err)
	}
	h := e.API.Handler()
	for _, enc := range []string{"identity", "gzip"} {
		b.Run(enc, func(b *testing.B) {
			serveEach(b, h, "/v1/content?url="+url.QueryEscape(site.URL("/"+enc)), tok)
		})
	}
}

// liftedPlans is the default plan table with no per-minute limit in the way.
func liftedPlans() billing.Plans {
	list := billing.DefaultPlanList()
	for _, p := range list {
		for _, g := range billing.RateGroups {
			p.PerMinute[g] = 1 << 30
		}
	}
	plans, _ := billing.NewPlans(list)
	return plans
}
