package httpapi_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/trawlhq/trawl/adapters/httpapi"
	"github.com/trawlhq/trawl/core/crawl"
	"github.com/trawlhq/trawl/ports"
	"github.com/trawlhq/trawl/testkit/apitest"
	"github.com/trawlhq/trawl/testkit/crawlsite"
	"github.com/trawlhq/trawl/testkit/memstore"
	"github.com/trawlhq/trawl/testkit/sites"
)

func crawlEnv(t *testing.T, rcv *receiver, pages int, o apitest.Options) (*apitest.Env, string, ports.Account, *crawlsite.Site) {
	cs := crawlsite.New(pages)
	site := sites.New(t, "site.test")
	site.Mux.Handle("/", cs)
	resolve := sites.Resolve(site)
	if rcv != nil {
		resolve[rcv.hostKey] = strings.TrimPrefix(rcv.Server.URL, "http://")
	}
	o.Resolve = resolve
	if o.Crawl == (crawl.RunnerOptions{}) {
		o.Crawl = crawl.RunnerOptions{Poll: 20 * time.Millisecond, Backoff: 100 * time.Millisecond}
	}
	e := apitest.Start(t, memstore.New(), o)
	acct, tok := e.Account("dev@example.com", "business")
	return e, tok, acct, cs
}

// waitCrawl polls a crawl until it ends, moving the environment's clock on.
func waitCrawl(t *testing.T, e *apitest.Env, tok, id string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		m := e.Do("GET", "/v1/crawl/"+id, tok, nil).JSON(t)
		if s := m["status"]; s == "completed" || s == "failed" || s == "cancelled" {
			return m
		}
		time.Sleep(5 * time.Millisecond)
		e.Clock.Advance(20 * time.Millisecond)
	}
	t.Fatalf("crawl %s did not finish", id)
	return nil
}

func TestCrawlValidation(t *testing.T) {
	e, tok, _, _ := crawlEnv(t, nil, 5, apitest.Options{NoWorker: true})
	for _, c := range []struct {
		body  any
		field string
	}{
		{map[string]any{}, "url"},
		{map[string]any{"url": "ftp://site.test/"}, "url"},
		{map[string]any{"url": "http://site.test/", "limit": 0}, "limit"},
		{map[string]any{"url": "http://site.test/", "limit": 10001}, "limit"},
		{map[string]any{"url": "http://site.test/", "limit": "ten"}, "limit"},
		{map[string]any{"url": "http://site.test/", "max_depth": 21}, "max_depth"},
		{map[string]any{"url": "http://site.test/", "max_depth": -1}, "max_depth"},
		{map[string]any{"url": "http://site.test/", "include": "/blog/**"}, "include"},
		{map[string]any{"url": "http://site.test/", "exclude": []string{"/ok/**", "re:(bad"}}, "exclude.1"},
		{map[string]any{"url": "http://site.test/", "include": make([]string, 101)}, "include"},
		{map[string]any{"url": "http://site.test/", "scope": "world"}, "scope"},
		{map[string]any{"url": "http://site.test/", "sitemap": "maybe"}, "sitemap"},
		{map[string]any{"url": "http://site.test/", "ignore_query_params": []string{""}}, "ignore_query_params.0"},
		{map[string]any{"url": "http://site.test/", "render": "sometimes"}, "render"},
		{map[string]any{"url": "http://site.test/", "callback_url": "not a url"}, "callback_url"},
		{map[string]any{"url": "http://site.test/", "email": "yes"}, "email"},
	} {
		res := e.Do("POST", "/v1/crawl", tok, c.body)
		if res.Status != 422 || !strings.Contains(string(res.Body), `"`+c.field+`"`) {
			t.Errorf("%v: %d %s, want 422 naming %s", c.body, res.Status, res.Body, c.field)
		}
	}
	// Every bad value is named at once.
	res := e.Do("POST", "/v1/crawl", tok, map[string]any{"url": "http://site.test/", "limit": 0, "scope": "x", "sitemap": "y"})
	for _, f := range []string{"limit", "scope", "sitemap"} {
		if !strings.Contains(string(res.Body), `"`+f+`"`) {
			t.Errorf("all at once: %s lacks %s", res.Body, f)
		}
	}
	for _, q := range []string{"per_page=0", "per_page=101", "per_page=x", "cursor=abc"} {
		ack := e.Do("POST", "/v1/crawl", tok, map[string]any{"url": "http://site.test/", "limit": 1}).JSON(t)
		res := e.Do("GET", "/v1/crawl/"+ack["crawl_id"].(string)+"/pages?"+q, tok, nil)
		if res.Status != 422 {
			t.Errorf("pages?%s: %d %s", q, res.Status, res.Body)
		}
	}
}

