// Package httpapi is Trawl's REST JSON delivery: it decodes a request, calls
// the core, maps the error through errmap and encodes the answer. Nothing
// else happens here.
package httpapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"

	"github.com/trawlhq/trawl/core/ratelimit"
	"github.com/trawlhq/trawl/core/service"
)

// Options are the REST delivery's transport settings.
type Options struct {
	// Files serves /files/ (the local blob store's signed links); nil when
	// files live elsewhere.
	Files  http.Handler
	Logger *slog.Logger
	// Ready reports whether the service can take traffic (database reachable).
	Ready func(context.Context) error
	// Checks are dependencies /readyz reports by name without failing on
	// them: the service keeps answering while they are down (Redis).
	Checks map[string]func(context.Context) error
	// MaxBodyBytes caps request bodies (default 1 MiB).
	MaxBodyBytes int64
	Version      string
}

// API is the HTTP handler set.
type API struct {
	svc     *service.Services
	files   http.Handler
	log     *slog.Logger
	ready   func(context.Context) error
	checks  map[string]func(context.Context) error
	maxBody int64
	version string
	mux     *router
}

// router is the mux, remembering the patterns it was given so tests can
// reach every route without a list of their own (export_test.go).
type router struct {
	*http.ServeMux
	patterns []string
}

func (m *router) Handle(pattern string, h http.Handler) {
	m.patterns = append(m.patterns, pattern)
	m.ServeMux.Handle(pattern, h)
}

func (m *router) HandleFunc(pattern string, h func(http.ResponseWriter, *http.Request)) {
	m.patterns = append(m.patterns, pattern)
	m.ServeMux.HandleFunc(pattern, h)
}

// New serves the application's services as the JSON API; it fails on a
// missing one (Extract and Crawl may be nil: their routes answer 404).
func New(s *service.Services, o Options) (*API, error) {
	if s == nil || s.Auth == nil || s.Credits == nil || s.Calls == nil || s.Content == nil || s.Sitemap == nil || s.Search == nil || s.Prompt == nil || s.Bulk == nil {
		return nil, errors.New("httpapi.New: auth, credits, calls, content, sitemap, search, prompt and bulk are required")
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = 1 << 20
	}
	if o.Ready == nil {
		o.Ready = func(context.Context) error { return nil }
	}
	if _, _, err := OpenAPI(); err != nil {
		return nil, fmt.Errorf("httpapi.New: the embedded OpenAPI document is invalid: %w", err)
	}
	a := &API{
		svc: s, files: o.Files,
		log: o.Logger, ready: o.Ready, checks: o.Checks, maxBody: o.MaxBodyBytes, version: o.Version, mux: &router{ServeMux: http.NewServeMux()},
	}
	a.routes()
	return a, nil
}

// Handler returns the API with every per-request concern applied once.
func (a *API) Handler() http.Handler { return a.outer(http.HandlerFunc(a.dispatch)) }

// dispatch routes a request; what no route takes gets a JSON 404 or 405
// instead of the mux's plain-text one.
func (a *API) dispatch(w http.ResponseWriter, r *http.Request) {
	h, pattern := a.mux.Handler(r)
	if pattern != "" {
		a.mux.ServeHTTP(w, r) // fills the path values
		return
	}
	probe := &headerProbe{header: http.Header{}}
	h.ServeHTTP(probe, r)
	switch probe.status {
	case http.StatusMethodNotAllowed:
		w.Header().Set("Allow", probe.header.Get("Allow"))
		writeJSON(w, http.StatusMethodNotAllowed, map[string]string{"message": "Method Not Allowed"})
	case http.StatusNotFound, 0:
		writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found", "error": "Not Found"})
	default: // the mux's own redirects (path cleaning)
		for k, v := range probe.header {
			w.Header()[k] = v
		}
		w.WriteHeader(probe.status)
	}
}

// headerProbe records what the mux's fallback handler would answer.
type headerProbe struct {
	header http.Header
	status int
}

func (p *headerProbe) Header() http.Header         { return p.header }
func (p *headerProbe) Write(b []byte) (int, error) { return len(b), nil }
func (p *headerProbe) WriteHeader(code int)        { p.status = code }

// Mount serves another protocol's handler (the Connect surface) on the same
// router, behind the same request id, logging, recovery and body limit.
func (a *API) Mount(pattern string, h http.Handler) { a.mux.Handle(pattern, h) }

func (a *API) routes() {
	m := a.mux
	m.HandleFunc("GET /healthz", a.healthz)
	m.HandleFunc("GET /readyz", a.readyz)
	m.HandleFunc("GET /openapi.json", a.openapiJSON)
	m.HandleFunc("GET /docs", a.docs)
	m.HandleFunc("GET /user", a.authed(a.getUser))
	m.HandleFunc("GET /v1/credits", a.authed(a.getCredits))
	m.HandleFunc("GET /v1/credits/transactions", a.authed(a.listTransactions))
	m.HandleFunc("POST /v1/credits/preview-cost", a.authed(a.previewCost))
	m.HandleFunc("POST /v1/credits/can-afford", a.authed(a.canAfford))
	m.HandleFunc("GET /v1/credits/usage-stats", a.authed(a.usageStats))
	m.HandleFunc("POST /v1/credits/purchase", a.authed(a.purchase))
	m.HandleFunc("GET /checkout/{session}", a.checkoutPage)
	m.HandleFunc("POST /checkout/{session}/pay", a.checkoutPay)
	a.pageRoutes()
	a.browserRoutes()
	a.searchRoutes()
	a.bulkRoutes()
	a.crawlRoutes()
	a.monitorRoutes()
	if a.svc.Extract != nil {
		a.billed("POST /v1/extract", ratelimit.Extract, a.runExtract)
	}
}

func (a *API) healthz(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok", "version": a.version})
}

func (a *API) readyz(w http.ResponseWriter, r *http.Request) {
	if err := a.ready(r.Context()); err != nil {
		a.log.WarnContext(r.Context(), "not ready", "err", err)
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"message": "Not ready"})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"status": "ready", "checks": a.checkAll(r.Context())})
}
