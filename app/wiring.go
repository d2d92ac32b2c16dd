package app

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
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
	"github.com/trawlhq/trawl/adapters/password"
	"github.com/trawlhq/trawl/adapters/pdf"
	"github.com/trawlhq/trawl/adapters/schema"
	"github.com/trawlhq/trawl/adapters/serp"
	"github.com/trawlhq/trawl/adapters/sitemapxml"
	"github.com/trawlhq/trawl/adapters/smtpmail"
	"github.com/trawlhq/trawl/adapters/textdiff"
	"github.com/trawlhq/trawl/adapters/webhook"
	"github.com/trawlhq/trawl/core/account"
	"github.com/trawlhq/trawl/core/bulk"
	"github.com/trawlhq/trawl/core/content"
	"github.com/trawlhq/trawl/core/credits"
	"github.com/trawlhq/trawl/core/monitor"
	"github.com/trawlhq/trawl/core/service"
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

// Outbound are the adapters of a configuration that reach beyond the
// process, as the ports the core takes (service.Outbound; the clock, the
// payment provider and the limiter are set by whoever builds those), with
// what the server needs of them besides.
type Outbound struct {
	service.Outbound
	// Files serves the local blob store's links; nil with S3.
	Files http.Handler
	// Rendering says how pages are rendered, for the start-up log.
	Rendering string
	pdf       *pdf.Converter
	closers   []func()
}

// With completes the ports with the clock, the payment provider and the
// limiter.
func (o Outbound) With(clk ports.Clock, payments ports.PaymentProvider, lim ports.RateLimiter) service.Outbound {
	p := o.Outbound
	p.Clock, p.Payments, p.Limiter = clk, payments, lim
	return p
}

