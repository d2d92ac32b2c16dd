package app

import (
	"context"
	"log/slog"
	"net/http"
	"strings"

	"go.uber.org/fx"

	"github.com/trawlhq/trawl/adapters/oteltrace"
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
