// Package bulktest runs the bulk worker over a job store the way a process
// runs it (the real fetcher over local fixture sites, the real webhook
// sender, a local archive store and mail outbox) on the settable clock, so
// the same worker tests hold for the in-memory store and the SQL stores.
package bulktest

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/trawlhq/trawl/adapters/blob"
	"github.com/trawlhq/trawl/adapters/extract"
	"github.com/trawlhq/trawl/adapters/fetch"
	"github.com/trawlhq/trawl/adapters/smtpmail"
	"github.com/trawlhq/trawl/adapters/webhook"
	"github.com/trawlhq/trawl/core/billing"
	"github.com/trawlhq/trawl/core/bulk"
	"github.com/trawlhq/trawl/core/content"
	"github.com/trawlhq/trawl/core/credits"
	"github.com/trawlhq/trawl/ports"
	"github.com/trawlhq/trawl/testkit"
	"github.com/trawlhq/trawl/testkit/sites"
	"github.com/trawlhq/trawl/testkit/storetest"
)

// Stores is what the worker needs of a store.
type Stores interface {
	storetest.Stores
	ports.JobStore
}

// Opener returns a new, empty store for one test.
type Opener func(t *testing.T) Stores

// Run runs every worker test over stores from open.
func Run(t *testing.T, open Opener) {
	t.Run("WaitsOnTheClock", func(t *testing.T) { testWaitsOnTheClock(t, open(t)) })
	t.Run("DrainOnShutdown", func(t *testing.T) { testDrainOnShutdown(t, open(t)) })
	t.Run("DrainRunsOut", func(t *testing.T) { testDrainRunsOut(t, open(t)) })
}

var t0 = time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)

// Env is a store, a clock, a fixture site and the worker's dependencies.
type Env struct {
	T       *testing.T
	Store   Stores
	Clock   *testkit.Clock
	Ledger  *credits.Ledger
	Site    *sites.Site
	Hooks   *Receiver
	Account ports.Account
	deps    bulk.WorkerDeps
}

// New builds an environment over store with an account on the basic plan.
func New(t *testing.T, store Stores) *Env {
	e := &Env{T: t, Store: store, Clock: testkit.NewClock(t0), Site: sites.New(t, "pages.test"), Hooks: NewReceiver(t)}
	resolve := sites.Resolve(e.Site)
	resolve[e.Hooks.HostKey] = strings.TrimPrefix(e.Hooks.Server.URL, "http://")
	fetcher := fetch.New(fetch.Options{Resolve: resolve, Timeout: 5 * time.Second, LookupIP: func(_ context.Context, host string) ([]netip.Addr, error) {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}})
	var err error
	if e.Ledger, err = credits.NewLedger(store, e.Clock); err != nil {
		t.Fatal(err)
	}
	biller, err := credits.NewBiller(e.Ledger, store, e.Clock, billing.DefaultPlans())
	if err != nil {
		t.Fatal(err)
	}
	pages, err := content.NewService(fetcher, extract.New(), biller)
	if err != nil {
		t.Fatal(err)
	}
	hooks, err := webhook.New(fetcher)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	mailer, err := smtpmail.NewOutbox(filepath.Join(dir, "outbox"))
	if err != nil {
		t.Fatal(err)
	}
	files, err := blob.NewLocal(filepath.Join(dir, "files"), []byte("test-link-secret-0123456789"), "http://trawl.test", e.Clock.Now)
	if err != nil {
		t.Fatal(err)
	}
	e.deps = bulk.WorkerDeps{Jobs: store, Accounts: store, Ledger: e.Ledger, Pages: pages, Webhooks: hooks, Mailer: mailer, Blobs: files, Clock: e.Clock}
	e.Account, err = store.CreateAccount(context.Background(), ports.Account{Name: "N", Email: "jobs@example.com", Plan: "basic", CreatedAt: t0, UpdatedAt: t0, EmailVerifiedAt: &t0})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// Worker builds a worker (a process of its own: its own lease owner).
func (e *Env) Worker(o bulk.WorkerOptions) *bulk.Worker {
	w, err := bulk.NewWorker(e.deps, o)
	if err != nil {
		e.T.Fatal(err)
	}
	return w
}

// Job holds 2 credits per URL and queues a job as Submit does.
func (e *Env) Job(id string, urls []string, callback string) {
	e.T.Helper()
	ctx := context.Background()
	h, err := e.Ledger.Reserve(ctx, ports.ReserveRequest{AccountID: e.Account.ID, Amount: int64(bulk.CostPerURL * len(urls)), TTL: bulk.HoldTTL})
	if err != nil {
		e.T.Fatal(err)
	}
	j := ports.BulkJob{ID: id, AccountID: e.Account.ID, TokenID: 1, Status: ports.JobQueued, URLSource: ports.SourceURLs, Email: callback == "", CallbackURL: callback,
		HoldID: h.ID, QueuedAt: e.Clock.Now(), Render: "never"}
	if err := e.Store.CreateJob(ctx, j, urls); err != nil {
		e.T.Fatal(err)
	}
}

// Start runs w until the returned stop is called; stop returns when Run has.
func (e *Env) Start(w *bulk.Worker) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { w.Run(ctx); close(done) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			select {
			case <-done:
			case <-time.After(20 * time.Second):
				e.T.Error("the worker did not stop")
			}
		})
	}
	e.T.Cleanup(stop)
	return stop
}

