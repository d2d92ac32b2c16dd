package app

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/trawlhq/trawl/adapters/clock"
	trawlv1 "github.com/trawlhq/trawl/adapters/connectapi/gen/trawl/v1"
	"github.com/trawlhq/trawl/adapters/connectapi/gen/trawl/v1/trawlv1connect"
	"github.com/trawlhq/trawl/adapters/limiter"
	"github.com/trawlhq/trawl/adapters/oteltrace"
	"github.com/trawlhq/trawl/core/service"
	"github.com/trawlhq/trawl/testkit/fakellm"
	"github.com/trawlhq/trawl/testkit/fakesearch"
	"github.com/trawlhq/trawl/testkit/sites"
)

// traced is the server as the binary assembles it (SQLite store, the real
// outbound adapters pointed at fixture servers), with tracing t.
type traced struct {
	srv   *httptest.Server
	token string
}

func startTraced(t testing.TB, tr *oteltrace.Tracing) traced {
	t.Helper()
	site := sites.New(t, "shore.test")
	site.Handle("/tides", "text/html", `<html><head><title>Tide pools</title></head><body><article><h1>Tide pools</h1>
<p>Tides rise and fall twice a day, and the pools they leave behind are full of life, from anemones to crabs and snails.</p>
<p>Shade and depth decide which animals survive the summer heat in those pools, researchers found in a study of forty pools.</p></article></body></html>`)
	eng := fakesearch.New(t, "google")
	eng.Serve(fakesearch.Result{Title: "Tide pools", Link: "http://shore.test/tides", Snippet: "Life in the pools."})
	model := fakellm.New(t)
	c := DefaultConfig()
	c.DataDir, c.BrowserOff, c.Resolve = t.TempDir(), true, sites.ResolveFlags(site)
	c.SearchGoogleURL, c.LLMBaseURL, c.LLMModel = eng.URL, model.BaseURL(), "test-model"
	ctx := context.Background()
	store, err := OpenStore(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	out, err := NewOutbound(c, Observers{Tracing: tr})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { out.Close() })
	clk := clock.System{}
	pay, err := NewPaymentProvider(store.Stores, clk, c)
	if err != nil {
		t.Fatal(err)
	}
	lim, _ := limiter.NewMemory(clk)
	o := c.ServiceOptions()
	o.WrapLedger = Observers{Tracing: tr}.Ledger
	o.Jobs = tr.Jobs()
	log := slog.New(slog.DiscardHandler)
	o.Logger = log
	svc, err := service.New(store.Stores, out.With(clk, pay, lim), o)
	if err != nil {
		t.Fatal(err)
	}
	api, _, err := NewHandler(svc, HandlerOptions{Ready: store.Ping, Logger: log, Tracing: tr, Files: out.Files})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(Trace(Instrument(api, nil), api.Route, tr))
	srv.Config.Protocols = ServerProtocols()
	srv.Start()
	t.Cleanup(srv.Close)
	a, err := svc.Auth.CreateAccount(ctx, "tracer@example.com", "", "business")
	if err != nil {
		t.Fatal(err)
	}
	tok, err := svc.Auth.CreateToken(ctx, a.ID, "test")
	if err != nil {
		t.Fatal(err)
	}
	return traced{srv: srv, token: tok.Secret}
}

func (s traced) get(t testing.TB, path string, header ...string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest("GET", s.srv.URL+path, nil)
	req.Header.Set("Authorization", "Bearer "+s.token)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := s.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res
}

func spanNamed(spans tracetest.SpanStubs, name string) *tracetest.SpanStub {
	for i := range spans {
		if spans[i].Name == name {
			return &spans[i]
		}
	}
	return nil
}

func attr(s *tracetest.SpanStub, key string) string {
	for _, a := range s.Attributes {
		if string(a.Key) == key {
			return a.Value.String()
		}
	}
	return ""
}

