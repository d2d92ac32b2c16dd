package httpapi_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/trawlhq/trawl/testkit/apitest"
	"github.com/trawlhq/trawl/testkit/memstore"
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
	h := e.API.Handler()
	req := httptest.NewRequest(http.MethodGet, "/v1/credits", nil)
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