func TestCrawlHoldAndOwnership(t *testing.T) {
	e, _, _, _ := crawlEnv(t, nil, 5, apitest.Options{NoWorker: true})
	acct, tok := e.Account("basic@example.com", "basic")
	st, _ := e.Credits.Status(context.Background(), acct.ID)
	// More pages than the balance covers: 402, nothing held.
	res := e.Do("POST", "/v1/crawl", tok, map[string]any{"url": "http://site.test/", "limit": int(st.Balance/2) + 1})
	if res.Status != 402 {
		t.Fatalf("over the balance: %d %s", res.Status, res.Body)
	}
	if now, _ := e.Credits.Status(context.Background(), acct.ID); now.Balance != st.Balance {
		t.Fatalf("a refused crawl held %d", st.Balance-now.Balance)
	}
	res = e.Do("POST", "/v1/crawl", tok, map[string]any{"url": "http://site.test/", "limit": 50, "max_depth": 2})
	ack := res.JSON(t)
	if res.Status != 202 || ack["status"] != "queued" || ack["url"] != "http://site.test/" || ack["limit"] != float64(50) || ack["max_depth"] != float64(2) || ack["queued_at"] == nil {
		t.Fatalf("ack = %d %v", res.Status, ack)
	}
	id := ack["crawl_id"].(string)
	if _, held, _ := e.Store.ReadCredits(context.Background(), acct.ID, e.Clock.Now()); held != 100 {
		t.Fatalf("hold = %d, want 100", held)
	}
	got := e.Do("GET", "/v1/crawl/"+id, tok, nil).JSON(t)
	if got["status"] != "queued" || got["succeeded"] != float64(0) || got["credits_charged"] != float64(0) {
		t.Fatalf("status = %v", got)
	}
	_, other := e.Account("other@example.com", "business")
	for _, p := range []string{"/v1/crawl/" + id, "/v1/crawl/" + id + "/pages"} {
		if r := e.Do("GET", p, other, nil); r.Status != 404 {
			t.Errorf("another account's %s: %d", p, r.Status)
		}
	}
	if r := e.Do("DELETE", "/v1/crawl/"+id, other, nil); r.Status != 404 {
		t.Errorf("another account's delete: %d", r.Status)
	}
	if r := e.Do("GET", "/v1/crawl/crawl_nope", tok, nil); r.Status != 404 {
		t.Errorf("missing: %d", r.Status)
	}
	// A crawl is not a bulk job.
	if r := e.Do("GET", "/v1/content/bulk/"+id, tok, nil); r.Status != 404 {
		t.Errorf("crawl as bulk job: %d", r.Status)
	}
	// Cancelled before it ran: the whole hold comes back.
	if r := e.Do("DELETE", "/v1/crawl/"+id, tok, nil); r.Status != 200 || r.JSON(t)["status"] != "cancelled" {
		t.Fatalf("cancel: %d %s", r.Status, r.Body)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { e.Worker.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	if m := waitCrawl(t, e, tok, id); m["status"] != "cancelled" || m["succeeded"] != float64(0) {
		t.Fatalf("cancelled crawl = %v", m)
	}
	// A queued crawl reads "cancelled" as soon as it is cancelled; its hold
	// comes back once a worker takes the job up and ends it.
	var held int64
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if _, held, _ = e.Store.ReadCredits(context.Background(), acct.ID, e.Clock.Now()); held == 0 {
			break
		}
		e.Clock.Advance(20 * time.Millisecond)
	}
	if end, _ := e.Credits.Status(context.Background(), acct.ID); end.Balance != st.Balance || held != 0 {
		t.Fatalf("balance after cancel = %d (held %d), want %d", end.Balance, held, st.Balance)
	}
}

func TestCrawlSite(t *testing.T) {
	rcv := newReceiver(t, 0)
	e, tok, acct, cs := crawlEnv(t, rcv, 12, apitest.Options{})
	before, _ := e.Credits.Status(context.Background(), acct.ID)
	res := e.Do("POST", "/v1/crawl", tok, map[string]any{"url": "http://site.test/", "limit": 100, "max_depth": 3, "callback_url": rcv.URL()})
	if res.Status != 202 {
		t.Fatalf("submit: %d %s", res.Status, res.Body)
	}
	id := res.JSON(t)["crawl_id"].(string)
	m := waitCrawl(t, e, tok, id)
	sk := m["skipped"].(map[string]any)
	// / + /p/1../p/12 + three calendar months + /slow/1 (read after its 429).
	if m["status"] != "completed" || m["succeeded"] != float64(17) || m["failed"] != float64(1) || m["credits_charged"] != float64(34) {
		t.Fatalf("crawl = %v", m)
	}
	// /dup/1..12 name /p/i as canonical; /private/1..12 are disallowed and
	// /noindex asks not to be indexed; the 4th calendar month is too deep.
	if sk["duplicate"] != float64(12) || sk["robots"] != float64(13) || sk["scope"] != float64(1) || sk["depth"] != float64(1) || sk["limit"] != float64(0) || m["queued"] != float64(0) {
		t.Fatalf("skipped = %v (crawl %v)", sk, m)
	}
	if cs.Hits("/private/") != 0 || cs.Hits("/nofollow/") != 0 || cs.MaxInFlight() > 2 {
		t.Fatalf("private %d, nofollow %d, max in flight %d", cs.Hits("/private/"), cs.Hits("/nofollow/"), cs.MaxInFlight())
	}
	// Each article once: its variants (?utm_*, trailing slash, index.html) never.
	if cs.Hits("/p/") != 12 || cs.Hits("/p/1/") != 0 || cs.Hits("/slow/1") != 2 {
		t.Fatalf("articles read %d times, /p/1/ %d, /slow/1 %d", cs.Hits("/p/"), cs.Hits("/p/1/"), cs.Hits("/slow/1"))
	}
	after, _ := e.Credits.Status(context.Background(), acct.ID)
	if _, held, _ := e.Store.ReadCredits(context.Background(), acct.ID, e.Clock.Now()); before.Balance-after.Balance != 34 || held != 0 {
		t.Fatalf("spent %d, held %d; want 34 and the rest of the hold released", before.Balance-after.Balance, held)
	}
	// Pages, seven at a time, in the order they finished.
	var pages []map[string]any
	cursor := ""
	for range 10 {
		q := "/v1/crawl/" + id + "/pages?per_page=7"
		if cursor != "" {
			q += "&cursor=" + cursor
		}
		res := e.Do("GET", q, tok, nil).JSON(t)
		for _, p := range res["pages"].([]any) {
			pages = append(pages, p.(map[string]any))
		}
		if res["next_cursor"] == nil {
			break
		}
		cursor = res["next_cursor"].(string)
	}
	if len(pages) != 17 {
		t.Fatalf("listed %d pages, want 17", len(pages))
	}
	seen := map[string]bool{}
	for _, p := range pages {
		u := p["url"].(string)
		if seen[u] || p["success"] != true || p["markdown"] == "" {
			t.Fatalf("page %v", p)
		}
		seen[u] = true
	}
	if pages[0]["url"] != "http://site.test/" || pages[0]["depth"] != float64(0) || pages[0]["parent"] != "" {
		t.Fatalf("first page = %v", pages[0])
	}
	if !seen["http://site.test/p/11"] || !seen["http://site.test/calendar/2026/3"] {
		t.Fatalf("pages = %v", seen)
	}
	// Events: started first, completed last, one per page between, each signed.
	ds := rcv.deliveries()
	secret, _ := e.Store.(ports.AccountStore).WebhookSecret(context.Background(), acct.ID, func() string { return "unused" })
	events := map[string]int{}
	doc, _, err := httpapi.OpenAPI()
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range ds {
		name := d.header.Get("X-Trawl-Webhook")
		if !verify(secret, d.header.Get("X-Trawl-Signature"), d.body) {
			t.Fatalf("bad signature on %s", name)
		}
		events[name]++
		// Each event is the body the document's webhooks section gives it.
		hook := doc.Webhooks[name]
		if hook == nil || hook.Post == nil {
			t.Fatalf("the OpenAPI document has no webhook %s", name)
		}
		var v any
		_ = json.Unmarshal(d.body, &v)
		if err := hook.Post.RequestBody.Value.Content.Get("application/json").Schema.Value.VisitJSON(v, openapi3.EnableFormatValidation()); err != nil {
			t.Fatalf("%s does not match the document: %v\n%s", name, err, d.body)
		}
	}
	if len(ds) == 0 || ds[0].header.Get("X-Trawl-Webhook") != crawl.EventStarted || ds[len(ds)-1].header.Get("X-Trawl-Webhook") != crawl.EventCompleted {
		t.Fatalf("event order: first %q last %q", ds[0].header.Get("X-Trawl-Webhook"), ds[len(ds)-1].header.Get("X-Trawl-Webhook"))
	}
	if events[crawl.EventStarted] != 1 || events[crawl.EventPage] != 17 || events[crawl.EventPageFailed] != 1 || events[crawl.EventCompleted] != 1 {
		t.Fatalf("events = %v", events)
	}
	var done map[string]any
	_ = json.Unmarshal(ds[len(ds)-1].body, &done)
	if done["succeeded"] != float64(17) || done["status"] != "completed" {
		t.Fatalf("crawl-completed = %v", done)
	}
	for _, d := range ds {
		if d.header.Get("X-Trawl-Webhook") == crawl.EventPageFailed {
			var f map[string]any
			_ = json.Unmarshal(d.body, &f)
			if f["url"] != "http://site.test/gone" || f["reason"] != "page_not_found" {
				t.Fatalf("crawl-page-failed = %v", f)
			}
		}
	}
	// The charges are the crawl's, one per page.
	txs, _, _ := e.Store.Transactions(context.Background(), acct.ID, 100, 0)
	n := 0
	for _, tx := range txs {
		if tx.ServiceType == "crawl" && tx.Metadata.JobID == id {
			n++
		}
	}
	if n != 17 {
		t.Fatalf("%d crawl transactions, want 17", n)
	}
}

func TestCrawlLimitIsExact(t *testing.T) {
	e, tok, _, cs := crawlEnv(t, nil, 200, apitest.Options{Crawl: crawl.RunnerOptions{Poll: 20 * time.Millisecond, Concurrency: 16, PerHost: 4}})
	ack := e.Do("POST", "/v1/crawl", tok, map[string]any{"url": "http://site.test/", "limit": 25, "max_depth": 5, "sitemap": "skip"}).JSON(t)
	m := waitCrawl(t, e, tok, ack["crawl_id"].(string))
	sk := m["skipped"].(map[string]any)
	if m["succeeded"] != float64(25) || m["credits_charged"] != float64(50) || sk["limit"].(float64) < 1 || m["queued"] != float64(0) {
		t.Fatalf("crawl = %v", m)
	}
	if cs.MaxInFlight() > 4 {
		t.Fatalf("max in flight %d, want at most 4", cs.MaxInFlight())
	}
	if got := cs.Hits("/p/"); got > 25+4 {
		t.Fatalf("read %d articles for a limit of 25", got)
	}
}
