package oteltrace

import (
	"context"
	"io"
	"net/url"

	"go.opentelemetry.io/otel/attribute"

	"github.com/trawlhq/trawl/core/content"
	"github.com/trawlhq/trawl/core/prompt"
	"github.com/trawlhq/trawl/core/search"
	"github.com/trawlhq/trawl/core/weburl"
	"github.com/trawlhq/trawl/ports"
)

// Attribute keys of the child spans.
const (
	HostKey    = attribute.Key("server.address") // the host of a fetched or rendered page
	EngineKey  = attribute.Key("trawl.search.engine")
	StatusKey  = attribute.Key("http.response.status_code")
	OutcomeKey = attribute.Key("trawl.outcome") // ok or the failure kind
	CreditsKey = attribute.Key("trawl.credits")
	ServiceKey = attribute.Key("trawl.service")
)

// failureKind is the kind of the failure err is shown to a caller as (a
// fetcher's or renderer's typed reason counts as its worded failure).
func failureKind(err error) string { return weburl.Kind(err).String() }

// host is the host of a URL, "" when it has none: never its path or query.
func host(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return u.Hostname()
}

// urlHost is a parsed URL's host, "" for none.
func urlHost(u *url.URL) string {
	if u == nil {
		return ""
	}
	return u.Hostname()
}

func outcome(err error) attribute.KeyValue {
	if err == nil {
		return OutcomeKey.String("ok")
	}
	return OutcomeKey.String(failureKind(err))
}

// Fetcher traces page fetches ("fetch", with the host and status). A
// fetcher that streams (the sitemap reader's) streams through it, traced
// alike.
func (t *Tracing) Fetcher(f ports.Fetcher) ports.Fetcher {
	if t == nil || f == nil {
		return f
	}
	if s, ok := f.(streamer); ok {
		return streamingFetcher{fetcher{f, t}, s}
	}
	return fetcher{f, t}
}

// streamer is a fetcher that hands the body to a reader as it arrives.
type streamer interface {
	Stream(ctx context.Context, r ports.FetchRequest, read func(ports.FetchResponse, io.Reader) error) error
}

type streamingFetcher struct {
	fetcher
	stream streamer
}

func (f streamingFetcher) Stream(ctx context.Context, r ports.FetchRequest, read func(ports.FetchResponse, io.Reader) error) error {
	ctx, span := f.t.start(ctx, "fetch", HostKey.String(urlHost(r.URL)))
	err := f.stream.Stream(ctx, r, func(res ports.FetchResponse, body io.Reader) error {
		span.SetAttributes(StatusKey.Int(res.StatusCode))
		return read(res, body)
	})
	end(span, err)
	return err
}

type fetcher struct {
	next ports.Fetcher
	t    *Tracing
}

func (f fetcher) Fetch(ctx context.Context, r ports.FetchRequest) (ports.FetchResponse, error) {
	ctx, span := f.t.start(ctx, "fetch", HostKey.String(urlHost(r.URL)))
	res, err := f.next.Fetch(ctx, r)
	if err == nil {
		span.SetAttributes(StatusKey.Int(res.StatusCode))
	}
	end(span, err)
	return res, err
}

// Renderer traces browser renders ("render").
func (t *Tracing) Renderer(r ports.Renderer) ports.Renderer {
	if t == nil || r == nil {
		return r
	}
	return renderer{r, t}
}

type renderer struct {
	next ports.Renderer
	t    *Tracing
}

func (r renderer) Render(ctx context.Context, req ports.RenderRequest) (ports.RenderResponse, error) {
	ctx, span := r.t.start(ctx, "render", HostKey.String(urlHost(req.URL)))
	res, err := r.next.Render(ctx, req)
	if err == nil {
		span.SetAttributes(StatusKey.Int(res.StatusCode))
	}
	end(span, err)
	return res, err
}

// Extractor traces main-content extraction ("extract").
func (t *Tracing) Extractor(e ports.Extractor) ports.Extractor {
	if t == nil || e == nil {
		return e
	}
	return extractor{e, t}
}

type extractor struct {
	next ports.Extractor
	t    *Tracing
}

func (e extractor) Extract(ctx context.Context, r ports.ExtractRequest) (ports.Extracted, error) {
	ctx, span := e.t.start(ctx, "extract", HostKey.String(host(r.URL)), attribute.Int("trawl.html_bytes", len(r.HTML)))
	res, err := e.next.Extract(ctx, r)
	end(span, content.ExtractFailure(err))
	return res, err
}

// SearchEngines traces each engine's searches ("search", with the engine;
// never the query).
func (t *Tracing) SearchEngines(engines []ports.SearchEngine) []ports.SearchEngine {
	if t == nil {
		return engines
	}
	out := make([]ports.SearchEngine, len(engines))
	for i, e := range engines {
		out[i] = engine{e, t}
	}
	return out
}

type engine struct {
	next ports.SearchEngine
	t    *Tracing
}

func (e engine) Name() string { return e.next.Name() }

func (e engine) Search(ctx context.Context, q ports.SearchQuery) (ports.SearchResults, error) {
	ctx, span := e.t.start(ctx, "search", EngineKey.String(e.next.Name()))
	res, err := e.next.Search(ctx, q)
	span.SetAttributes(attribute.Int("trawl.search.results", len(res.Organic)))
	end(span, search.EngineFailure(err))
	return res, err
}

