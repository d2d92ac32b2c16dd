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
	"github.com/trawlhq/trawl/adapters/extract"
	"github.com/trawlhq/trawl/adapters/fetch"
	"github.com/trawlhq/trawl/adapters/httpapi"
	"github.com/trawlhq/trawl/adapters/llm"
	"github.com/trawlhq/trawl/adapters/mail"
	"github.com/trawlhq/trawl/adapters/metrics"
	searchadapter "github.com/trawlhq/trawl/adapters/search"
	sitemapadapter "github.com/trawlhq/trawl/adapters/sitemap"
	"github.com/trawlhq/trawl/adapters/sqlstore"
	"github.com/trawlhq/trawl/adapters/webhook"
	"github.com/trawlhq/trawl/core/auth"
	"github.com/trawlhq/trawl/core/bulk"
	"github.com/trawlhq/trawl/core/content"
	"github.com/trawlhq/trawl/core/credits"
	"github.com/trawlhq/trawl/core/idempotency"
	"github.com/trawlhq/trawl/core/prompt"
	coreratelimit "github.com/trawlhq/trawl/core/ratelimit"
	"github.com/trawlhq/trawl/core/search"
	"github.com/trawlhq/trawl/core/sitemap"
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
	Content     *content.Service
	Sitemap     *sitemap.Service
	Search      *search.Service
	Prompt      *prompt.Service
	Bulk        *bulk.Service
	Worker      *bulk.Worker
}

