package oteltrace_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/trawlhq/trawl/adapters/oteltrace"
	"github.com/trawlhq/trawl/ports"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestFromEnv(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		on   bool
		name string
	}{
		{map[string]string{}, false, "trawl"},
		{map[string]string{"OTEL_SERVICE_NAME": "trawl-eu"}, false, "trawl-eu"},
		{map[string]string{"OTEL_RESOURCE_ATTRIBUTES": "deployment.environment=prod,service.name=trawl-us"}, false, "trawl-us"},
		{map[string]string{"OTEL_RESOURCE_ATTRIBUTES": "service.name=trawl-us", "OTEL_SERVICE_NAME": "trawl-eu"}, false, "trawl-eu"},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"}, true, "trawl"},
		{map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://collector:4318/v1/traces"}, true, "trawl"},
		{map[string]string{"OTEL_TRACES_EXPORTER": "otlp"}, true, "trawl"},
		{map[string]string{"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"}, false, "trawl"},
		{map[string]string{"OTEL_SDK_DISABLED": "true", "OTEL_TRACES_EXPORTER": "otlp"}, false, "trawl"},
		{map[string]string{"OTEL_SDK_DISABLED": "false", "OTEL_TRACES_EXPORTER": "otlp"}, true, "trawl"},
		{map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/protobuf", "OTEL_TRACES_EXPORTER": "otlp"}, true, "trawl"},
	} {
		s, err := oteltrace.FromEnv(env(c.env))
		if err != nil || s.Enabled != c.on || s.ServiceName != c.name {
			t.Errorf("%v: %+v, %v; want on=%v name=%s", c.env, s, err, c.on, c.name)
		}
	}
	for name, e := range map[string]map[string]string{
		"OTEL_TRACES_EXPORTER":        {"OTEL_TRACES_EXPORTER": "zipkin"},
		"OTEL_EXPORTER_OTLP_PROTOCOL": {"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc", "OTEL_TRACES_EXPORTER": "otlp"},
		"OTEL_SDK_DISABLED":           {"OTEL_SDK_DISABLED": "yes please"},
	} {
		if _, err := oteltrace.FromEnv(env(e)); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%v: %v, want an error naming %s", e, err, name)
		}
	}
}

func newTracing() (*oteltrace.Tracing, *tracetest.InMemoryExporter) {
	exp := tracetest.NewInMemoryExporter()
	return oteltrace.WithProvider(sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))), exp
}

func TestTraceParentAndLinkedSpan(t *testing.T) {
	tr, exp := newTracing()
	if got := oteltrace.TraceParent(context.Background()); got != "" {
		t.Errorf("no span: traceparent %q", got)
	}
	ctx, span := tr.StartLinked(context.Background(), "request", "")
	tp := oteltrace.TraceParent(ctx)
	sc := span.SpanContext()
	if want := "00-" + sc.TraceID().String() + "-" + sc.SpanID().String() + "-01"; tp != want {
		t.Fatalf("traceparent %q, want %q", tp, want)
	}
	span.End()

	// Later, elsewhere: the job's span is a new trace linked to the request.
	ctx2, job := tr.StartLinked(context.Background(), "bulk.job", tp)
	job.End()
	spans := exp.GetSpans()
	got := spans[len(spans)-1]
	if got.Name != "bulk.job" || got.Parent.IsValid() || got.SpanContext.TraceID() == sc.TraceID() {
		t.Fatalf("job span %s: parent %v, trace %s", got.Name, got.Parent, got.SpanContext.TraceID())
	}
	if len(got.Links) != 1 || got.Links[0].SpanContext.TraceID() != sc.TraceID() || got.Links[0].SpanContext.SpanID() != sc.SpanID() {
		t.Fatalf("links %+v, want the request's span", got.Links)
	}
	if oteltrace.TraceParent(ctx2) == tp {
		t.Error("the job has the request's traceparent")
	}
	for _, bad := range []string{"garbage", "00-00000000000000000000000000000000-0000000000000000-01"} {
		_, s := tr.StartLinked(context.Background(), "bulk.job", bad)
		s.End()
		if l := exp.GetSpans()[len(exp.GetSpans())-1].Links; len(l) != 0 {
			t.Errorf("%q: links %v", bad, l)
		}
	}

	// Off: nothing is started and nothing is stored.
	var off *oteltrace.Tracing
	ctx3, s := off.StartLinked(context.Background(), "bulk.job", tp)
	s.End()
	if oteltrace.TraceParent(ctx3) != "" || s.SpanContext().IsValid() {
		t.Error("tracing off started a span")
	}
}

