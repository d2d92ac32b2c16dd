// Package apitest starts Trawl's real HTTP API over a chosen store with a
// settable clock, and gives tests accounts, tokens and a small client.
package apitest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/trawlhq/trawl/adapters/blob"
	"github.com/trawlhq/trawl/adapters/connectapi"
	"github.com/trawlhq/trawl/adapters/extract"
	"github.com/trawlhq/trawl/adapters/fetch"
	"github.com/trawlhq/trawl/adapters/httpapi"
	"github.com/trawlhq/trawl/adapters/limiter"
	"github.com/trawlhq/trawl/adapters/llm"
	"github.com/trawlhq/trawl/adapters/password"
	"github.com/trawlhq/trawl/adapters/payment"
	"github.com/trawlhq/trawl/adapters/schema"
	"github.com/trawlhq/trawl/adapters/serp"
	"github.com/trawlhq/trawl/adapters/sitemapxml"
	"github.com/trawlhq/trawl/adapters/smtpmail"
	"github.com/trawlhq/trawl/adapters/textdiff"
	"github.com/trawlhq/trawl/adapters/webhook"
	"github.com/trawlhq/trawl/app"
	"github.com/trawlhq/trawl/core/account"
	"github.com/trawlhq/trawl/core/auth"
	"github.com/trawlhq/trawl/core/billing"
	"github.com/trawlhq/trawl/core/bulk"
	"github.com/trawlhq/trawl/core/content"
	"github.com/trawlhq/trawl/core/crawl"
	"github.com/trawlhq/trawl/core/credits"
	"github.com/trawlhq/trawl/core/service"
	"github.com/trawlhq/trawl/ports"
	"github.com/trawlhq/trawl/testkit"
	"github.com/trawlhq/trawl/testkit/storetest"
)

// Env is a running API.
type Env struct {
	T       testing.TB
	Store   storetest.Stores
	Clock   *testkit.Clock
	API     *httpapi.API
	Server  *httptest.Server
	Auth    *auth.Service
	Credits *credits.Service
	Biller  *credits.Biller
	Content *content.Service
	Fetcher *fetch.Client
	Bulk    *bulk.Service
	Worker  *bulk.Worker
	Crawl   *crawl.Service
	RPC     *connectapi.Server
	// Services are the application the deliveries serve.
	Services *service.Services
	// Outbox is the directory the mailer writes .eml files to.
	Outbox string
}

// Options adjust the environment before the API is built.
type Options struct {
	Payments ports.PaymentProvider
	Ledger   ports.LedgerStore
	// Mount adds routes to the API before the server starts.
	Mount func(*httpapi.API, *Env)
	// Resolve sends fixture host names to local servers (sites.Resolve).
	Resolve map[string]string
	// Engines are the base URLs of the search engines by name (fake servers).
	Engines map[string]string
	// LLMBaseURL points at an OpenAI-compatible server ("" = none configured).
	LLMBaseURL string
	// Mailer replaces the outbox mailer.
	Mailer ports.Mailer
	// NoWorker leaves bulk jobs queued (a test runs the worker itself).
	NoWorker bool
	// Worker tunes the bulk worker (tests shorten its waits).
	Worker bulk.WorkerOptions
	// Crawl tunes the crawl runner.
	Crawl crawl.RunnerOptions
	// LookupIP replaces the test resolver (LookupIP).
	LookupIP func(ctx context.Context, host string) ([]netip.Addr, error)
	// Logger receives both deliveries' and the bulk worker's logs (default: discarded).
	Logger *slog.Logger
	// MaxBodyBytes is both deliveries' request limit (default 1 MiB).
	MaxBodyBytes int64
	// Documents are the document converters of the content path (none:
	// documents are refused like any non-HTML response).
	Documents      map[ports.DocumentFormat]ports.DocumentConverter
	DocumentLimits content.DocumentLimits
	// Plans is the plan table (zero: the default one).
	Plans billing.Plans
	// CacheMaxBytes turns the page cache on with this bound, when the
	// store keeps its index (0: no page cache).
	CacheMaxBytes int64
	// Proxies is the fetch proxy pool by country.
	Proxies []fetch.Proxy
}