// Outbound are the adapters that reach the web.
type Outbound struct {
	Fetcher    ports.Fetcher
	Guard      ports.AddressGuard // the fetcher's address check, for bulk submissions
	Extractor  ports.Extractor
	Discoverer ports.SitemapDiscoverer
	Engines    []ports.SearchEngine
	LLM        ports.LLM
	Webhooks   ports.WebhookSender
	Mailer     ports.Mailer
	Blobs      ports.BlobStore
	// Files serves the local blob store's links; nil with S3.
	Files http.Handler
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
	f := fetch.New(o)
	d, err := sitemapadapter.New(f, sitemapadapter.Limits{})
	if err != nil {
		return Outbound{}, err
	}
	so := searchadapter.ClientOptions{Timeout: c.SearchTimeout, Proxy: proxyURL(c.SearchProxy)}
	engines := []ports.SearchEngine{
		searchadapter.NewGoogle(c.SearchGoogleURL, so),
		searchadapter.NewBing(c.SearchBingURL, so),
		searchadapter.NewDuckDuckGo(c.SearchDuckDuckGoURL, so),
	}
	model := llm.NewOpenAI(llm.Options{BaseURL: c.LLMBaseURL, APIKey: c.LLMAPIKey, Model: c.LLMModel, AttemptTimeout: c.LLMTimeout})
	out := Outbound{Fetcher: f, Guard: f, Extractor: extract.New(), Discoverer: d, Engines: engines, LLM: model}
	if out.Webhooks, err = webhook.New(f); err != nil {
		return Outbound{}, err
	}
	if c.SMTPURL != "" {
		out.Mailer, err = mail.NewSMTP(c.SMTPURL)
	} else {
		out.Mailer, err = mail.NewOutbox(filepath.Join(c.DataDir, "outbox"))
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

// NewServices builds the core over a store and the outbound adapters.
func NewServices(c Config, store *sqlstore.Store, clk ports.Clock, payments ports.PaymentProvider, out Outbound, log *slog.Logger) (Services, error) {
	var s Services
	var err error
	if s.Auth, err = auth.NewService(store, store, clk); err != nil {
		return s, err
	}
	if s.Ledger, err = credits.NewLedger(store, clk, credits.WithLogger(log)); err != nil {
		return s, err
	}
	if s.Biller, err = credits.NewBiller(s.Ledger, store, clk); err != nil {
		return s, err
	}
	pricing := credits.Pricing{CentsPer1000Credits: c.PriceCents, Currency: c.Currency}
	if s.Credits, err = credits.NewService(store, store, payments, clk, pricing); err != nil {
		return s, err
	}
	if s.Idempotency, err = idempotency.NewService(store, clk); err != nil {
		return s, err
	}
	if s.Content, err = content.NewService(out.Fetcher, out.Extractor, s.Biller); err != nil {
		return s, err
	}
	if s.Sitemap, err = sitemap.NewService(out.Discoverer, s.Biller); err != nil {
		return s, err
	}
	if s.Search, err = search.NewService(out.Engines, s.Content, s.Biller); err != nil {
		return s, err
	}
	if s.Prompt, err = prompt.NewService(out.LLM, s.Content, s.Biller, int(c.LLMContextChars)); err != nil {
		return s, err
	}
	s.Worker, err = bulk.NewWorker(store, store, s.Ledger, s.Content, out.Webhooks, out.Mailer, out.Blobs, clk, log, bulk.WorkerOptions{
		Lease: c.BulkLease, JobsAtOnce: int(c.BulkJobs), WebhookTimeout: c.WebhookTimeout, RetryBackoff: c.WebhookBackoff, LinkTTL: c.LinkTTL, MailFrom: c.MailFrom,
	})
	if err != nil {
		return s, err
	}
	s.Bulk, err = bulk.NewService(store, s.Ledger, out.Discoverer, out.Webhooks, out.Guard, s.Worker, clk)
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
	return fx.Module("outbound", fx.Provide(func(c Config, m *metrics.Metrics) (Outbound, error) {
		o, err := NewOutbound(c)
		return instrumentOutbound(o, m), err
	}))
}

// CoreModule provides the core services.
func CoreModule() fx.Option {
	return fx.Module("core", fx.Provide(NewServices))
}

// HTTPModule provides the API and runs the HTTP server for the app's lifetime.
func HTTPModule() fx.Option {
	return fx.Module("http",
		fx.Provide(func(s Services, out Outbound, store *sqlstore.Store, lim ports.RateLimiter, rl Limiter, clk ports.Clock, payments ports.PaymentProvider, log *slog.Logger, c Config) (*httpapi.API, error) {
			api, err := httpapi.New(httpapi.Deps{
				Auth: s.Auth, Credits: s.Credits, Biller: s.Biller, Idempotency: s.Idempotency, Limiter: lim,
				Content: s.Content, Sitemap: s.Sitemap, Search: s.Search, Prompt: s.Prompt, Bulk: s.Bulk, Files: out.Files,
				Limits: coreratelimit.DefaultTable(), Logger: log, Ready: store.Ping, MaxBodyBytes: c.MaxBody, Version: Version,
				Checks: rl.Checks(),
			})
			if err != nil {
				return nil, err
			}
			rpc, err := NewConnect(s, lim, store.Ping, c.MaxBody, log)
			if err != nil {
				return nil, err
			}
			for _, r := range rpc.Routes() {
				api.Mount(r.Pattern, r.Handler)
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
func NewHTTPServer(lc fx.Lifecycle, api *httpapi.API, c Config, log *slog.Logger, ln net.Listener, m *metrics.Metrics) *http.Server {
	srv := &http.Server{
		Addr:              c.Addr,
		Handler:           Instrument(api, m),
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
			log.Info("trawl listening", "addr", ln.Addr().String(), "public_url", c.PublicBase(), "version", Version)
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
// process left behind are resumed once their lease runs out.
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

// NewConnect builds the Connect RPC surface over the same core services,
// with the JSON API's body limit applied to decompressed messages.
func NewConnect(s Services, lim ports.RateLimiter, ready func(context.Context) error, maxBody int64, log *slog.Logger) (*connectapi.Server, error) {
	return connectapi.New(connectapi.Deps{
		Auth: s.Auth, Credits: s.Credits, Idempotency: s.Idempotency, Content: s.Content, Sitemap: s.Sitemap, Search: s.Search,
		Prompt: s.Prompt, Bulk: s.Bulk, Limiter: lim, Limits: coreratelimit.DefaultTable(), RequestID: httpapi.RequestID, Ready: ready,
		MaxBodyBytes: maxBody, Logger: log,
	})
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
func ServerOptions(c Config, log *slog.Logger, ln net.Listener) fx.Option {
	return fx.Options(
		fx.Supply(c, log),
		fx.Provide(func() net.Listener { return ln }),
		fx.NopLogger,
		fx.StopTimeout(c.Shutdown),
		MetricsModule(), StoreModule(), ClockModule(), RateLimitModule(), PaymentModule(), OutboundModule(), CoreModule(), HTTPModule(), WorkerModule(),
	)
}