// Warm starts what the configuration keeps ready before the first
// request: the PDF workers kept loaded (TRAWL_DOCUMENT_WARM_WORKERS).
func (o Outbound) Warm() {
	if o.pdf != nil {
		o.pdf.KeepWarm()
	}
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

// NewOutbound builds the web-facing adapters of a configuration, each
// wrapped in obs before another adapter is built from it: the sitemap
// reader fetches, Google renders and the bulk worker posts and mails
// through the counted, traced ones.
func NewOutbound(c Config, obs Observers) (Outbound, error) {
	return NewOutboundWith(c, obs, Seams{})
}

// Seams are what a configuration cannot name of the outbound adapters, for
// a test to set: the zero value is the server's (the system resolver and
// clock, the LLM adapter's own backoff).
type Seams struct {
	// LookupIP resolves host names for the fetchers.
	LookupIP func(ctx context.Context, host string) ([]netip.Addr, error)
	// Now times the local blob store's links.
	Now func() time.Time
	// LLMBackoff is the first wait between attempts at the model.
	LLMBackoff time.Duration
}

// NewOutboundWith is NewOutbound with seams set.
func NewOutboundWith(c Config, obs Observers, s Seams) (Outbound, error) {
	o := fetch.Options{ConnectTimeout: c.FetchConnectTimeout, Timeout: c.FetchTimeout, MaxBytes: c.FetchMaxBytes, Resolve: c.ResolveMap(), LookupIP: s.LookupIP}
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
	out := Outbound{Outbound: service.Outbound{Fetcher: obs.Fetcher(f), Guard: f, Extractor: obs.Extractor(extract.New()),
		Schemas: schema.New(), Passwords: password.New(password.Default), Differ: textdiff.Differ{}}}
	sitemaps, ok := out.Fetcher.(sitemapxml.Fetcher)
	if !ok {
		return Outbound{}, errors.New("the observed fetcher does not stream")
	}
	if out.Discoverer, err = sitemapxml.New(sitemaps, sitemapxml.Limits{}); err != nil {
		return Outbound{}, err
	}
	var renderer ports.Renderer
	if renderer, out.Rendering, out.closers, err = NewRenderer(c, f); err != nil {
		return Outbound{}, err
	}
	out.Renderer = obs.Renderer(renderer)
	so := serp.ClientOptions{Timeout: c.SearchTimeout, Proxy: proxyURL(c.SearchProxy)}
	google := serp.NewGoogle(c.SearchGoogleURL, so)
	if out.Renderer != nil && c.RendersSearch("google") {
		google = serp.NewRenderedGoogle(c.SearchGoogleURL, so, out.Renderer)
		out.Rendering += "; Google results through the browser"
	}
	out.Engines = obs.Engines([]ports.SearchEngine{
		google,
		serp.NewBing(c.SearchBingURL, so),
		serp.NewDuckDuckGo(c.SearchDuckDuckGoURL, so),
	})
	out.LLM = obs.LLM(llm.NewOpenAI(llm.Options{BaseURL: c.LLMBaseURL, APIKey: c.LLMAPIKey, Model: c.LLMModel, AttemptTimeout: c.LLMTimeout, BaseBackoff: s.LLMBackoff}))
	// Crawls read under their own User-Agent: the token Trawl and the
	// operator's URL.
	co := o
	co.UserAgent = c.Crawl.UserAgent()
	cf := fetch.New(co)
	out.CrawlFetcher = obs.Fetcher(cf)
	crawlSitemaps, ok := out.CrawlFetcher.(sitemapxml.Fetcher)
	if !ok {
		return Outbound{}, errors.New("the observed crawl fetcher does not stream")
	}
	if out.CrawlSitemaps, err = sitemapxml.New(crawlSitemaps, sitemapxml.Limits{}); err != nil {
		return Outbound{}, err
	}
	out.Countries = f.Countries()
	// PDFs are converted in worker processes, this binary started again
	// (when its main called pdf.ServeIfWorker; in the process otherwise),
	// each killed at its document's deadline; a worker loads PDFium as it
	// starts and exits when idle, so an idle node holds no compiled
	// reader, unless TRAWL_DOCUMENT_WARM_WORKERS keeps some loaded
	// (started with the server, Outbound.Warm). The compiled code is kept
	// in the data directory.
	out.pdf = pdf.New(pdf.Options{MaxPages: int(c.DocumentMaxPages), Workers: int(c.DocumentWorkers), MemoryLimitBytes: c.DocumentMemoryBytes,
		CacheDir: filepath.Join(c.DataDir, "pdfium-cache"), Exec: pdf.Executable(), WarmWorkers: int(c.DocumentWarmWorkers), Logger: obs.Logger})
	out.Documents = map[ports.DocumentFormat]ports.DocumentConverter{ports.DocumentPDF: out.pdf, ports.DocumentDOCX: docx.New(docx.Options{})}
	hooks, err := webhook.New(f)
	if err != nil {
		return Outbound{}, err
	}
	out.Webhooks = obs.Webhooks(hooks)
	var mailer ports.Mailer
	if c.SMTPURL != "" {
		mailer, err = smtpmail.NewSMTP(c.SMTPURL)
	} else {
		mailer, err = smtpmail.NewOutbox(filepath.Join(c.DataDir, "outbox"))
	}
	if err != nil {
		return Outbound{}, err
	}
	out.Mailer = obs.Mailer(mailer)
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
	now := s.Now
	if now == nil {
		now = clock.System{}.Now
	}
	local, err := blob.NewLocal(filepath.Join(c.DataDir, "files"), secret, c.PublicBase(), now)
	if err != nil {
		return Outbound{}, err
	}
	out.Blobs, out.Files = local, local
	return out, nil
}

// ServiceOptions are the core's settings of a configuration.
func (c Config) ServiceOptions() service.Options {
	return service.Options{
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
		Crawl:   c.Crawl.RunnerOptions(),
		Account: account.Options{PublicURL: c.PublicBase(), MailFrom: c.MailFrom},
		LinkTTL: c.LinkTTL,
		// The page cache and change tracking (config_cache.go).
		CacheMaxBytes: c.CacheMaxBytes, ChangesRetention: c.ChangesRetention,
		Monitors: monitor.SchedulerOptions{Tick: c.MonitorTick},
	}
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
		fx.Provide(func(c Config, obs Observers, log *slog.Logger) (Outbound, error) {
			o, err := NewOutbound(c, obs)
			if err == nil {
				log.Info("rendering: " + o.Rendering)
			}
			return o, err
		}),
		fx.Invoke(func(lc fx.Lifecycle, out Outbound) { lc.Append(fx.StartStopHook(out.Warm, out.Close)) }))
}