// children are the spans under root, at any depth, by name.
func children(spans tracetest.SpanStubs, root *tracetest.SpanStub) map[string]int {
	parents := map[string]string{}
	for _, s := range spans {
		parents[s.SpanContext.SpanID().String()] = s.Parent.SpanID().String()
	}
	out := map[string]int{}
	for _, s := range spans {
		for p := s.Parent.SpanID().String(); p != ""; p = parents[p] {
			if p == root.SpanContext.SpanID().String() {
				out[s.Name]++
				break
			}
			if _, ok := parents[p]; !ok {
				break
			}
		}
	}
	return out
}

// noSecrets fails when an attribute of any span carries what must never
// leave Trawl: a URL's path or query, the token, the account's email.
func noSecrets(t *testing.T, spans tracetest.SpanStubs, token string) {
	t.Helper()
	for _, s := range spans {
		for _, a := range s.Attributes {
			v := a.Value.String()
			for _, bad := range []string{"/tides", "url=", "?", token, "tracer@example.com", "Bearer"} {
				if strings.Contains(v, bad) {
					t.Errorf("span %s: %s=%q carries %q", s.Name, a.Key, v, bad)
				}
			}
		}
	}
}

func TestTracesRESTAndRPC(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	defer tp.Shutdown(context.Background())
	s := startTraced(t, oteltrace.WithProvider(tp))

	// REST: a grounded prompt fetches, extracts, asks the model and bills.
	// The caller's traceparent is linked, not followed: the API is public.
	caller := "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
	req, _ := http.NewRequest("POST", s.srv.URL+"/v1/prompt?via=test", strings.NewReader(`{"prompt":"What lives in the pools?","url":"http://shore.test/tides?utm=secret"}`))
	req.Header.Set("Authorization", "Bearer "+s.token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Request-Id", "req-trace-rest-1")
	req.Header.Set("Traceparent", caller)
	res, err := s.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("prompt = %d %s", res.StatusCode, body)
	}
	spans := exp.GetSpans()
	root := spanNamed(spans, "POST /v1/prompt")
	if root == nil {
		t.Fatalf("no server span among %v", names(spans))
	}
	if got := attr(root, "trawl.request_id"); got != "req-trace-rest-1" {
		t.Errorf("request id = %q", got)
	}
	if got := attr(root, "http.route"); got != "/v1/prompt" {
		t.Errorf("http.route = %q", got)
	}
	if root.Parent.IsValid() || len(root.Links) != 1 || root.Links[0].SpanContext.TraceID().String() != "0af7651916cd43dd8448eb211c80319c" {
		t.Errorf("the caller's trace: parent %v, links %v", root.Parent, root.Links)
	}
	kids := children(spans, root)
	for _, want := range []string{"fetch", "extract", "llm", "ledger.reserve", "ledger.settle"} {
		if kids[want] == 0 {
			t.Errorf("no %s span under the request: %v", want, kids)
		}
	}
	if f := spanNamed(spans, "fetch"); f == nil || attr(f, "server.address") != "shore.test" || attr(f, "http.response.status_code") != "200" {
		t.Errorf("fetch span: %+v", f)
	}
	noSecrets(t, spans, s.token)

	// RPC: a search with content searches, fetches, extracts and bills.
	exp.Reset()
	client := trawlv1connect.NewSearchServiceClient(s.srv.Client(), s.srv.URL)
	rreq := connect.NewRequest(&trawlv1.SearchContentRequest{Q: "tide pools trawl@example.com"})
	rreq.Header().Set("Authorization", "Bearer "+s.token)
	rreq.Header().Set("X-Request-Id", "req-trace-rpc-1")
	if _, err := client.SearchContent(context.Background(), rreq); err != nil {
		t.Fatal(err)
	}
	spans = exp.GetSpans()
	root = spanNamed(spans, "trawl.v1.SearchService/SearchContent")
	if root == nil {
		t.Fatalf("no RPC server span among %v", names(spans))
	}
	if got := attr(root, "trawl.request_id"); got != "req-trace-rpc-1" {
		t.Errorf("RPC request id = %q", got)
	}
	kids = children(spans, root)
	for _, want := range []string{"search", "fetch", "extract", "ledger.reserve", "ledger.settle"} {
		if kids[want] == 0 {
			t.Errorf("no %s span under the RPC: %v", want, kids)
		}
	}
	if spanNamed(spans, "POST /trawl.v1.SearchService/SearchContent") != nil {
		t.Error("an RPC has a second server span from the HTTP handler")
	}
	if sp := spanNamed(spans, "search"); sp == nil || attr(sp, "trawl.search.engine") != "google" {
		t.Errorf("search span: %+v", sp)
	}
	noSecrets(t, spans, s.token)
	for _, sp := range spans {
		for _, a := range sp.Attributes {
			if strings.Contains(a.Value.String(), "tide pools") {
				t.Errorf("span %s carries the query in %s", sp.Name, a.Key)
			}
		}
	}
}