// Eventually waits (real time) until cond holds.
func (e *Env) Eventually(what string, cond func() bool) {
	e.T.Helper()
	for deadline := time.Now().Add(15 * time.Second); !cond(); time.Sleep(2 * time.Millisecond) {
		if time.Now().After(deadline) {
			e.T.Fatalf("timed out waiting: %s", what)
		}
	}
}

// URLs reads a job's URLs.
func (e *Env) URLs(id string) []ports.BulkURL {
	e.T.Helper()
	urls, err := e.Store.JobURLs(context.Background(), id)
	if err != nil {
		e.T.Fatal(err)
	}
	return urls
}

// JobState reads a job.
func (e *Env) JobState(id string) ports.BulkJob {
	e.T.Helper()
	j, err := e.Store.Job(context.Background(), id)
	if err != nil {
		e.T.Fatal(err)
	}
	return j
}

// Charges counts the bulk charges of a job in the account's transactions.
func (e *Env) Charges(id string) map[string]int {
	e.T.Helper()
	txs, _, err := e.Store.Transactions(context.Background(), e.Account.ID, 1000, 0)
	if err != nil {
		e.T.Fatal(err)
	}
	out := map[string]int{}
	for _, tx := range txs {
		if tx.ServiceType == string(billing.BulkContent) && tx.Metadata.JobID == id {
			out[tx.Metadata.URL]++
		}
	}
	return out
}

// Balance is the account's balance and the credits still held.
func (e *Env) Balance() (balance, held int64) {
	e.T.Helper()
	st, held, err := e.Store.ReadCredits(context.Background(), e.Account.ID, e.Clock.Now())
	if err != nil {
		e.T.Fatal(err)
	}
	return billing.DefaultPlans().Balance(st), held
}

// Receiver records webhook deliveries; it answers 503 to the first Fail.
type Receiver struct {
	Server  *httptest.Server
	HostKey string // hooks.test:<port>
	mu      sync.Mutex
	fail    int
	got     [][]byte
}

// NewReceiver starts a webhook receiver.
func NewReceiver(t *testing.T) *Receiver {
	r := &Receiver{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.got = append(r.got, b)
		failing := r.fail > 0
		if failing {
			r.fail--
		}
		r.mu.Unlock()
		if failing {
			http.Error(w, "not now", http.StatusServiceUnavailable)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(r.Server.Close)
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(r.Server.URL, "http://"))
	r.HostKey = "hooks.test:" + port
	return r
}

// URL is the callback URL of the receiver.
func (r *Receiver) URL() string { return "http://" + r.HostKey + "/trawl" }

// FailNext makes the next n deliveries fail.
func (r *Receiver) FailNext(n int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.fail = n
}

// Count is the number of deliveries received.
func (r *Receiver) Count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.got)
}

// Gate holds requests to a path until opened, counting those waiting.
type Gate struct {
	mu      sync.Mutex
	waiting int
	open    chan struct{}
}

// NewGate serves prefix on site: each request waits for Open (or the
// client to give up), then answers an article.
func NewGate(site *sites.Site, prefix string) *Gate {
	g := &Gate{open: make(chan struct{})}
	site.Mux.HandleFunc(prefix, func(w http.ResponseWriter, r *http.Request) {
		g.mu.Lock()
		g.waiting++
		g.mu.Unlock()
		select {
		case <-g.open:
		case <-r.Context().Done():
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, "<html><head><title>%s</title></head><body><article><h1>Page %s</h1><p>%s</p><p>%s</p></article></body></html>",
			r.URL.Path, r.URL.Path, strings.Repeat("Tide pools hold anemones, crabs and snails between the tides. ", 6), strings.Repeat("Shade decides which animals last the summer. ", 6))
	})
	return g
}

// Waiting counts requests held so far (including released ones).
func (g *Gate) Waiting() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.waiting
}

// Open lets every held and future request through.
func (g *Gate) Open() { close(g.open) }