type renderFunc func(context.Context, ports.RenderRequest) (ports.RenderResponse, error)

func (f renderFunc) Render(ctx context.Context, r ports.RenderRequest) (ports.RenderResponse, error) {
	return f(ctx, r)
}

type model struct{ json bool }

func (m *model) Complete(context.Context, []ports.ChatMessage) (string, error) { return "ok", nil }
func (m *model) CompleteJSON(context.Context, []ports.ChatMessage, string, []byte) (string, error) {
	m.json = true
	return "{}", nil
}

func TestDecorators(t *testing.T) {
	tr, exp := newTracing()
	ctx, parent := tr.StartLinked(context.Background(), "request", "")
	r := tr.Renderer(renderFunc(func(ctx context.Context, req ports.RenderRequest) (ports.RenderResponse, error) {
		if !trace.SpanContextFromContext(ctx).IsValid() {
			t.Error("the renderer got no span")
		}
		if strings.Contains(req.URL.String(), "slow") {
			return ports.RenderResponse{}, &ports.RenderError{Reason: ports.RenderTimeout, Err: errors.New("timeout")}
		}
		return ports.RenderResponse{StatusCode: 200}, nil
	}))
	for _, raw := range []string{"https://shop.example/cart?session=abc123", "https://slow.example/x?token=trawl_secret"} {
		page, _ := url.Parse(raw)
		_, _ = r.Render(ctx, ports.RenderRequest{URL: page})
	}
	m := &model{}
	l := tr.LLM(m)
	sl, ok := l.(ports.StructuredLLM)
	if !ok {
		t.Fatal("the traced model lost CompleteJSON")
	}
	_, _ = sl.CompleteJSON(ctx, nil, "x", []byte(`{}`))
	if !m.json {
		t.Error("CompleteJSON did not reach the model")
	}
	parent.End()
	spans := exp.GetSpans()
	var renders []tracetest.SpanStub
	for _, s := range spans {
		if s.Name == "render" {
			renders = append(renders, s)
		}
		if s.Name != "request" && s.Parent.SpanID() != parent.SpanContext().SpanID() {
			t.Errorf("%s is not a child of the request", s.Name)
		}
		for _, a := range s.Attributes {
			if v := a.Value.String(); strings.Contains(v, "abc123") || strings.Contains(v, "trawl_secret") || strings.Contains(v, "/cart") {
				t.Errorf("%s: %s=%q", s.Name, a.Key, v)
			}
		}
	}
	if len(renders) != 2 {
		t.Fatalf("%d render spans", len(renders))
	}
	if renders[0].Status.Code.String() != "Unset" || renders[1].Status.Code.String() != "Error" || renders[1].Status.Description != "unavailable" {
		t.Errorf("statuses %v, %v", renders[0].Status, renders[1].Status)
	}
	hosts := map[string]bool{}
	for _, s := range renders {
		for _, a := range s.Attributes {
			if a.Key == oteltrace.HostKey {
				hosts[a.Value.AsString()] = true
			}
		}
	}
	if !hosts["shop.example"] || !hosts["slow.example"] {
		t.Errorf("hosts %v", hosts)
	}

	// Off: the ports come back as they were.
	var off *oteltrace.Tracing
	if off.LLM(m) != ports.LLM(m) || off.Ledger(nil) != nil || off.Renderer(nil) != nil {
		t.Error("tracing off wrapped a port")
	}
}

// TestExportsOverOTLPHTTP: with an endpoint set, spans reach an OTLP/HTTP
// receiver (here a local server) when the tracer shuts down.
func TestExportsOverOTLPHTTP(t *testing.T) {
	got := make(chan string, 10)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		got <- r.Method + " " + r.URL.Path + " " + r.Header.Get("Content-Type") + " " + strconv.Itoa(len(body)) + " " + string(body)
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	defer srv.Close()
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", srv.URL)
	s, err := oteltrace.FromEnv(os.Getenv)
	if err != nil || !s.Enabled {
		t.Fatalf("%+v, %v", s, err)
	}
	tr, err := oteltrace.New(context.Background(), s, "v1.2.3")
	if err != nil {
		t.Fatal(err)
	}
	_, span := tr.StartLinked(context.Background(), "bulk.job", "")
	span.End()
	if err := tr.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	select {
	case req := <-got:
		if !strings.HasPrefix(req, "POST /v1/traces application/x-protobuf ") || !strings.Contains(req, "bulk.job") || !strings.Contains(req, "trawl") || !strings.Contains(req, "v1.2.3") {
			t.Errorf("export: %.200q", req)
		}
	default:
		t.Fatal("no export reached the receiver")
	}
}