// CoreModule provides the application: the core services every delivery takes.
func CoreModule() fx.Option {
	return fx.Module("core", fx.Provide(func(c Config, st service.Stores, out Outbound, clk ports.Clock, payments ports.PaymentProvider, lim ports.RateLimiter,
		obs Observers, log *slog.Logger) (*service.Services, error) {
		o := c.ServiceOptions()
		o.WrapLedger = obs.Ledger
		o.Jobs = obs.Tracing.Jobs()
		o.Logger = log
		return service.New(st, out.With(clk, payments, lim), o)
	}))
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
	// Files serves the local blob store's links (Outbound.Files); nil: none.
	Files http.Handler
}

// MCPMount builds the /mcp handler over the API handler and the
// application's services (adapters/mcpserver.Handler).
type MCPMount func(api http.Handler, s *service.Services) http.Handler

// Extensions are what the binary adds to the server.
type Extensions struct {
	MCP MCPMount
}

// NewHandler builds the JSON API with the Connect RPC surface mounted on
// it: the one handler the server, the tests and the benchmarks serve.
func NewHandler(s *service.Services, o HandlerOptions) (*httpapi.API, *connectapi.Server, error) {
	api, err := httpapi.New(s, httpapi.Options{Files: o.Files, Logger: o.Logger, Ready: o.Ready, Checks: o.Checks, MaxBodyBytes: o.MaxBody, Version: Version})
	if err != nil {
		return nil, nil, err
	}
	interceptors, err := o.Tracing.Interceptor(httpapi.RequestID)
	if err != nil {
		return nil, nil, err
	}
	rpc, err := connectapi.New(s, connectapi.Options{Interceptors: interceptors, RequestID: httpapi.RequestID, Ready: o.Ready, MaxBodyBytes: o.MaxBody, Logger: o.Logger})
	if err != nil {
		return nil, nil, err
	}
	for _, r := range rpc.Routes() {
		api.Mount(r.Pattern, r.Handler)
	}
	if o.MCP != nil {
		// MCP tools call the API itself, in process: the same limits and billing.
		api.Mount("/mcp", o.MCP(api.Handler(), s))
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
		fx.Provide(func(s *service.Services, out Outbound, store Store, rl Limiter, payments ports.PaymentProvider, log *slog.Logger, c Config, x extensionsIn, t *oteltrace.Tracing) (*httpapi.API, error) {
			api, _, err := NewHandler(s, HandlerOptions{Ready: store.Ping, MaxBody: c.MaxBody, Logger: log, Checks: rl.Checks(), MCP: x.Ext.MCP, Tracing: t, Files: out.Files})
			if err != nil {
				return nil, err
			}
			if err := MountDashboard(api, c, s, payments, log); err != nil {
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

// WorkerModule runs the bulk worker (and the monitors' scheduler, whose
// checks it runs) for the app's lifetime: jobs another
// process left behind are resumed once their lease runs out. On stop the
// worker drains: it claims nothing more, finishes and records the URLs in
// flight, and hands its jobs back for another process to continue.
func WorkerModule() fx.Option {
	return fx.Module("worker", fx.Invoke(func(lc fx.Lifecycle, s *service.Services, c Config, log *slog.Logger) {
		if !c.BulkWorker {
			return
		}
		ctx, cancel := context.WithCancel(context.Background())
		done, ticked := make(chan struct{}), make(chan struct{})
		lc.Append(fx.Hook{
			OnStart: func(context.Context) error {
				go func() { s.Worker.Run(ctx); close(done) }()
				go func() {
					// Every node ticks; each scheduled run of a monitor is
					// taken by one of them and runs on the worker's queue.
					if s.Scheduler != nil {
						s.Scheduler.Run(ctx)
					}
					close(ticked)
				}()
				log.Info("bulk worker started")
				return nil
			},
			OnStop: func(stop context.Context) error {
				cancel()
				for _, ch := range []chan struct{}{done, ticked} {
					select {
					case <-ch:
					case <-stop.Done():
					}
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