func names(spans tracetest.SpanStubs) []string {
	var out []string
	for _, s := range spans {
		out = append(out, s.Name)
	}
	return out
}

// TestTracingOffByDefault: with no OTEL_* variable the configuration has
// tracing off, the server gets no tracer, and the handler chain is the one
// without tracing.
func TestTracingOffByDefault(t *testing.T) {
	c, err := DefaultConfig().FromEnv(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if c.Tracing.Enabled {
		t.Fatal("tracing on without any OTEL_* variable")
	}
	tr, err := oteltrace.New(context.Background(), c.Tracing, Version)
	if err != nil || tr != nil {
		t.Fatalf("tracer = %v, %v; want none", tr, err)
	}
	h := http.NewServeMux()
	if got := Trace(h, func(*http.Request) string { return "" }, tr); got != http.Handler(h) {
		t.Error("tracing off still wraps the handler")
	}
	s := startTraced(t, nil)
	if res := s.get(t, "/v1/credits"); res.StatusCode != 200 {
		t.Fatalf("credits = %d", res.StatusCode)
	}
}

// BenchmarkRequestTracing measures one authenticated request (GET
// /v1/credits, in process) without the tracing layer, with tracing off
// (the configuration's default) and with tracing on.
func BenchmarkRequestTracing(b *testing.B) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	defer tp.Shutdown(context.Background())
	for _, c := range []struct {
		name string
		tr   *oteltrace.Tracing
	}{{"off", nil}, {"on", oteltrace.WithProvider(tp)}} {
		s := startTraced(b, c.tr)
		h := s.srv.Config.Handler
		b.Run(c.name, func(b *testing.B) {
			req := httptest.NewRequest("GET", "/v1/credits", nil)
			req.Header.Set("Authorization", "Bearer "+s.token)
			for b.Loop() {
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				if rec.Code != 200 {
					b.Fatal(rec.Code)
				}
				exp.Reset()
			}
		})
	}
}

// A bulk job's processing is its own trace, linked to the request that
// queued it.
func TestBulkJobLinkedToItsRequest(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	defer tp.Shutdown(context.Background())
	s := startTraced(t, oteltrace.WithProvider(tp))
	req, _ := http.NewRequest("POST", s.srv.URL+"/v1/content/bulk", strings.NewReader(`{"urls":["http://shore.test/tides"],"email":true,"sync":true}`))
	req.Header.Set("Authorization", "Bearer "+s.token)
	req.Header.Set("Content-Type", "application/json")
	res, err := s.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode/100 != 2 {
		t.Fatalf("bulk = %d %s", res.StatusCode, body)
	}
	var root, job *tracetest.SpanStub
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		spans := exp.GetSpans()
		root, job = spanNamed(spans, "POST /v1/content/bulk"), spanNamed(spans, "bulk.job")
		if root != nil && job != nil {
			break
		}
	}
	if root == nil || job == nil {
		t.Fatalf("spans: %v", names(exp.GetSpans()))
	}
	if job.Parent.IsValid() || len(job.Links) != 1 || job.Links[0].SpanContext.SpanID() != root.SpanContext.SpanID() {
		t.Fatalf("bulk.job: parent %v, links %v; want a root span linked to %v", job.Parent, job.Links, root.SpanContext.SpanID())
	}
	if kids := children(exp.GetSpans(), job); kids["fetch"] == 0 || kids["extract"] == 0 {
		t.Errorf("the job's work is not under its span: %v", kids)
	}
}
