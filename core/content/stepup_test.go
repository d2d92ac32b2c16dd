package content_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/trawlhq/trawl/adapters/extract"
	"github.com/trawlhq/trawl/adapters/fetch"
	"github.com/trawlhq/trawl/core/billing"
	"github.com/trawlhq/trawl/core/content"
	"github.com/trawlhq/trawl/core/credits"
	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/ports"
	"github.com/trawlhq/trawl/testkit"
	"github.com/trawlhq/trawl/testkit/fakerender"
	"github.com/trawlhq/trawl/testkit/memstore"
	"github.com/trawlhq/trawl/testkit/sites"
)

var (
	t0      = time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	article = strings.Repeat("The harbour reopened on Monday after the storm moved north, and the ferries ran again. ", 8)
)

// stepRig is the page pipeline with real parts: the HTTP fetcher and the
// extractor against a fixture site, and the in-process renderer over the
// same site, billed on an in-memory ledger.
type stepRig struct {
	site    *sites.Site
	browser *fakerender.Renderer
	svc     *content.Service
	store   *memstore.Store
	call    credits.Call
	account int64
}

func newStepRig(t *testing.T, render bool) *stepRig {
	t.Helper()
	site := sites.New(t, "news.test")
	f := fetch.New(fetch.Options{Resolve: sites.Resolve(site)})
	store := memstore.New()
	clock := testkit.NewClock(t0)
	ctx := context.Background()
	acct, err := store.CreateAccount(ctx, ports.Account{Email: "a@example.com", Plan: "basic", CreatedAt: t0, UpdatedAt: t0})
	if err != nil {
		t.Fatal(err)
	}
	tok, err := store.CreateToken(ctx, ports.Token{AccountID: acct.ID, Hash: "h", CreatedAt: t0}, 5)
	if err != nil {
		t.Fatal(err)
	}
	ledger, err := credits.NewLedger(store, clock)
	if err != nil {
		t.Fatal(err)
	}
	biller, err := credits.NewBiller(ledger, store, clock, billing.DefaultPlans())
	if err != nil {
		t.Fatal(err)
	}
	rig := &stepRig{site: site, store: store, account: acct.ID,
		call: credits.Call{Principal: ports.Principal{Account: acct.Caller(), Token: tok.Caller()}, RequestID: "req_1"}}
	var opts []content.Option
	if render {
		rig.browser = fakerender.New(site.Mux, fakerender.Options{Guard: f, Timeout: 200 * time.Millisecond})
		opts = append(opts, content.WithRenderer(rig.browser))
	}
	rig.svc, err = content.NewService(f, extract.New(), biller, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return rig
}

// page serves body as HTML at path.
func (r *stepRig) page(path, body string) string {
	r.site.Handle(path, "text/html; charset=utf-8", body)
	return r.site.URL(path)
}

// served serves body to the fetcher and browser to the browser: a
// challenge a browser passes, say.
func (r *stepRig) served(path, body, browser string) string {
	r.site.Mux.HandleFunc(path, func(w http.ResponseWriter, req *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		page := body
		if strings.Contains(req.UserAgent(), "fakerender") {
			page = browser
		}
		_, _ = w.Write([]byte(page))
	})
	return r.site.URL(path)
}

// hang serves a page that never finishes loading in the browser: its
// handler waits until the render gives up.
func (r *stepRig) hang(path string) string {
	r.site.Mux.HandleFunc(path, func(w http.ResponseWriter, req *http.Request) {
		if strings.Contains(req.UserAgent(), "fakerender") {
			<-req.Context().Done()
			return
		}
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte(fakerender.Page("Tides", "<article><p>"+article+"</p></article>")))
	})
	return r.site.URL(path)
}

func (r *stepRig) balance(t *testing.T) int64 {
	t.Helper()
	st, _, err := r.store.ReadCredits(context.Background(), r.account, t0)
	if err != nil {
		t.Fatal(err)
	}
	return billing.DefaultPlans().StatusOf(st, t0).Balance
}

