package app

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	"go.uber.org/fx"

	"github.com/trawlhq/trawl/adapters/blob"
	"github.com/trawlhq/trawl/adapters/clock"
	"github.com/trawlhq/trawl/adapters/connectapi"
	"github.com/trawlhq/trawl/adapters/docx"
	"github.com/trawlhq/trawl/adapters/extract"
	"github.com/trawlhq/trawl/adapters/fetch"
	"github.com/trawlhq/trawl/adapters/httpapi"
	"github.com/trawlhq/trawl/adapters/llm"
	"github.com/trawlhq/trawl/adapters/metrics"
	"github.com/trawlhq/trawl/adapters/oteltrace"
	"github.com/trawlhq/trawl/adapters/pdf"
	"github.com/trawlhq/trawl/adapters/schema"
	"github.com/trawlhq/trawl/adapters/serp"
	"github.com/trawlhq/trawl/adapters/sitemapxml"
	"github.com/trawlhq/trawl/adapters/smtpmail"
	"github.com/trawlhq/trawl/adapters/sqlstore"
	"github.com/trawlhq/trawl/adapters/webhook"
	"github.com/trawlhq/trawl/core/auth"
	"github.com/trawlhq/trawl/core/billing"
	"github.com/trawlhq/trawl/core/bulk"
	"github.com/trawlhq/trawl/core/call"
	"github.com/trawlhq/trawl/core/content"
	"github.com/trawlhq/trawl/core/crawl"
	"github.com/trawlhq/trawl/core/credits"
	"github.com/trawlhq/trawl/core/idempotency"
	"github.com/trawlhq/trawl/core/prompt"
	"github.com/trawlhq/trawl/core/search"
	"github.com/trawlhq/trawl/core/sitemap"
	"github.com/trawlhq/trawl/core/structured"
	"github.com/trawlhq/trawl/ports"
)

