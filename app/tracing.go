package app

import (
	"context"
	"log/slog"
	"net/http"
	"strings"

	"go.uber.org/fx"

	"github.com/trawlhq/trawl/adapters/metrics"
	"github.com/trawlhq/trawl/adapters/oteltrace"
	"github.com/trawlhq/trawl/core/billing"
	"github.com/trawlhq/trawl/core/credits"
	"github.com/trawlhq/trawl/ports"
)

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

// traceOutbound puts a span around every fetch, render, extraction,
// search and completion when tracing is on.
func traceOutbound(o Outbound, t *oteltrace.Tracing) Outbound {
	o.Fetcher = t.Fetcher(o.Fetcher)
	o.Renderer = t.Renderer(o.Renderer)
	o.Extractor = t.Extractor(o.Extractor)
	o.Engines = t.SearchEngines(o.Engines)
	o.LLM = t.LLM(o.LLM)
	return o
}

// bulkLedger marks the ledger calls of bulk jobs as the bulk service's, as
// a billed call's are marked with theirs, for what observes the ledger.
type bulkLedger struct{ next ports.Ledger }

func bulkCtx(ctx context.Context) context.Context {
	return credits.WithService(ctx, billing.BulkContent)
}

func (b bulkLedger) Reserve(ctx context.Context, r ports.ReserveRequest) (ports.Hold, error) {
	return b.next.Reserve(bulkCtx(ctx), r)
}

func (b bulkLedger) Settle(ctx context.Context, h ports.Hold, c ports.Charge) (ports.Transaction, error) {
	return b.next.Settle(bulkCtx(ctx), h, c)
}

func (b bulkLedger) Release(ctx context.Context, h ports.Hold) error {
	return b.next.Release(bulkCtx(ctx), h)
}

func (b bulkLedger) ChargeHold(ctx context.Context, h ports.Hold, c ports.Charge, key string) (ports.Transaction, bool, error) {
	return b.next.ChargeHold(bulkCtx(ctx), h, c, key)
}

func (b bulkLedger) ReleasePart(ctx context.Context, h ports.Hold, n int64) error {
	return b.next.ReleasePart(bulkCtx(ctx), h, n)
}

// observeLedger wraps the ledger in the credit metrics and the ledger spans,
// each when on.
func observeLedger(m *metrics.Metrics, t *oteltrace.Tracing) func(ports.Ledger) ports.Ledger {
	return func(l ports.Ledger) ports.Ledger {
		if m != nil {
			l = m.Ledger(l)
		}
		return t.Ledger(l)
	}
}
