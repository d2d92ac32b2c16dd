package oteltrace

import (
	"context"
	"net/http"
	"strings"

	"connectrpc.com/connect"
	"connectrpc.com/otelconnect"
	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/trace"
)

func otelhttpHandler(h http.Handler, t *Tracing, skip func(*http.Request) bool) http.Handler {
	return otelhttp.NewHandler(h, "http",
		otelhttp.WithTracerProvider(t.provider),
		otelhttp.WithPropagators(t.prop),
		otelhttp.WithMeterProvider(noop.NewMeterProvider()),
		otelhttp.WithPublicEndpointFn(func(*http.Request) bool { return true }),
		otelhttp.WithSpanNameFormatter(func(_ string, r *http.Request) string {
			if strings.Contains(r.Pattern, " ") {
				return r.Pattern
			}
			return r.Method + " " + r.Pattern
		}),
	)
}

// Interceptor traces RPCs: a server span per call (a caller's traceparent
// linked, not followed), with the request id the HTTP layer gave it. Off,
// it is nil and adds nothing.
func (t *Tracing) Interceptor(requestID func(context.Context) string) ([]connect.Interceptor, error) {
	if t == nil {
		return nil, nil
	}
	oc, err := otelconnect.NewInterceptor(otelconnect.WithTracerProvider(t.provider), otelconnect.WithPropagator(t.prop),
		otelconnect.WithoutMetrics())
	if err != nil {
		return nil, err
	}
	return []connect.Interceptor{oc, requestIDInterceptor(requestID)}, nil
}

type requestIDInterceptor func(context.Context) string

func (f requestIDInterceptor) tag(ctx context.Context) {
	if id := f(ctx); id != "" {
		trace.SpanFromContext(ctx).SetAttributes(RequestIDKey.String(id))
	}
}

func (f requestIDInterceptor) WrapUnary(next connect.UnaryFunc) connect.UnaryFunc {
	return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
		if !req.Spec().IsClient {
			f.tag(ctx)
		}
		return next(ctx, req)
	}
}

func (f requestIDInterceptor) WrapStreamingClient(next connect.StreamingClientFunc) connect.StreamingClientFunc {
	return next
}

func (f requestIDInterceptor) WrapStreamingHandler(next connect.StreamingHandlerFunc) connect.StreamingHandlerFunc {
	return func(ctx context.Context, conn connect.StreamingHandlerConn) error {
		f.tag(ctx)
		return next(ctx, conn)
	}
}
