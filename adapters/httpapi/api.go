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

	"github.com/trawlhq/trawl/core/auth"
	"github.com/trawlhq/trawl/core/bulk"
	"github.com/trawlhq/trawl/core/call"
	"github.com/trawlhq/trawl/core/content"
	"github.com/trawlhq/trawl/core/crawl"
	"github.com/trawlhq/trawl/core/credits"
	"github.com/trawlhq/trawl/core/prompt"
	"github.com/trawlhq/trawl/core/ratelimit"
	"github.com/trawlhq/trawl/core/search"
	"github.com/trawlhq/trawl/core/sitemap"
	"github.com/trawlhq/trawl/core/structured"
)

// Deps is what the API needs.
type Deps struct {
	Auth    *auth.Service
	Credits *credits.Service
	// Calls runs billed calls: limits, idempotency, the charge.
	Calls   *call.Pipeline
	Content *content.Service
	Sitemap *sitemap.Service
	Search  *search.Service
	Prompt  *prompt.Service
	// Extract is /v1/extract (nil: the route answers 404).
	Extract *structured.Service
	Bulk    *bulk.Service
	// Crawl is /v1/crawl (nil: the routes answer 404).
	Crawl *crawl.Service
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
	auth    *auth.Service
	credits *credits.Service
	calls   *call.Pipeline
	content *content.Service
	sitemap *sitemap.Service
	search  *search.Service
	prompt  *prompt.Service
	extract *structured.Service
	bulk    *bulk.Service
	crawl   *crawl.Service
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

// New builds the API; it fails on a missing dependency.
func New(d Deps) (*API, error) {
	if d.Auth == nil || d.Credits == nil || d.Calls == nil || d.Content == nil || d.Sitemap == nil || d.Search == nil || d.Prompt == nil || d.Bulk == nil {
		return nil, errors.New("httpapi.New: auth, credits, calls, content, sitemap, search, prompt and bulk are required")
	}
	if d.Logger == nil {
		d.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if d.MaxBodyBytes <= 0 {
		d.MaxBodyBytes = 1 << 20
	}
	if d.Ready == nil {
		d.Ready = func(context.Context) error { return nil }
	}
	if _, _, err := OpenAPI(); err != nil {
		return nil, fmt.Errorf("httpapi.New: the embedded OpenAPI document is invalid: %w", err)
	}
	a := &API{
		auth: d.Auth, credits: d.Credits, calls: d.Calls, content: d.Content, sitemap: d.Sitemap, search: d.Search, prompt: d.Prompt, extract: d.Extract, bulk: d.Bulk, crawl: d.Crawl, files: d.Files,
		log: d.Logger, ready: d.Ready, checks: d.Checks, maxBody: d.MaxBodyBytes, version: d.Version, mux: &router{ServeMux: http.NewServeMux()},
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
	if a.extract != nil {
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
