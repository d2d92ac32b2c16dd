package app

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"go.uber.org/fx"

	"github.com/trawlhq/trawl/adapters/chromium"
	"github.com/trawlhq/trawl/adapters/httpapi"
	"github.com/trawlhq/trawl/adapters/metrics"
	"github.com/trawlhq/trawl/adapters/oteltrace"
	"github.com/trawlhq/trawl/ports"
)

// Observers are the decorators outbound adapters are wrapped in as they
// are built, before anything holds them: the metrics (nil when
// TRAWL_METRICS_ADDR is empty) inside, the tracing (nil when the OTEL_*
// variables leave it off) outside. The zero value wraps nothing.
type Observers struct {
	Metrics *metrics.Metrics
	Tracing *oteltrace.Tracing
	// Logger takes what an adapter does on its own, outside a request
	// (a PDF worker kept loaded that cannot start); nil: not logged.
	Logger *slog.Logger
}

// Fetcher counts and spans every fetch of f, streamed ones included.
func (o Observers) Fetcher(f ports.Fetcher) ports.Fetcher {
	if o.Metrics != nil {
		f = o.Metrics.Fetcher(f)
	}
	return o.Tracing.Fetcher(f)
}

// Renderer counts and spans every render of r (nil stays nil), and reports
// the browser's restarts and memory.
func (o Observers) Renderer(r ports.Renderer) ports.Renderer {
	if r == nil {
		return nil
	}
	if o.Metrics != nil {
		if b, ok := r.(interface{ Stats() chromium.Stats }); ok {
			o.Metrics.Browser(func() int64 { return b.Stats().Restarts }, func() int64 { return b.Stats().BrowserRSS })
		}
		r = o.Metrics.Renderer(r)
	}
	return o.Tracing.Renderer(r)
}

// Webhooks counts and spans every webhook attempt of w.
func (o Observers) Webhooks(w ports.WebhookSender) ports.WebhookSender {
	if o.Metrics != nil {
		w = o.Metrics.Webhooks(w)
	}
	return o.Tracing.Webhooks(w)
}

// Extractor spans every extraction of e.
func (o Observers) Extractor(e ports.Extractor) ports.Extractor { return o.Tracing.Extractor(e) }

// Engines span every search of each engine.
func (o Observers) Engines(e []ports.SearchEngine) []ports.SearchEngine {
	return o.Tracing.SearchEngines(e)
}

// LLM spans every completion of l.
func (o Observers) LLM(l ports.LLM) ports.LLM { return o.Tracing.LLM(l) }

// Mailer counts and spans every message of m.
func (o Observers) Mailer(m ports.Mailer) ports.Mailer {
	if o.Metrics != nil {
		m = o.Metrics.Mailer(m)
	}
	return o.Tracing.Mailer(m)
}

// MetricsModule provides the metrics (nil when TRAWL_METRICS_ADDR is empty)
// and serves them on their own listener.
func MetricsModule() fx.Option {
	return fx.Module("metrics",
		fx.Provide(func(c Config) *metrics.Metrics {
			if c.MetricsAddr == "" {
				return nil
			}
			return metrics.New()
		}),
		fx.Provide(func(m *metrics.Metrics, t *oteltrace.Tracing, log *slog.Logger) Observers {
			return Observers{Metrics: m, Tracing: t, Logger: log}
		}),
		fx.Invoke(serveMetrics),
	)
}

func serveMetrics(lc fx.Lifecycle, c Config, m *metrics.Metrics, store Store, log *slog.Logger) {
	if m == nil {
		return
	}
	store.Observe(m)
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", m.Handler())
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, WriteTimeout: 30 * time.Second}
	lc.Append(fx.Hook{
		OnStart: func(context.Context) error {
			ln, err := net.Listen("tcp", c.MetricsAddr)
			if err != nil {
				return err
			}
			log.Info("metrics listening", "addr", ln.Addr().String())
			go func() {
				if err := srv.Serve(ln); err != nil && err != http.ErrServerClosed {
					log.Error("metrics server stopped", "err", err)
				}
			}()
			return nil
		},
		OnStop: func(ctx context.Context) error { return srv.Shutdown(ctx) },
	})
}

// Instrument wraps the API's outermost handler in the request metrics
// (labelled by route pattern); without metrics it is the API's handler.
func Instrument(api *httpapi.API, m *metrics.Metrics) http.Handler {
	if m == nil {
		return api.Handler()
	}
	return m.HTTP(api.Handler(), api.Route)
}

// TracingModule provides the tracer (nil when the OTEL_* variables leave
// tracing off) and flushes its spans on stop.
func TracingModule() fx.Option {
	return fx.Module("tracing", fx.Provide(func(lc fx.Lifecycle, c Config, log *slog.Logger) (*oteltrace.Tracing, error) {
		t, err := oteltrace.New(context.Background(), c.Tracing, Version)
		if err != nil || t == nil {
			return nil, err
		}
		log.Info("tracing: OTLP over HTTP", "service", c.Tracing.ServiceName)
		lc.Append(fx.StopHook(t.Shutdown))
		return t, nil
	}))
}

// isRPC reports whether a route pattern is one of the Connect, gRPC or
// gRPC-Web services (traced by the RPC interceptor, not the HTTP handler).
func isRPC(pattern string) bool {
	return strings.HasPrefix(pattern, "/trawl.") || strings.HasPrefix(pattern, "/grpc.")
}

// Trace wraps the outermost handler in a server span per REST request
// (RPCs get theirs from the interceptor); without tracing it is h.
func Trace(h http.Handler, route func(*http.Request) string, t *oteltrace.Tracing) http.Handler {
	return t.HTTP(h, route, func(r *http.Request) bool { return isRPC(route(r)) })
}

// Ledger wraps the ledger in the credit metrics and the ledger spans.
func (o Observers) Ledger(l ports.Ledger) ports.Ledger {
	if o.Metrics != nil {
		l = o.Metrics.Ledger(l)
	}
	return o.Tracing.Ledger(l)
}