// LLM traces completions ("llm"); a model that can be held to a JSON
// Schema keeps that ability.
func (t *Tracing) LLM(l ports.LLM) ports.LLM {
	if t == nil || l == nil {
		return l
	}
	if s, ok := l.(ports.StructuredLLM); ok {
		return structuredLLM{llm{s, t}, s}
	}
	return llm{l, t}
}

type llm struct {
	next ports.LLM
	t    *Tracing
}

func (l llm) Complete(ctx context.Context, m []ports.ChatMessage) (string, error) {
	ctx, span := l.t.start(ctx, "llm", attribute.Int("trawl.llm.messages", len(m)))
	out, err := l.next.Complete(ctx, m)
	end(span, prompt.LLMFailure(err))
	return out, err
}

type structuredLLM struct {
	llm
	s ports.StructuredLLM
}

func (l structuredLLM) CompleteJSON(ctx context.Context, m []ports.ChatMessage, name string, schema []byte) (string, error) {
	ctx, span := l.t.start(ctx, "llm", attribute.Int("trawl.llm.messages", len(m)), attribute.Bool("trawl.llm.json_schema", true))
	out, err := l.s.CompleteJSON(ctx, m, name, schema)
	end(span, prompt.LLMFailure(err))
	return out, err
}

// Ledger traces credit operations ("ledger.reserve", "ledger.settle",
// ...), with the credits moved and the service charged.
func (t *Tracing) Ledger(l ports.Ledger) ports.Ledger {
	if t == nil || l == nil {
		return l
	}
	return ledger{l, t}
}

type ledger struct {
	next ports.Ledger
	t    *Tracing
}

func (l ledger) Reserve(ctx context.Context, r ports.ReserveRequest) (ports.Hold, error) {
	ctx, span := l.t.start(ctx, "ledger.reserve", CreditsKey.Int64(r.Amount))
	h, err := l.next.Reserve(ctx, r)
	end(span, err)
	return h, err
}

func (l ledger) Settle(ctx context.Context, h ports.Hold, c ports.Charge) (ports.Transaction, error) {
	ctx, span := l.t.start(ctx, "ledger.settle", CreditsKey.Int64(c.Credits), ServiceKey.String(c.ServiceType))
	tx, err := l.next.Settle(ctx, h, c)
	end(span, err)
	return tx, err
}

func (l ledger) Release(ctx context.Context, h ports.Hold) error {
	ctx, span := l.t.start(ctx, "ledger.release", CreditsKey.Int64(h.Amount))
	err := l.next.Release(ctx, h)
	end(span, err)
	return err
}

func (l ledger) ChargeHold(ctx context.Context, h ports.Hold, c ports.Charge, key string) (ports.Transaction, bool, error) {
	ctx, span := l.t.start(ctx, "ledger.charge_hold", CreditsKey.Int64(c.Credits), ServiceKey.String(c.ServiceType))
	tx, charged, err := l.next.ChargeHold(ctx, h, c, key)
	span.SetAttributes(attribute.Bool("trawl.charged", charged))
	end(span, err)
	return tx, charged, err
}

func (l ledger) ChargeEach(ctx context.Context, h ports.Hold, items []ports.KeyedCharge) ([]ports.ChargeResult, error) {
	ctx, span := l.t.start(ctx, "ledger.charge_each", attribute.Int("trawl.items", len(items)))
	results, err := l.next.ChargeEach(ctx, h, items)
	charged := 0
	for _, r := range results {
		if r.Charged {
			charged++
		}
	}
	span.SetAttributes(attribute.Int("trawl.charged", charged))
	end(span, err)
	return results, err
}

func (l ledger) ReleasePart(ctx context.Context, h ports.Hold, credits int64) error {
	ctx, span := l.t.start(ctx, "ledger.release_part", CreditsKey.Int64(credits))
	err := l.next.ReleasePart(ctx, h, credits)
	end(span, err)
	return err
}

// Webhooks traces webhook attempts ("webhook", with the receiver's host
// and status).
func (t *Tracing) Webhooks(w ports.WebhookSender) ports.WebhookSender {
	if t == nil || w == nil {
		return w
	}
	return webhooks{w, t}
}

type webhooks struct {
	ports.WebhookSender
	t *Tracing
}

func (w webhooks) Send(ctx context.Context, hook ports.Webhook) (int, error) {
	ctx, span := w.t.start(ctx, "webhook", HostKey.String(host(hook.URL)))
	code, err := w.WebhookSender.Send(ctx, hook)
	if code != 0 {
		span.SetAttributes(StatusKey.Int(code))
	}
	end(span, err)
	return code, err
}

// Mailer traces sent mail ("mail"; no address is recorded).
func (t *Tracing) Mailer(m ports.Mailer) ports.Mailer {
	if t == nil || m == nil {
		return m
	}
	return mailer{m, t}
}

type mailer struct {
	next ports.Mailer
	t    *Tracing
}

func (m mailer) Send(ctx context.Context, msg ports.Mail) error {
	ctx, span := m.t.start(ctx, "mail")
	err := m.next.Send(ctx, msg)
	end(span, err)
	return err
}