func (r *stepRig) renders() int {
	if r.browser == nil {
		return 0
	}
	return len(r.browser.Renders())
}

// TestStepUpContent: in auto mode the content path reads a page again in
// the browser when the static page is a script shell or yields no main
// content (a block page); a render that fails fails the call, free; a
// page that needs no browser is not rendered. Each answer is billed once,
// at the content price, only when it succeeds.
func TestStepUpContent(t *testing.T) {
	shell := fakerender.Page("Harbour", "<article><h1>Harbour reopens</h1><p>"+article+"</p></article>")
	challenge := `<html><head><title>Just a moment...</title></head><body><div id="challenge-form"><p>Checking your browser before accessing news.test.</p></div></body></html>`
	denied := `<html><head><title>Access denied</title></head><body><h1>Access denied</h1><p>You don't have permission to access this page.</p></body></html>`
	static := `<html><head><title>Harbour</title></head><body><article><h1>Harbour reopens</h1><p>` + article + `</p></article></body></html>`
	cost := billing.Cost(billing.Content)
	for _, c := range []struct {
		name     string
		render   bool
		mode     content.RenderMode
		path     string
		body     string // "" : a page the browser never finishes loading
		browser  string // what the browser is served instead of body, if anything
		renders  int
		engine   content.Engine
		reason   failure.Reason // "" : success
		msgHas   string
		wantText string
	}{
		{name: "a script shell steps up", render: true, mode: content.RenderAuto, path: "/app", body: shell, renders: 1, engine: content.EngineBrowser, wantText: "ferries ran again"},
		{name: "a static article is not rendered", render: true, mode: content.RenderAuto, path: "/static", body: static, renders: 0, engine: content.EngineHTTP, wantText: "ferries ran again"},
		{name: "a block page steps up and the browser gets through", render: true, mode: content.RenderAuto, path: "/challenge", body: challenge, browser: static, renders: 1, engine: content.EngineBrowser, wantText: "ferries ran again"},
		{name: "a block page the browser sees too fails, free", render: true, mode: content.RenderAuto, path: "/denied", body: denied, renders: 1, reason: failure.ReasonBlocked, msgHas: "access-denied page"},
		{name: "a render that fails fails the call, free", render: true, mode: content.RenderAuto, path: "/hang", renders: 1, reason: failure.ReasonRenderFailed, msgHas: "did not finish loading"},
		{name: "never does not render a shell", render: true, mode: content.RenderNever, path: "/app", body: shell, renders: 0, reason: failure.ReasonNoMainContent},
		{name: "without a browser a shell says why", render: false, mode: content.RenderAuto, path: "/app", body: shell, renders: 0, reason: failure.ReasonNoMainContent, msgHas: "builds its content with JavaScript, and this server does not render pages"},
	} {
		t.Run(c.name, func(t *testing.T) {
			rig := newStepRig(t, c.render)
			var u string
			switch {
			case c.browser != "":
				u = rig.served(c.path, c.body, c.browser)
			case c.body != "":
				u = rig.page(c.path, c.body)
			default:
				u = rig.hang(c.path)
			}
			before := rig.balance(t)
			page, rc, err := rig.svc.Content(context.Background(), rig.call, u, c.mode)
			if got := rig.renders(); got != c.renders {
				t.Errorf("renders = %d, want %d", got, c.renders)
			}
			charged := before - rig.balance(t)
			if c.reason != "" {
				if failure.ReasonOf(err) != c.reason || !strings.Contains(failure.Public(err, ""), c.msgHas) {
					t.Fatalf("err = %v (reason %q), want %q saying %q", err, failure.ReasonOf(err), c.reason, c.msgHas)
				}
				if charged != 0 || rc.Charged != 0 {
					t.Errorf("a failed call cost %d (receipt %d)", charged, rc.Charged)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if page.Engine != c.engine || !strings.Contains(page.Markdown, c.wantText) {
				t.Errorf("engine %q, markdown %q", page.Engine, page.Markdown)
			}
			if charged != cost || rc.Charged != cost {
				t.Errorf("charged %d (receipt %d), want %d once", charged, rc.Charged, cost)
			}
		})
	}
}

// TestStepUpScrape: a scrape answers with the static HTML when the browser
// fails (it is an answer already), with the rendered DOM when the browser
// succeeds, and with the 422 a redirect gets when the page goes for a
// non-public address in the browser. Billed at the scrape price when it
// answers.
func TestStepUpScrape(t *testing.T) {
	cost := billing.Cost(billing.Scrape)
	t.Run("a shell is rendered", func(t *testing.T) {
		rig := newStepRig(t, true)
		u := rig.page("/app", fakerender.Page("Harbour", "<p>"+article+"</p>"))
		before := rig.balance(t)
		raw, rc, err := rig.svc.Scrape(context.Background(), rig.call, u, content.RenderAuto)
		if err != nil || raw.Engine != content.EngineBrowser || !strings.Contains(raw.HTML, "ferries ran again") || strings.Contains(raw.HTML, "<template") {
			t.Fatalf("scrape = %+v, %v", raw, err)
		}
		if rig.renders() != 1 || before-rig.balance(t) != cost || rc.Charged != cost {
			t.Errorf("renders %d, charged %d", rig.renders(), before-rig.balance(t))
		}
	})
	t.Run("a failed render falls back to the static HTML", func(t *testing.T) {
		rig := newStepRig(t, true)
		u := rig.hang("/hang")
		before := rig.balance(t)
		raw, rc, err := rig.svc.Scrape(context.Background(), rig.call, u, content.RenderAuto)
		if err != nil || raw.Engine != content.EngineHTTP || !strings.Contains(raw.HTML, "<template data-script>") {
			t.Fatalf("scrape = %+v, %v", raw, err)
		}
		if rig.renders() != 1 || before-rig.balance(t) != cost || rc.Charged != cost {
			t.Errorf("renders %d, charged %d", rig.renders(), before-rig.balance(t))
		}
	})
	t.Run("a page the browser takes to a non-public address is a 422", func(t *testing.T) {
		rig := newStepRig(t, true)
		rig.site.Mux.HandleFunc("/leave", func(w http.ResponseWriter, r *http.Request) {
			if strings.Contains(r.UserAgent(), "fakerender") {
				http.Redirect(w, r, "http://127.0.0.1/admin", http.StatusFound)
				return
			}
			w.Header().Set("Content-Type", "text/html")
			_, _ = w.Write([]byte(fakerender.Page("Harbour", "<p>"+article+"</p>")))
		})
		before := rig.balance(t)
		_, rc, err := rig.svc.Scrape(context.Background(), rig.call, rig.site.URL("/leave"), content.RenderAuto)
		fe, ok := failure.As(err)
		if !ok || fe.Kind != failure.Invalid || len(fe.Fields["url"]) != 1 || fe.Fields["url"][0] != "The url resolves to a non-public address." {
			t.Fatalf("err = %v, want the 422 naming url", err)
		}
		if before-rig.balance(t) != 0 || rc.Charged != 0 {
			t.Errorf("a refused scrape cost %d", before-rig.balance(t))
		}
	})
	t.Run("never keeps the shell", func(t *testing.T) {
		rig := newStepRig(t, true)
		u := rig.page("/app", fakerender.Page("Harbour", "<p>"+article+"</p>"))
		raw, _, err := rig.svc.Scrape(context.Background(), rig.call, u, content.RenderNever)
		if err != nil || raw.Engine != content.EngineHTTP || rig.renders() != 0 {
			t.Fatalf("scrape = %+v, %v, %d renders", raw, err, rig.renders())
		}
	})
}