// NewLogger builds the structured logger of a configuration.
func NewLogger(c Config, w io.Writer) *slog.Logger {
	var lvl slog.Level
	_ = lvl.UnmarshalText([]byte(strings.ToUpper(c.LogLevel)))
	opts := &slog.HandlerOptions{Level: lvl}
	if c.LogFormat == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

// OpenStore opens (and migrates) the configured store.
func OpenStore(ctx context.Context, c Config) (*sqlstore.Store, error) {
	if err := CheckDatabaseURL(c.DatabaseURL); err != nil {
		return nil, err
	}
	return sqlstore.Open(ctx, c.StoreOptions())
}

// Services are the core use cases, built from plain constructors: usable with
// or without fx.
type Services struct {
	Auth        *auth.Service
	Credits     *credits.Service
	Ledger      *credits.Ledger
	Biller      *credits.Biller
	Idempotency *idempotency.Service
	// Calls runs every billed call: limits, idempotency, the charge.
	Calls   *call.Pipeline
	Content *content.Service
	Sitemap *sitemap.Service
	Search  *search.Service
	Prompt  *prompt.Service
	// Extract runs /v1/extract: schema-shaped data from a page.
	Extract *structured.Service
	Bulk    *bulk.Service
	Worker  *bulk.Worker
	// Crawl runs /v1/crawl; its jobs run on Worker's queue.
	Crawl *crawl.Service
}

// Outbound are the adapters that reach the web.
type Outbound struct {
	Fetcher    ports.Fetcher
	Guard      ports.AddressGuard // the fetcher's address check, for bulk submissions
	Extractor  ports.Extractor
	Discoverer ports.SitemapDiscoverer
	Engines    []ports.SearchEngine
	LLM        ports.LLM
	// Schemas compiles callers' JSON Schemas (nil: the jsonschema adapter).
	Schemas  ports.SchemaCompiler
	Webhooks ports.WebhookSender
	Mailer   ports.Mailer
	Blobs    ports.BlobStore
	// Files serves the local blob store's links; nil with S3.
	Files http.Handler
	// Documents convert PDF and DOCX responses on the content path.
	Documents map[ports.DocumentFormat]ports.DocumentConverter
	pdf       *pdf.Converter
	// Renderer reads pages in a browser; nil when none is configured.
	Renderer ports.Renderer
	// Rendering says how pages are rendered, for the start-up log.
	Rendering string
	closers   []func()

	// Countries are those of the fetch proxy pool (TRAWL_FETCH_PROXIES).
	Countries []string
}

// Close releases what the outbound adapters hold (the PDF reader, the
// browser and its egress proxy).
func (o Outbound) Close() error {
	for i := len(o.closers) - 1; i >= 0; i-- {
		o.closers[i]()
	}
	if o.pdf != nil {
		return o.pdf.Close()
	}
	return nil
}

func proxyURL(raw string) *url.URL {
	if raw == "" {
		return nil
	}
	u, _ := url.Parse(raw)
	return u
}

// NewOutbound builds the web-facing adapters of a configuration.
func NewOutbound(c Config) (Outbound, error) {
	o := fetch.Options{ConnectTimeout: c.FetchConnectTimeout, Timeout: c.FetchTimeout, MaxBytes: c.FetchMaxBytes, Resolve: c.ResolveMap()}
	if c.FetchProxy != "" {
		u, err := url.Parse(c.FetchProxy)
		if err != nil {
			return Outbound{}, err
		}
		o.Proxy = u
	}
	proxies, err := fetch.ParseProxies(c.FetchProxies)
	if err != nil {
		return Outbound{}, err
	}
	o.Proxies = proxies
	f := fetch.New(o)
	d, err := sitemapxml.New(f, sitemapxml.Limits{})
	if err != nil {
		return Outbound{}, err
	}
	so := serp.ClientOptions{Timeout: c.SearchTimeout, Proxy: proxyURL(c.SearchProxy)}
	google := serp.NewGoogle(c.SearchGoogleURL, so)
	engines := []ports.SearchEngine{
		google,
		serp.NewBing(c.SearchBingURL, so),
		serp.NewDuckDuckGo(c.SearchDuckDuckGoURL, so),
	}
	model := llm.NewOpenAI(llm.Options{BaseURL: c.LLMBaseURL, APIKey: c.LLMAPIKey, Model: c.LLMModel, AttemptTimeout: c.LLMTimeout})
	out := Outbound{Fetcher: f, Guard: f, Extractor: extract.New(), Discoverer: d, Engines: engines, LLM: model}
	out.Countries = f.Countries()
	// PDFium is compiled on the first PDF, not at start: an idle node holds
	// no compiled reader, and the compiled code kept in the data directory
	// makes that first PDF after a restart about as fast as the next.
	out.pdf = pdf.New(pdf.Options{MaxPages: int(c.DocumentMaxPages), Workers: int(c.DocumentWorkers), MemoryLimitBytes: c.DocumentMemoryBytes,
		CacheDir: filepath.Join(c.DataDir, "pdfium-cache")})
	out.Documents = map[ports.DocumentFormat]ports.DocumentConverter{ports.DocumentPDF: out.pdf, ports.DocumentDOCX: docx.New(docx.Options{})}
	if out.Renderer, out.Rendering, out.closers, err = NewRenderer(c, f); err != nil {
		return Outbound{}, err
	}
	if out.Renderer != nil && c.RendersSearch("google") {
		google.RenderWith(out.Renderer)
		out.Rendering += "; Google results through the browser"
	}
	if out.Webhooks, err = webhook.New(f); err != nil {
		return Outbound{}, err
	}
	if c.SMTPURL != "" {
		out.Mailer, err = smtpmail.NewSMTP(c.SMTPURL)
	} else {
		out.Mailer, err = smtpmail.NewOutbox(filepath.Join(c.DataDir, "outbox"))
	}
	if err != nil {
		return Outbound{}, err
	}
	if c.S3Endpoint != "" {
		s3, err := blob.NewS3(blob.S3Options{Endpoint: c.S3Endpoint, Bucket: c.S3Bucket, AccessKey: c.S3AccessKey, SecretKey: c.S3SecretKey, Region: c.S3Region, Insecure: c.S3Insecure})
		if err != nil {
			return Outbound{}, err
		}
		out.Blobs = s3
		return out, nil
	}
	secret := []byte(c.LinkSecret)
	if len(secret) == 0 {
		if secret, err = blob.LinkSecret(c.DataDir); err != nil {
			return Outbound{}, err
		}
	}
	local, err := blob.NewLocal(filepath.Join(c.DataDir, "files"), secret, c.PublicBase(), clock.System{}.Now)
	if err != nil {
		return Outbound{}, err
	}
	out.Blobs, out.Files = local, local
	return out, nil
}

// Stores are the store ports the core runs over. One SQL store fills them
// all in production; tests fill them with the in-memory store or fakes.
type Stores struct {
	Accounts    ports.AccountStore
	Tokens      ports.TokenStore
	Ledger      ports.LedgerStore
	Idempotency ports.IdempotencyStore
	Jobs        ports.JobStore
	// Crawls, Robots and Hosts keep crawl frontiers, robots.txt and the
	// per-host politeness shared by a fleet.
	Crawls ports.CrawlStore
	Robots ports.RobotsCache
	Hosts  ports.HostGate
}

// SQLStores puts the SQL store under every store port.
func SQLStores(s *sqlstore.Store) Stores {
	return Stores{Accounts: s, Tokens: s, Ledger: s, Idempotency: s, Jobs: s, Crawls: s, Robots: s, Hosts: s}
}

// ServiceOptions tune the core services.
type ServiceOptions struct {
	Pricing credits.Pricing
	// Plans is the plan table: allowances, token caps, per-minute limits
	// (zero: the default one).
	Plans           billing.Plans
	LLMContextChars int
	Worker          bulk.WorkerOptions
	Crawl           crawl.RunnerOptions
	// Documents bound PDF and DOCX conversion (zero values: the defaults).
	Documents content.DocumentLimits
	// WrapLedger decorates the ledger billed calls and bulk jobs move
	// credits through (metrics, tracing); nil: none.
	WrapLedger func(ports.Ledger) ports.Ledger
	// Jobs links each bulk job's processing to the request that queued it
	// (tracing); nil: none.
	Jobs ports.JobTracer
}

// ServiceOptions are the core's settings of a configuration.
func (c Config) ServiceOptions() ServiceOptions {
	return ServiceOptions{
		Pricing:         credits.Pricing{CentsPer1000Credits: c.PriceCents, Currency: c.Currency},
		Plans:           c.Plans,
		LLMContextChars: int(c.LLMContextChars),
		Documents:       content.DocumentLimits{MaxBytes: c.DocumentMaxBytes, MaxPages: int(c.DocumentMaxPages), Timeout: c.DocumentTimeout},
		Worker: bulk.WorkerOptions{
			Lease: c.BulkLease, JobsAtOnce: int(c.BulkJobs), WebhookTimeout: c.WebhookTimeout, RetryBackoff: c.WebhookBackoff, LinkTTL: c.LinkTTL, MailFrom: c.MailFrom,
			// URLs in flight at shutdown finish within two thirds of the
			// shutdown timeout, leaving the rest to record them and hand back.
			Drain: c.Shutdown * 2 / 3,
		},
		Crawl: c.Crawl.RunnerOptions(),
	}
}

// NewAccountServices builds the services of accounts, tokens and credits:
// all the operator's commands need, with no outbound adapter.
func NewAccountServices(st Stores, clk ports.Clock, payments ports.PaymentProvider, pricing credits.Pricing, plans billing.Plans) (*auth.Service, *credits.Service, error) {
	a, err := auth.NewService(st.Accounts, st.Tokens, clk, plans)
	if err != nil {
		return nil, nil, err
	}
	c, err := credits.NewService(st.Ledger, st.Accounts, payments, clk, pricing, plans)
	return a, c, err
}

// NewServices builds the core over the store ports and the outbound adapters.
func NewServices(st Stores, clk ports.Clock, payments ports.PaymentProvider, limiter ports.RateLimiter, out Outbound, o ServiceOptions, log *slog.Logger) (Services, error) {
	var s Services
	var err error
	if s.Auth, s.Credits, err = NewAccountServices(st, clk, payments, o.Pricing, o.Plans); err != nil {
		return s, err
	}
	if s.Ledger, err = credits.NewLedger(st.Ledger, clk, credits.WithLogger(log), credits.WithPlans(o.Plans)); err != nil {
		return s, err
	}
	var ledger ports.Ledger = s.Ledger
	if o.WrapLedger != nil {
		ledger = o.WrapLedger(ledger)
	}
	if s.Biller, err = credits.NewBiller(ledger, st.Ledger, clk, o.Plans); err != nil {
		return s, err
	}
	if s.Idempotency, err = idempotency.NewService(st.Idempotency, clk); err != nil {
		return s, err
	}
	if s.Calls, err = call.NewPipeline(limiter, o.Plans, s.Idempotency, call.WithBalance(func(ctx context.Context, accountID int64) (int64, error) {
		st, err := s.Credits.Status(ctx, accountID)
		return st.Balance, err
	})); err != nil {
		return s, err
	}
	var copts []content.Option
	if out.Documents != nil {
		copts = append(copts, content.WithDocuments(o.Documents, out.Documents))
	}
	if out.Renderer != nil {
		copts = append(copts, content.WithRenderer(out.Renderer))
	}
	if out.Blobs != nil {
		copts = append(copts, content.WithScreenshots(out.Blobs, 0, clk.Now))
	}
	if len(out.Countries) > 0 {
		copts = append(copts, content.WithCountries(out.Countries))
	}
	if s.Content, err = content.NewService(out.Fetcher, out.Extractor, s.Biller, copts...); err != nil {
		return s, err
	}
	if s.Sitemap, err = sitemap.NewService(out.Discoverer, s.Biller); err != nil {
		return s, err
	}
	if s.Search, err = search.NewService(out.Engines, s.Content, s.Biller); err != nil {
		return s, err
	}
	if s.Prompt, err = prompt.NewService(out.LLM, s.Content, s.Biller, o.LLMContextChars); err != nil {
		return s, err
	}
	schemas := out.Schemas
	if schemas == nil {
		schemas = schema.New()
	}
	if s.Extract, err = structured.NewService(out.LLM, schemas, s.Content, s.Biller, o.LLMContextChars); err != nil {
		return s, err
	}
	s.Worker, err = bulk.NewWorker(bulk.WorkerDeps{Jobs: st.Jobs, Accounts: st.Accounts, Ledger: bulkLedger{ledger}, Pages: s.Content,
		Webhooks: out.Webhooks, Mailer: out.Mailer, Blobs: out.Blobs, Clock: clk, Logger: log, Tracer: o.Jobs}, o.Worker)
	if err != nil {
		return s, err
	}
	if s.Bulk, err = bulk.NewService(st.Jobs, bulkLedger{ledger}, out.Discoverer, out.Webhooks, out.Guard, s.Worker, clk); err != nil {
		return s, err
	}
	if st.Crawls == nil {
		return s, nil // a store without crawls: /v1/crawl answers 404
	}
	if _, err = crawl.NewRunner(crawl.RunnerDeps{Jobs: st.Jobs, Crawls: st.Crawls, Robots: st.Robots, Gate: st.Hosts, Accounts: st.Accounts, Ledger: bulkLedger{ledger},
		Pages: s.Content, Fetcher: out.Fetcher, Sitemaps: out.Discoverer, Worker: s.Worker, Clock: clk, Logger: log}, o.Crawl); err != nil {
		return s, err
	}
	s.Crawl, err = crawl.NewService(st.Jobs, st.Crawls, bulkLedger{ledger}, out.Webhooks, out.Guard, s.Worker, clk, crawl.WithPages(s.Content))
	return s, err
}

// StoreModule provides the SQL store under each store port.
func StoreModule() fx.Option {
	return fx.Module("store",
		fx.Provide(
			func(lc fx.Lifecycle, c Config) (*sqlstore.Store, error) {
				s, err := OpenStore(context.Background(), c)
				if err != nil {
					return nil, err
				}
				lc.Append(fx.StopHook(s.Close))
				return s, nil
			},
			fx.Annotate(func(s *sqlstore.Store) *sqlstore.Store { return s }, fx.As(new(ports.AccountStore)), fx.As(new(ports.TokenStore)),
				fx.As(new(ports.LedgerStore)), fx.As(new(ports.IdempotencyStore))),
			SQLStores,
		),
	)
}

// ClockModule provides the system clock.
func ClockModule() fx.Option {
	return fx.Module("clock", fx.Provide(fx.Annotate(func() clock.System { return clock.System{} }, fx.As(new(ports.Clock)))))
}

// RateLimitModule provides the configured limiter (LimiterKind).
func RateLimitModule() fx.Option {
	return fx.Module("ratelimit", fx.Provide(provideLimiter, func(l Limiter) ports.RateLimiter { return l.RateLimiter }))
}

// PaymentModule provides the payment provider: Stripe when configured,
// else the local checkout.
func PaymentModule() fx.Option {
	return fx.Module("payment", fx.Provide(NewPaymentProvider))
}

// OutboundModule provides the fetcher, the extractor and sitemap discovery.
func OutboundModule() fx.Option {
	return fx.Module("outbound",
		fx.Provide(func(c Config, m *metrics.Metrics, t *oteltrace.Tracing, log *slog.Logger) (Outbound, error) {
			o, err := NewOutbound(c)
			if err == nil {
				log.Info("rendering: " + o.Rendering)
			}
			return traceOutbound(instrumentOutbound(o, m), t), err
		}),
		fx.Invoke(func(lc fx.Lifecycle, out Outbound) { lc.Append(fx.StopHook(out.Close)) }))
}

// CoreModule provides the core services.
func CoreModule() fx.Option {
	return fx.Module("core", fx.Provide(func(c Config, m *metrics.Metrics, t *oteltrace.Tracing) ServiceOptions {
		o := c.ServiceOptions()
		o.WrapLedger = observeLedger(m, t)
		o.Jobs = t.Jobs()
		return o
	}, NewServices))
}

// HandlerOptions tune the served surface.
type HandlerOptions struct {
	// Ready reports whether the service can take traffic.
	Ready func(context.Context) error
	// Checks are dependencies /readyz reports without failing on them (Redis).
	Checks map[string]func(context.Context) error
	// MaxBody caps a request body, and an RPC message once decompressed.
	MaxBody int64
	Logger  *slog.Logger
	// MCP serves the MCP tools at /mcp; nil: none.
	MCP MCPMount
	// Tracing traces RPCs (and, through Trace, REST requests); nil: off.
	Tracing *oteltrace.Tracing
}

// MCPMount builds the /mcp handler over the API handler, with the token
// check of the API (adapters/mcpserver.Handler).
type MCPMount func(api http.Handler, authenticate func(ctx context.Context, authorization string) error) http.Handler

// Extensions are what the binary adds to the server.
type Extensions struct {
	MCP MCPMount
}

// NewHandler builds the JSON API with the Connect RPC surface mounted on
// it: the one handler the server, the tests and the benchmarks serve.
func NewHandler(s Services, out Outbound, o HandlerOptions) (*httpapi.API, *connectapi.Server, error) {
	api, err := httpapi.New(httpapi.Deps{
		Auth: s.Auth, Credits: s.Credits, Calls: s.Calls,
		Content: s.Content, Sitemap: s.Sitemap, Search: s.Search, Prompt: s.Prompt, Extract: s.Extract, Bulk: s.Bulk, Crawl: s.Crawl, Files: out.Files,
		Logger: o.Logger, Ready: o.Ready, Checks: o.Checks, MaxBodyBytes: o.MaxBody, Version: Version,
	})
	if err != nil {
		return nil, nil, err
	}
	interceptors, err := o.Tracing.Interceptor(httpapi.RequestID)
	if err != nil {
		return nil, nil, err
	}
	rpc, err := connectapi.New(connectapi.Deps{Interceptors: interceptors,
		Auth: s.Auth, Credits: s.Credits, Calls: s.Calls, Content: s.Content, Sitemap: s.Sitemap, Search: s.Search,
		Prompt: s.Prompt, Extract: s.Extract, Bulk: s.Bulk, RequestID: httpapi.RequestID, Ready: o.Ready, MaxBodyBytes: o.MaxBody, Logger: o.Logger,
	})
	if err != nil {
		return nil, nil, err
	}
	for _, r := range rpc.Routes() {
		api.Mount(r.Pattern, r.Handler)
	}
	if o.MCP != nil {
		// MCP tools call the API itself, in process: the same limits and billing.
		api.Mount("/mcp", o.MCP(api.Handler(), func(ctx context.Context, authorization string) error {
			_, err := s.Auth.Authenticate(ctx, authorization)
			return err
		}))
	}
	return api, rpc, nil
}

// extensionsIn takes the binary's extensions when the app was given them.
type extensionsIn struct {
	fx.In
	Ext Extensions `optional:"true"`
}

// HTTPModule provides the API and runs the HTTP server for the app's lifetime.
func HTTPModule() fx.Option {
	return fx.Module("http",
		fx.Provide(func(s Services, out Outbound, store *sqlstore.Store, lim ports.RateLimiter, rl Limiter, clk ports.Clock, payments ports.PaymentProvider, log *slog.Logger, c Config, x extensionsIn, t *oteltrace.Tracing) (*httpapi.API, error) {
			api, _, err := NewHandler(s, out, HandlerOptions{Ready: store.Ping, MaxBody: c.MaxBody, Logger: log, Checks: rl.Checks(), MCP: x.Ext.MCP, Tracing: t})
			if err != nil {
				return nil, err
			}
			if err := MountDashboard(api, c, store, s, out, lim, clk, payments, log); err != nil {
				return nil, err
			}
			return api, nil
		}),
		fx.Provide(NewHTTPServer),
		fx.Invoke(func(*http.Server) {}),
	)
}

// NewHTTPServer serves on ln (bound by the caller before anything else
// starts, so a busy address fails first) and drains connections on stop.
func NewHTTPServer(lc fx.Lifecycle, api *httpapi.API, c Config, log *slog.Logger, ln net.Listener, m *metrics.Metrics, t *oteltrace.Tracing) *http.Server {
	srv := &http.Server{
		Addr:              c.Addr,
		Handler:           Trace(Instrument(api, m), api.Route, t),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      5 * time.Minute, // a sync bulk run or a search with content takes a while
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		Protocols:         ServerProtocols(),
	}
	lc.Append(fx.Hook{
		OnStart: func(context.Context) error {
			log.Info("trawl listening", "addr", ln.Addr().String(), "public_url", c.PublicBase(), "dashboard", c.PublicBase()+"/dashboard/", "docs", c.PublicBase()+"/docs", "version", Version)
			go func() {
				if err := srv.Serve(ln); err != nil && err != http.ErrServerClosed {
					log.Error("http server stopped", "err", err)
				}
			}()
			return nil
		},
		OnStop: func(ctx context.Context) error {
			log.Info("shutting down: draining connections")
			return srv.Shutdown(ctx)
		},
	})
	return srv
}

// WorkerModule runs the bulk worker for the app's lifetime: jobs another
// process left behind are resumed once their lease runs out. On stop the
// worker drains: it claims nothing more, finishes and records the URLs in
// flight, and hands its jobs back for another process to continue.
func WorkerModule() fx.Option {
	return fx.Module("worker", fx.Invoke(func(lc fx.Lifecycle, s Services, c Config, log *slog.Logger) {
		if !c.BulkWorker {
			return
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		lc.Append(fx.Hook{
			OnStart: func(context.Context) error {
				go func() { s.Worker.Run(ctx); close(done) }()
				log.Info("bulk worker started")
				return nil
			},
			OnStop: func(stop context.Context) error {
				cancel()
				select {
				case <-done:
				case <-stop.Done():
				}
				return nil
			},
		})
	}))
}

// ServerProtocols serves HTTP/1.1 and cleartext HTTP/2 (h2c) on one
// listener, so Connect, gRPC and gRPC-Web clients reach the JSON API's port.
func ServerProtocols() *http.Protocols {
	p := new(http.Protocols)
	p.SetHTTP1(true)
	p.SetUnencryptedHTTP2(true)
	return p
}

// ServerOptions is the whole server as fx options, serving on ln.
func ServerOptions(c Config, log *slog.Logger, ln net.Listener, ext ...Extensions) fx.Option {
	var x Extensions
	if len(ext) > 0 {
		x = ext[0]
	}
	return fx.Options(
		fx.Supply(c, log, x),
		fx.Provide(func() net.Listener { return ln }),
		fx.NopLogger,
		fx.StopTimeout(c.Shutdown),
		MetricsModule(), TracingModule(), StoreModule(), ClockModule(), RateLimitModule(), PaymentModule(), OutboundModule(), CoreModule(), HTTPModule(), WorkerModule(),
	)
}
