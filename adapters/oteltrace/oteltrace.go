// Package oteltrace traces Trawl's requests with OpenTelemetry: a server
// span per REST request and per RPC, with the request id, and a child span
// for each fetch, render, extraction, search, LLM completion and ledger
// operation. The spans come from decorators over the ports, wrapped in by
// the app, so no other package knows about OpenTelemetry.
//
// Tracing is off unless the standard OTEL_* variables ask for it (Enabled).
// Off, every decorator returns what it was given: no span, no cost.
//
// No attribute carries a URL's path or query, a token or an email: a
// request is named by its route pattern, a fetched page by its host.
package oteltrace

import (
	"context"
	"errors"
	"fmt"
	"github.com/trawlhq/trawl/ports"
	"net/http"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// Settings are what the OTEL_* variables say about traces.
type Settings struct {
	// Enabled is true when an OTLP endpoint or a traces exporter is set and
	// the SDK is not disabled.
	Enabled bool
	// ServiceName is OTEL_SERVICE_NAME, "trawl" by default.
	ServiceName string
}

// FromEnv reads the standard variables: tracing is on when
// OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or
// OTEL_TRACES_EXPORTER=otlp is set, and off with OTEL_SDK_DISABLED=true or
// OTEL_TRACES_EXPORTER=none. The exporter speaks OTLP over HTTP
// (http/protobuf); the endpoint, headers, timeout, sampler and batching
// come from the same variables, read by the OpenTelemetry SDK.
func FromEnv(getenv func(string) string) (Settings, error) {
	get := func(k string) string { return strings.TrimSpace(getenv(k)) }
	s := Settings{ServiceName: "trawl"}
	for _, kv := range strings.Split(get("OTEL_RESOURCE_ATTRIBUTES"), ",") {
		if k, v, ok := strings.Cut(kv, "="); ok && strings.TrimSpace(k) == "service.name" && strings.TrimSpace(v) != "" {
			s.ServiceName = strings.TrimSpace(v)
		}
	}
	if v := get("OTEL_SERVICE_NAME"); v != "" {
		s.ServiceName = v // wins over OTEL_RESOURCE_ATTRIBUTES, as the specification says
	}
	exporter := strings.ToLower(get("OTEL_TRACES_EXPORTER"))
	switch exporter {
	case "", "otlp", "none":
	default:
		return s, fmt.Errorf("OTEL_TRACES_EXPORTER %q: want otlp or none", exporter)
	}
	for _, k := range []string{"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"} {
		if v := get(k); v != "" && v != "http/protobuf" {
			return s, fmt.Errorf("%s %q: Trawl exports traces over http/protobuf only", k, v)
		}
		if get(k) != "" {
			break // the traces-specific setting wins
		}
	}
	if v := get("OTEL_SDK_DISABLED"); v != "" && !strings.EqualFold(v, "false") {
		if !strings.EqualFold(v, "true") {
			return s, fmt.Errorf("OTEL_SDK_DISABLED must be true or false, got %q", v)
		}
		return s, nil
	}
	if exporter == "none" {
		return s, nil
	}
	s.Enabled = exporter == "otlp" || get("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != ""
	return s, nil
}

// Tracing makes Trawl's spans. A nil *Tracing is tracing off: every
// method returns what it was given.
type Tracing struct {
	tracer   trace.Tracer
	provider trace.TracerProvider
	prop     propagation.TextMapPropagator
	shutdown func(context.Context) error
}

const scope = "github.com/trawlhq/trawl"

// New starts the OTLP/HTTP exporter of s; nil when tracing is off.
func New(ctx context.Context, s Settings, version string) (*Tracing, error) {
	if !s.Enabled {
		return nil, nil
	}
	exp, err := otlptracehttp.New(ctx)
	if err != nil {
		return nil, fmt.Errorf("OTLP trace exporter: %w", err)
	}
	res, err := resource.New(ctx, resource.WithFromEnv(), resource.WithTelemetrySDK(),
		resource.WithAttributes(semconv.ServiceName(s.ServiceName), semconv.ServiceVersion(version)))
	if err != nil && !errors.Is(err, resource.ErrPartialResource) {
		return nil, fmt.Errorf("OTEL_RESOURCE_ATTRIBUTES: %w", err)
	}
	// OTEL_SERVICE_NAME, read by WithFromEnv, wins over the default name.
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	t := WithProvider(tp)
	t.shutdown = tp.Shutdown
	return t, nil
}

// WithProvider traces to tp (tests give an SDK provider over an in-memory
// exporter).
func WithProvider(tp trace.TracerProvider) *Tracing {
	return &Tracing{tracer: tp.Tracer(scope), provider: tp, prop: propagation.TraceContext{}}
}

// Shutdown sends the spans still buffered and stops the exporter.
func (t *Tracing) Shutdown(ctx context.Context) error {
	if t == nil || t.shutdown == nil {
		return nil
	}
	return t.shutdown(ctx)
}

// TraceParent is the W3C traceparent of the span in ctx, "" when there is
// none: what a bulk job stores so its processing joins the trace of the
// request that created it.
func TraceParent(ctx context.Context) string {
	if !trace.SpanContextFromContext(ctx).IsValid() {
		return ""
	}
	c := propagation.MapCarrier{}
	propagation.TraceContext{}.Inject(ctx, c)
	return c["traceparent"]
}

// StartLinked starts a root span linked to the span a stored traceparent
// names (an invalid or empty one starts an unlinked span). Work done later
// for a request (a bulk job) is its own trace, found from the request's.
func (t *Tracing) StartLinked(ctx context.Context, name, traceparent string, attrs ...attribute.KeyValue) (context.Context, trace.Span) {
	if t == nil {
		return ctx, noop.Span{}
	}
	opts := []trace.SpanStartOption{trace.WithNewRoot(), trace.WithAttributes(attrs...)}
	remote := trace.SpanContextFromContext(t.prop.Extract(context.Background(), propagation.MapCarrier{"traceparent": traceparent}))
	if remote.IsValid() {
		opts = append(opts, trace.WithLinks(trace.Link{SpanContext: remote}))
	}
	return t.tracer.Start(ctx, name, opts...)
}

// start begins a child span of an internal operation.
func (t *Tracing) start(ctx context.Context, name string, attrs ...attribute.KeyValue) (context.Context, trace.Span) {
	return t.tracer.Start(ctx, name, trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(attrs...))
}

// end records the outcome of the work (ok, or err's kind) on span and ends it.
func end(span trace.Span, err error) {
	span.SetAttributes(outcome(err))
	if err != nil {
		span.SetStatus(codes.Error, failureKind(err))
	}
	span.End()
}

// RequestIDKey is the attribute naming the request id (X-Request-Id).
const RequestIDKey = attribute.Key("trawl.request_id")

// HTTP traces next, the outermost handler: one server span per request,
// named by its route pattern, with the request id the API gave it. skip
// leaves requests alone (RPCs, which the interceptor traces). A caller's
// traceparent is linked, not followed: the API is public.
func (t *Tracing) HTTP(next http.Handler, route func(*http.Request) string, skip func(*http.Request) bool) http.Handler {
	if t == nil {
		return next
	}
	type origKey struct{}
	inner := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		orig, _ := r.Context().Value(origKey{}).(*http.Request)
		if orig == nil {
			orig = r
		}
		next.ServeHTTP(w, orig.WithContext(r.Context()))
		span := trace.SpanFromContext(r.Context())
		if id := w.Header().Get("X-Request-Id"); id != "" {
			span.SetAttributes(RequestIDKey.String(id))
		}
	})
	h := otelhttpHandler(inner, t, skip)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if skip != nil && skip(r) {
			next.ServeHTTP(w, r)
			return
		}
		// The span sees the route pattern, never the path (ids, signed
		// links) nor the query; the handler gets the request unchanged.
		p := route(r)
		if p == "" {
			p = "unmatched"
		}
		shown := r.WithContext(context.WithValue(r.Context(), origKey{}, r))
		u := *r.URL
		u.Path, u.RawPath, u.RawQuery, u.Fragment = routePath(p), "", "", ""
		shown.URL = &u
		shown.RequestURI = ""
		shown.Pattern = p
		h.ServeHTTP(w, shown)
	})
}

// routePath is the path part of a route pattern ("POST /v1/content" ->
// "/v1/content").
func routePath(pattern string) string {
	if _, path, ok := strings.Cut(pattern, " "); ok {
		return path
	}
	return pattern
}

// Jobs is t as the bulk worker's ports.JobTracer; nil when tracing is off.
func (t *Tracing) Jobs() ports.JobTracer {
	if t == nil {
		return nil
	}
	return jobTracer{t}
}

type jobTracer struct{ t *Tracing }

func (j jobTracer) TraceParent(ctx context.Context) string { return TraceParent(ctx) }

func (j jobTracer) StartLinked(ctx context.Context, name, traceParent string) (context.Context, func(error)) {
	ctx, span := j.t.StartLinked(ctx, name, traceParent)
	return ctx, func(err error) { end(span, err) }
}