// Stores are the store ports a test store offers: the four every store has,
// and the jobs, crawls, credentials and payment records of those that keep them.
func Stores(store storetest.Stores) service.Stores {
	st := service.Stores{Accounts: store, Tokens: store, Ledger: store, Idempotency: store}
	if j, ok := store.(ports.JobStore); ok {
		st.Jobs = j
	}
	if l, ok := store.(ports.JobLister); ok {
		st.JobList = l
	}
	if cs, ok := store.(storetest.CrawlStores); ok {
		st.Crawls, st.Robots, st.Hosts = cs, cs, cs
	}
	if c, ok := store.(ports.CredentialStore); ok {
		st.Credentials = c
	}
	if p, ok := store.(ports.PaymentEventStore); ok {
		st.PaymentEvents = p
	}
	if p, ok := store.(ports.PlanCheckoutStore); ok {
		st.PlanCheckouts = p
	}
	if ci, ok := store.(ports.CacheIndex); ok {
		st.Cache = ci
	}
	if sn, ok := store.(ports.SnapshotStore); ok {
		st.Snapshots = sn
	}
	if m, ok := store.(ports.MonitorStore); ok {
		st.Monitors = m
	}
	return st
}

// LookupIP is the test resolver: every name fails to resolve except a few
// that stand for hostile DNS answers. Tests never touch the real DNS.
func LookupIP(_ context.Context, host string) ([]netip.Addr, error) {
	switch host {
	case "metadata.test":
		return []netip.Addr{netip.MustParseAddr("169.254.169.254")}, nil
	case "intranet.test":
		return []netip.Addr{netip.MustParseAddr("10.0.0.8")}, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

// Start builds the API over store and serves it.
func Start(t testing.TB, store storetest.Stores, o Options) *Env {
	t.Helper()
	e := &Env{T: t, Store: store, Clock: testkit.NewClock(time.Date(2026, 6, 15, 12, 0, 0, 0, time.UTC))}
	e.Server = httptest.NewUnstartedServer(nil)
	ledgerStore := o.Ledger
	if ledgerStore == nil {
		ledgerStore = store
	}
	stores := Stores(store)
	base0 := "http://" + e.Server.Listener.Addr().String()
	pay := o.Payments
	if pay == nil {
		// The server's provider: the local checkout, selling plans where
		// the store keeps plan checkouts.
		var err error
		if stores.PlanCheckouts != nil {
			pay, err = app.NewPaymentProvider(stores, e.Clock, app.Config{HTTPConfig: app.HTTPConfig{PublicURL: base0}})
		} else {
			pay, err = payment.NewLocal(store, e.Clock, base0)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	lim, err := limiter.NewMemory(e.Clock)
	if err != nil {
		t.Fatal(err)
	}
	lookup := o.LookupIP
	if lookup == nil {
		lookup = LookupIP
	}
	e.Fetcher = fetch.New(fetch.Options{Resolve: o.Resolve, LookupIP: lookup, Timeout: 5 * time.Second, Proxies: o.Proxies})
	disc, err := sitemapxml.New(e.Fetcher, sitemapxml.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	so := serp.ClientOptions{Timeout: 5 * time.Second}
	noNet := "http://127.0.0.1:1" // an engine a test did not configure fails at once
	base := func(name string) string {
		if u := o.Engines[name]; u != "" {
			return u
		}
		return noNet
	}
	dir := t.TempDir()
	e.Outbox = filepath.Join(dir, "outbox")
	var mailer ports.Mailer = o.Mailer
	if mailer == nil {
		if mailer, err = smtpmail.NewOutbox(e.Outbox); err != nil {
			t.Fatal(err)
		}
	}
	files, err := blob.NewLocal(filepath.Join(dir, "files"), []byte("test-link-secret-0123456789"), "http://"+e.Server.Listener.Addr().String(), e.Clock.Now)
	if err != nil {
		t.Fatal(err)
	}
	hooks, err := webhook.New(e.Fetcher)
	if err != nil {
		t.Fatal(err)
	}
	out := service.Outbound{
		Clock: e.Clock, Payments: pay, Limiter: lim,
		Fetcher: e.Fetcher, Guard: e.Fetcher, Extractor: extract.New(), Discoverer: disc,
		Engines:  []ports.SearchEngine{serp.NewGoogle(base("google"), so), serp.NewBing(base("bing"), so), serp.NewDuckDuckGo(base("duckduckgo"), so)},
		LLM:      llm.NewOpenAI(llm.Options{BaseURL: o.LLMBaseURL, Model: "test-model", BaseBackoff: time.Millisecond, AttemptTimeout: 5 * time.Second}),
		Schemas:  schema.New(),
		Webhooks: hooks, Mailer: mailer, Blobs: files,
		Documents: o.Documents,
		// Cheap hashing: the dashboard's tests sign in many times.
		Passwords: password.New(password.Params{MemoryKiB: 256, Time: 1, Threads: 1}),
		Differ:    textdiff.Differ{},
		Countries: e.Fetcher.Countries(),
	}
	wo := o.Worker
	if wo.Poll == 0 {
		wo.Poll = 20 * time.Millisecond
	}
	if wo.RetryBackoff == 0 {
		wo.RetryBackoff = 5 * time.Millisecond
	}
	if wo.WebhookTimeout == 0 {
		wo.WebhookTimeout = 2 * time.Second
	}
	stores.Ledger = ledgerStore
	svc, err := service.New(stores, out, service.Options{LLMContextChars: 2000, Worker: wo, Crawl: o.Crawl, Documents: o.DocumentLimits, Plans: o.Plans,
		Account: account.Options{PublicURL: base0}, LinkTTL: time.Hour, Logger: o.Logger,
		CacheMaxBytes: o.CacheMaxBytes})
	if err != nil {
		t.Fatal(err)
	}
	e.Services = svc
	e.Auth, e.Credits, e.Biller, e.Content, e.Bulk, e.Worker, e.Crawl = svc.Auth, svc.Credits, svc.Biller, svc.Content, svc.Bulk, svc.Worker, svc.Crawl
	if !o.NoWorker {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { e.Worker.Run(ctx); close(done) }()
		t.Cleanup(func() { cancel(); <-done })
	}
	e.API, e.RPC, err = app.NewHandler(svc, app.HandlerOptions{MaxBody: o.MaxBodyBytes, Logger: o.Logger, Files: files})
	if err != nil {
		t.Fatal(err)
	}
	if o.Mount != nil {
		o.Mount(e.API, e)
	}
	e.Server.Config.Protocols = new(http.Protocols)
	e.Server.Config.Protocols.SetHTTP1(true)
	e.Server.Config.Protocols.SetUnencryptedHTTP2(true)
	e.Server.Config.Handler = e.API.Handler()
	e.Server.Start()
	t.Cleanup(e.Server.Close)
	return e
}

// Account creates an account on a plan and returns it with a token secret.
func (e *Env) Account(email, plan string) (ports.Account, string) {
	e.T.Helper()
	ctx := context.Background()
	a, err := e.Auth.CreateAccount(ctx, email, "", plan)
	if err != nil {
		e.T.Fatal(err)
	}
	tok, err := e.Auth.CreateToken(ctx, a.ID, "test")
	if err != nil {
		e.T.Fatal(err)
	}
	return a, tok.Secret
}

// Response is a decoded answer.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// JSON decodes the body into a map.
func (r Response) JSON(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.Body, &m); err != nil {
		t.Fatalf("body is not a JSON object (%v): %s", err, r.Body)
	}
	return m
}

// Do sends a request; body may be nil, a string or a value to encode.
func (e *Env) Do(method, path, token string, body any, headers ...string) Response {
	e.T.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		raw, _ := json.Marshal(b)
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, e.Server.URL+path, rd)
	if err != nil {
		e.T.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := e.Server.Client().Do(req)
	if err != nil {
		e.T.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	out := Response{Status: res.StatusCode, Header: res.Header, Body: raw}
	checkOpenAPI(e.T, res.Request, out)
	return out
}
