package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/trawlhq/trawl/ports"
	"github.com/trawlhq/trawl/testkit/apitest"
	"github.com/trawlhq/trawl/testkit/fakellm"
	"github.com/trawlhq/trawl/testkit/fakesearch"
	"github.com/trawlhq/trawl/testkit/memstore"
	"github.com/trawlhq/trawl/testkit/sites"
)

// These tests run every Client method and option against the real API
// (testkit/apitest: the production router, core services and adapters) over
// fixture sites, fake search engines, a fake LLM and a webhook receiver.
// Every request goes through checkedTransport, so each is also checked
// against the OpenAPI document the server serves.

// world is a running server and what it talks to.
type world struct {
	e       *apitest.Env
	engines map[string]*fakesearch.Engine
	llm     *fakellm.Server
	hooks   *hookReceiver
	wire    *checkedTransport
	acct    ports.Account
	token   string
}

const articleURL = "http://news.test/tide-pools"

func newWorld(t *testing.T, plan string) *world {
	t.Helper()
	article, err := os.ReadFile("../testdata/pages/article.html")
	if err != nil {
		t.Fatal(err)
	}
	site := sites.New(t, "news.test")
	site.Handle("/tide-pools", "text/html; charset=utf-8", string(article))
	site.Handle("/a", "text/html", page("Rock pools", "Rock pools hold sea water when the tide goes out, and the creatures in them wait for the sea to return."))
	site.Handle("/b", "text/html", page("Sand flats", "Sand flats stretch for miles at low tide, and the worms under them come up to feed when the water is back."))
	site.Handle("/robots.txt", "text/plain", "User-agent: *\nSitemap: http://news.test/sitemap.xml\n")
	site.Handle("/sitemap.xml", "application/xml", `<urlset><url><loc>http://news.test/tide-pools</loc></url><url><loc>http://news.test/a</loc></url><url><loc>http://news.test/b</loc></url></urlset>`)
	wiki := sites.New(t, "wiki.test")
	wiki.Handle("/tide", "text/html", page("Tide - Wiki", "A tide is the rise and fall of sea levels caused by the gravitational forces exerted by the Moon and the Sun on the Earth."))
	w := &world{engines: map[string]*fakesearch.Engine{}, llm: fakellm.New(t), hooks: newHookReceiver(t)}
	bases := map[string]string{}
	for _, name := range []string{"google", "bing", "duckduckgo"} {
		w.engines[name] = fakesearch.New(t, name)
		w.engines[name].Serve(
			fakesearch.Result{Title: "Tide pools", Link: articleURL, Snippet: "How pools survive."},
			fakesearch.Result{Title: "Tide", Link: "http://wiki.test/tide", Snippet: "Rise and fall."},
			fakesearch.Result{Title: "Rock pools", Link: "http://news.test/a", Snippet: "Pools of rock."},
		)
		bases[name] = w.engines[name].URL
	}
	resolve := sites.Resolve(site, wiki)
	resolve[w.hooks.hostPort] = strings.TrimPrefix(w.hooks.URL, "http://")
	w.e = apitest.Start(t, memstore.New(), apitest.Options{Resolve: resolve, Engines: bases, LLMBaseURL: w.llm.BaseURL()})
	w.acct, w.token = w.e.Account("go@example.com", plan)
	w.wire = newCheckedTransport(t, w.e.Server.URL)
	return w
}

func page(title, text string) string {
	return "<html><head><title>" + title + "</title></head><body><article><p>" + text + "</p><p>" + text + "</p></article></body></html>"
}

// client is a Client of the world's account whose requests are checked;
// WithHTTPClient is how the check is put in.
func (w *world) client(opts ...Option) *Client {
	return New(w.e.Server.URL, w.token, append([]Option{WithHTTPClient(&http.Client{Transport: w.wire, Timeout: time.Minute})}, opts...)...)
}

func (w *world) balance(t *testing.T) int64 {
	t.Helper()
	st, err := w.e.Credits.Status(context.Background(), w.acct.ID)
	if err != nil {
		t.Fatal(err)
	}
	return st.Balance
}

// hookReceiver records webhook deliveries, at hooks.test:<port>.
type hookReceiver struct {
	*httptest.Server
	hostPort string
	mu       sync.Mutex
	bodies   []string
}

func newHookReceiver(t *testing.T) *hookReceiver {
	h := &hookReceiver{}
	h.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		h.mu.Lock()
		h.bodies = append(h.bodies, string(b))
		h.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(h.Close)
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(h.URL, "http://"))
	h.hostPort = "hooks.test:" + port
	return h
}

func (h *hookReceiver) callback() string { return "http://" + h.hostPort + "/trawl" }

func (h *hookReceiver) received() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.bodies...)
}

func wantStatus(t *testing.T, err error, status int, field string) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) || e.Status != status {
		t.Fatalf("err = %v, want a %d", err, status)
	}
	if e.Message == "" || e.Error() != fmt.Sprintf("trawl: %d %s", status, e.Message) {
		t.Fatalf("error %q: want the status and the server's message", e.Error())
	}
	if field != "" && len(e.Errors[field]) == 0 {
		t.Fatalf("%d names %v, want %q", status, e.Errors, field)
	}
}

func TestServerAccountAndCredits(t *testing.T) {
	w := newWorld(t, "pro")
	c := w.client()
	ctx := context.Background()

	u, err := c.User(ctx)
	if err != nil || u.ID != w.acct.ID || u.Email != "go@example.com" || u.CreatedAt == "" {
		t.Fatalf("User = %+v %v", u, err)
	}
	cr, err := c.Credits(ctx)
	if err != nil || cr.Balance != 20000 || cr.Limit != 20000 || cr.Used != 0 || cr.FormattedBalance == "" || cr.Status.Limit != 20000 || cr.Status.IsLow {
		t.Fatalf("Credits = %+v %v", cr, err)
	}
	for range 3 {
		if _, err := c.Content(ctx, articleURL); err != nil {
			t.Fatal(err)
		}
	}
	st, err := c.UsageStats(ctx)
	if err != nil || st.Balance != 19994 || st.Used != 6 || st.Limit != 20000 || st.IsLow || st.Threshold <= 0 || st.PercentageUsed <= 0 || st.PercentageUsed >= 1 {
		t.Fatalf("UsageStats = %+v %v", st, err)
	}

	all, err := c.Transactions(ctx, 0, 0) // the defaults: page 1 of 20
	if err != nil || all.Total != 3 || all.CurrentPage != 1 || all.PerPage != 20 || len(all.Data) != 3 || all.From == nil || *all.From != 1 || *all.To != 3 || all.Links.Next != nil || all.NextPageURL != nil {
		t.Fatalf("Transactions(0, 0) = %+v %v", all, err)
	}
	if tx := all.Data[0]; tx.ServiceType != "content" || tx.Credits != 2 || tx.BalanceAfter != 19994 || tx.Metadata["url"] != articleURL {
		t.Fatalf("newest transaction = %+v", tx)
	}
	p2, err := c.Transactions(ctx, 2, 2)
	if err != nil || p2.CurrentPage != 2 || p2.PerPage != 2 || p2.LastPage != 2 || len(p2.Data) != 1 || *p2.From != 3 || p2.Links.Prev == nil || p2.Links.Next != nil {
		t.Fatalf("Transactions(2, 2) = %+v %v", p2, err)
	}
	_, err = c.Transactions(ctx, 1, 101)
	wantStatus(t, err, 422, "per_page")

	pv, err := c.PreviewCost(ctx, "serp", 4)
	if err != nil || pv != (CostPreview{ServiceType: "serp", ServiceName: pv.ServiceName, CreditCostPerRequest: 5, Quantity: 4, TotalCost: 20, CurrentBalance: 19994, RemainingAfter: 19974, CanAfford: true}) || pv.ServiceName == "" {
		t.Fatalf("PreviewCost = %+v %v", pv, err)
	}
	_, err = c.PreviewCost(ctx, "bulk", 1)
	wantStatus(t, err, 422, "service_type")
	ok, pv, err := c.CanAfford(ctx, "prompt", 3)
	if err != nil || !ok || pv.TotalCost != 30 || pv.ServiceType != "prompt" {
		t.Fatalf("CanAfford = %v %+v %v", ok, pv, err)
	}

	// A top-up: the checkout is paid on its page, then the credits are there.
	_, err = c.Purchase(ctx, 99)
	wantStatus(t, err, 422, "credits")
	co, err := c.Purchase(ctx, 1500)
	if err != nil || co.SessionID == "" || !strings.HasSuffix(co.CheckoutURL, "/checkout/"+co.SessionID) {
		t.Fatalf("Purchase = %+v %v", co, err)
	}
	if b := w.balance(t); b != 19994 {
		t.Fatalf("balance %d before paying", b)
	}
	res, err := http.Post(co.CheckoutURL+"/pay", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if cr, err := c.Credits(ctx); err != nil || cr.Balance != 21494 {
		t.Fatalf("Credits after paying = %+v %v, want 21494", cr, err)
	}
	if tx, err := c.Transactions(ctx, 1, 1); err != nil || tx.Data[0].Credits != -1500 || tx.Data[0].Metadata["session_id"] != co.SessionID {
		t.Fatalf("top-up transaction = %+v %v", tx, err)
	}

	// Without credits: CanAfford says no, and a billed call is a 402.
	none := newWorld(t, "")
	nc := none.client()
	if ok, pv, err := nc.CanAfford(ctx, "content", 1); err != nil || ok || pv.CanAfford {
		t.Fatalf("CanAfford without credits = %v %+v %v", ok, pv, err)
	}
	_, err = nc.Content(ctx, articleURL)
	wantStatus(t, err, 402, "")
}

func TestServerPages(t *testing.T) {
	w := newWorld(t, "pro")
	c := w.client()
	ctx := context.Background()

	sc, err := c.Scrape(ctx, articleURL)
	if err != nil || sc.URL != articleURL || sc.FinalURL != articleURL || sc.StatusCode != 200 || !strings.HasPrefix(sc.ContentType, "text/html") || !strings.Contains(sc.HTML, "Three ways to keep cool") {
		t.Fatalf("Scrape = %+v %v", sc, err)
	}
	ct, err := c.Content(ctx, articleURL)
	if err != nil || !ct.Success || ct.StatusCode != 200 || ct.ErrorMessage != nil || !strings.Contains(ct.Markdown, "## Three ways to keep cool") || ct.Metadata.Title == "" || ct.Warning != "" || ct.Metadata.PageCount != 0 {
		t.Fatalf("Content = %+v %v", ct, err)
	}
	_, err = c.Content(ctx, "http://127.0.0.1/")
	wantStatus(t, err, 422, "url")

	m, err := c.Map(ctx, "http://news.test/", 0)
	want := []string{articleURL, "http://news.test/a", "http://news.test/b"}
	if err != nil || m.Total != 3 || m.Truncated || strings.Join(m.URLs, " ") != strings.Join(want, " ") || len(m.Sources) == 0 {
		t.Fatalf("Map(limit 0) = %+v %v", m, err)
	}
	m, err = c.Map(ctx, "http://news.test/", 2)
	if err != nil || m.Total != 3 || !m.Truncated || strings.Join(m.URLs, " ") != strings.Join(want[:2], " ") {
		t.Fatalf("Map(limit 2) = %+v %v", m, err)
	}
	_, err = c.Map(ctx, "http://news.test/", 1001)
	wantStatus(t, err, 422, "limit")
	if b := w.balance(t); b != 20000-1-2-3-3 {
		t.Fatalf("balance %d, want a scrape, a content and two maps charged", b)
	}
}

func TestServerSearch(t *testing.T) {
	w := newWorld(t, "pro")
	c := w.client()
	ctx := context.Background()

	for _, engine := range []string{"google", "bing", "duckduckgo"} {
		// The serp/content parameters are not sent to /v1/serp
		// (checkedTransport fails on an undeclared query parameter).
		p := SearchParams{Q: "tide pools", Loc: "Brest, France", HL: "fr", GL: "fr", Engine: engine, MaxContent: 3, Whitelist: []string{"news.test"}, Blacklist: []string{"wiki.test"}}
		res, err := c.Search(ctx, p)
		if err != nil || len(res.OrganicResults) != 3 || res.OrganicResults[0].Title != "Tide pools" || res.OrganicResults[0].Link != articleURL || res.OrganicResults[0].Position != 1 || res.OrganicResults[0].Content != nil {
			t.Fatalf("%s: Search = %+v %v", engine, res, err)
		}
		if sp := res.SearchParameters; sp["engine"] != engine || sp["q"] != "tide pools" || sp["loc"] != p.Loc || sp["hl"] != "fr" || sp["gl"] != "fr" {
			t.Errorf("%s: search_parameters = %v", engine, sp)
		}
		qs := w.engines[engine].Queries()
		if len(qs) != 1 {
			t.Fatalf("%s received %d searches", engine, len(qs))
		}
		q := qs[0]
		switch engine { // each engine's own spelling of the options
		case "google":
			if q.Get("q") != "tide pools" || q.Get("hl") != "fr" || q.Get("gl") != "fr" || q.Get("uule") == "" {
				t.Errorf("google was asked %v", q)
			}
		case "bing":
			if q.Get("q") != "tide pools" || q.Get("setlang") != "fr" || q.Get("cc") != "FR" || q.Get("location") != p.Loc {
				t.Errorf("bing was asked %v", q)
			}
		case "duckduckgo":
			if q.Get("q") != "tide pools "+p.Loc || q.Get("kl") != "fr-fr" {
				t.Errorf("duckduckgo was asked %v", q)
			}
		}
	}
	// The default engine is Google.
	if res, err := c.Search(ctx, SearchParams{Q: "tides"}); err != nil || res.SearchParameters["engine"] != "google" {
		t.Fatalf("default engine: %+v %v", res.SearchParameters, err)
	}
	_, err := c.Search(ctx, SearchParams{Q: "x", Engine: "altavista"})
	wantStatus(t, err, 422, "engine")
	before := w.balance(t)

	// Whitelist: only news.test results are read, and MaxContent stops at one.
	res, err := c.SearchContent(ctx, SearchParams{Q: "tide pools", MaxContent: 1, Whitelist: []string{"news.test"}})
	if err != nil {
		t.Fatal(err)
	}
	if r := res.OrganicResults; r[0].Content == nil || !r[0].Content.Success || !strings.Contains(r[0].Content.Markdown, "Three ways to keep cool") || r[1].Content != nil || r[2].Content != nil {
		t.Fatalf("SearchContent(whitelist news.test, max 1) contents: %+v / %+v / %+v", r[0].Content, r[1].Content, r[2].Content)
	}
	// Blacklist: news.test is skipped; the wiki page is read.
	res, err = c.SearchContent(ctx, SearchParams{Q: "tide pools", Engine: "bing", MaxContent: 5, Blacklist: []string{"news.test"}})
	if err != nil {
		t.Fatal(err)
	}
	if r := res.OrganicResults; r[0].Content != nil || r[1].Content == nil || !r[1].Content.Success || r[1].Content.Metadata.Title != "Tide - Wiki" || r[2].Content != nil {
		t.Fatalf("SearchContent(blacklist news.test) contents: %+v / %+v / %+v", r[0].Content, r[1].Content, r[2].Content)
	}
	if got := before - w.balance(t); got != (5+2)*2 {
		t.Fatalf("two serp/content calls with one page each cost %d, want 14", got)
	}
	_, err = c.SearchContent(ctx, SearchParams{Q: "x", MaxContent: 51})
	wantStatus(t, err, 422, "max_content")
}

func TestServerPrompt(t *testing.T) {
	w := newWorld(t, "pro")
	c := w.client()
	ctx := context.Background()

	got, err := c.Prompt(ctx, "Summarise tide pools", "")
	if err != nil || got != "[test-model] You asked: Summarise tide pools" {
		t.Fatalf("Prompt = %q %v", got, err)
	}
	if _, err := c.Prompt(ctx, "What keeps the pools cool?", articleURL); err != nil {
		t.Fatal(err)
	}
	reqs := w.llm.Requests()
	last := reqs[len(reqs)-1].Messages
	user := last[len(last)-1].Content
	if !strings.Contains(user, "What keeps the pools cool?") || !strings.Contains(user, "## Three ways to keep cool") || !strings.Contains(user, "URL: "+articleURL) {
		t.Fatalf("the model was not given the page:\n%s", user)
	}
	_, err = c.Prompt(ctx, "", "")
	wantStatus(t, err, 422, "prompt")
	if b := w.balance(t); b != 20000-20 {
		t.Fatalf("balance %d, want two prompts at 10", b)
	}
}

func TestServerBulk(t *testing.T) {
	w := newWorld(t, "business")
	c := w.client()
	ctx := context.Background()

	// Sync with a callback: processed before the answer, the webhook fired.
	ack, err := c.CreateBulkJob(ctx, BulkRequest{URLs: []string{articleURL, "http://news.test/a"}, CallbackURL: w.hooks.callback(), Sync: true, Render: "never"})
	if err != nil || ack.JobID == "" || ack.URLsCount != 2 || ack.URLSource != "urls" || ack.DeliveryMethod != "webhook" || ack.EstimatedCompletionTime != "Completed" || ack.QueuedAt == "" {
		t.Fatalf("sync CreateBulkJob = %+v %v", ack, err)
	}
	if n := len(w.hooks.received()); n != 1 || !strings.Contains(w.hooks.received()[0], ack.JobID) {
		t.Fatalf("%d webhooks before the sync answer, want 1 naming the job", n)
	}
	job, err := c.BulkJob(ctx, ack.JobID)
	if err != nil || job.Status != "completed" || !job.Sync || job.SuccessCount != 2 || job.FailedCount != 0 || job.ProcessedCount != 2 || len(job.Results) != 2 || job.CompletedAt == nil || job.StartedAt == nil {
		t.Fatalf("sync BulkJob = %+v %v", job, err)
	}
	if r := job.Results[0]; r.URL != articleURL || r.Status != "succeeded" || !r.Success || r.StatusCode != 200 || r.Error != nil || r.Engine != "http" || job.Render != "never" {
		t.Fatalf("result = %+v", r)
	}
	if len(job.Deliveries) != 1 || job.Deliveries[0].Channel != "webhook" || job.Deliveries[0].StatusCode != http.StatusNoContent || job.Deliveries[0].Error != nil {
		t.Fatalf("deliveries = %+v", job.Deliveries)
	}

	// From a sitemap, by email and webhook, queued for the worker.
	ack, err = c.CreateBulkJob(ctx, BulkRequest{Sitemap: "http://news.test/sitemap.xml", Email: true, CallbackURL: w.hooks.callback()})
	if err != nil || ack.URLSource != "sitemap" || ack.URLsCount != 3 || ack.DeliveryMethod != "email,webhook" || ack.Status != "queued" || ack.EstimatedCompletionTime == "Completed" {
		t.Fatalf("sitemap CreateBulkJob = %+v %v", ack, err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for job, err = c.BulkJob(ctx, ack.JobID); err == nil && job.Status != "completed" && job.Status != "failed"; job, err = c.BulkJob(ctx, ack.JobID) {
		if time.Now().After(deadline) {
			t.Fatalf("job still %s", job.Status)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil || job.Status != "completed" || job.URLSource != "sitemap" || job.DeliveryMethod != "email,webhook" || job.SuccessCount != 3 || job.DownloadURL == nil || len(job.Deliveries) != 2 {
		t.Fatalf("sitemap BulkJob = %+v %v", job, err)
	}
	res, err := http.Get(*job.DownloadURL)
	if err != nil {
		t.Fatal(err)
	}
	zip, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "application/zip" || !strings.HasPrefix(string(zip), "PK") {
		t.Fatalf("download = %d %s %.20q", res.StatusCode, res.Header.Get("Content-Type"), zip)
	}
	mails, _ := filepath.Glob(filepath.Join(w.e.Outbox, "*.eml"))
	if len(mails) != 1 {
		t.Fatalf("%d mails in the outbox, want 1", len(mails))
	}
	if raw, _ := os.ReadFile(mails[0]); !strings.Contains(string(raw), ack.JobID) {
		t.Fatal("the results mail does not name the job")
	}
	if b := w.balance(t); b != 90000-2*5 {
		t.Fatalf("balance %d, want 5 URLs extracted at 2", b)
	}

	_, err = c.CreateBulkJob(ctx, BulkRequest{Email: true})
	wantStatus(t, err, 422, "urls")
	// A failed URL says why, with the code a single-URL call answers.
	ack, err = c.CreateBulkJob(ctx, BulkRequest{URLs: []string{"http://news.test/no-such-page"}, CallbackURL: w.hooks.callback(), Sync: true})
	if err != nil {
		t.Fatal(err)
	}
	if job, err = c.BulkJob(ctx, ack.JobID); err != nil || len(job.Results) != 1 || job.Results[0].Reason != "page_not_found" || job.Results[0].Retryable || job.Results[0].Success {
		t.Fatalf("failed URL = %+v %v", job.Results, err)
	}
	_, err = c.CreateBulkJob(ctx, BulkRequest{URLs: []string{articleURL}, Email: true, Render: "sometimes"})
	wantStatus(t, err, 422, "render")
	_, err = c.BulkJob(ctx, "job_nope")
	wantStatus(t, err, 404, "")
}

// The retry options against the real server: a 503 when every search
// engine is down, a 429 from the rate limiter.
func TestServerRetryOptions(t *testing.T) {
	w := newWorld(t, "basic")
	ctx := context.Background()
	w.engines["google"].Down()
	const serp = "GET /v1/serp"

	for _, c := range []struct {
		name     string
		opts     []Option
		attempts int
	}{
		{"five attempts by default", []Option{WithBackoff(time.Millisecond)}, 5},
		{"WithAttempts(2)", []Option{WithAttempts(2), WithBackoff(time.Millisecond)}, 2},
		{"WithAttempts(1) disables retries", []Option{WithAttempts(1)}, 1},
		{"WithAttempts(0) is one attempt", []Option{WithAttempts(0)}, 1},
	} {
		_, err := w.client(c.opts...).Search(ctx, SearchParams{Q: "tides"})
		wantStatus(t, err, 503, "")
		keys := w.wire.Keys(serp)
		if len(keys) != c.attempts {
			t.Errorf("%s: %d attempts, want %d", c.name, len(keys), c.attempts)
		}
		for _, k := range keys {
			if k == "" || k != keys[0] {
				t.Errorf("%s: Idempotency-Keys %v, want one key on every attempt", c.name, keys)
			}
		}
		w.e.Clock.Advance(time.Minute) // a new rate window (10 searches a minute on Basic)
	}
	// WithBackoff: the waits double, 100 ms then 200 ms.
	start := time.Now()
	_, err := w.client(WithAttempts(3), WithBackoff(100*time.Millisecond)).Search(ctx, SearchParams{Q: "tides"})
	wantStatus(t, err, 503, "")
	if took := time.Since(start); took < 300*time.Millisecond || took > 10*time.Second {
		t.Errorf("3 attempts with a 100 ms backoff took %s, want 300 ms of waits", took)
	}
	w.wire.Keys(serp)
	if b := w.balance(t); b != 6000 {
		t.Fatalf("failed searches were charged: balance %d", b)
	}

	// Use up the prompt group (8 a minute on Basic).
	c := w.client()
	for range 8 {
		if _, err := c.Prompt(ctx, "hi", ""); err != nil {
			t.Fatal(err)
		}
	}
	w.wire.Keys("POST /v1/prompt")
	// WithMaxWait caps the wait Retry-After asks for.
	start = time.Now()
	_, err = w.client(WithAttempts(3), WithMaxWait(10*time.Millisecond)).Prompt(ctx, "hi", "")
	wantStatus(t, err, 429, "")
	var apiErr *Error
	// The window started at the first prompt and the test clock has not
	// moved since: the server asks for the rest of the minute.
	if errors.As(err, &apiErr); apiErr.RetryAfter < 50*time.Second || apiErr.RetryAfter > time.Minute {
		t.Fatalf("RetryAfter = %s, want the rest of the minute", apiErr.RetryAfter)
	}
	if n := len(w.wire.Keys("POST /v1/prompt")); n != 3 || time.Since(start) > 5*time.Second {
		t.Errorf("%d attempts in %s, want 3 with waits capped at 10 ms", n, time.Since(start))
	}
	// Without the cap the client waits as long as Retry-After says: here
	// longer than the caller's deadline.
	short, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	_, err = w.client().Prompt(short, "hi", "")
	if !errors.Is(err, context.DeadlineExceeded) || len(w.wire.Keys("POST /v1/prompt")) != 1 {
		t.Errorf("Prompt waiting out Retry-After past its deadline = %v", err)
	}
	// A retry after the window has passed succeeds, with the same key, and
	// is charged once.
	before := w.balance(t)
	w.wire.after = func(op string, status int) {
		if op == "POST /v1/prompt" && status == http.StatusTooManyRequests {
			w.e.Clock.Advance(time.Minute)
		}
	}
	got, err := w.client(WithMaxWait(time.Millisecond)).Prompt(ctx, "again", "")
	keys := w.wire.Keys("POST /v1/prompt")
	if err != nil || got == "" || len(keys) != 2 || keys[0] != keys[1] {
		t.Fatalf("Prompt after a 429 = %q %v, keys %v: want a second attempt with the same key", got, err, keys)
	}
	if b := w.balance(t); before-b != 10 {
		t.Fatalf("charged %d for one prompt, want 10", before-b)
	}
}

// A client's base URL may end in a slash; a bad token is a 401, never retried.
func TestServerBaseURLAndToken(t *testing.T) {
	w := newWorld(t, "pro")
	c := New(w.e.Server.URL+"/", w.token, WithHTTPClient(&http.Client{Transport: w.wire}))
	if _, err := c.User(context.Background()); err != nil {
		t.Fatal(err)
	}
	bad := New(w.e.Server.URL, "trawl_"+strings.Repeat("z", 40), WithHTTPClient(&http.Client{Transport: w.wire}), WithBackoff(time.Millisecond))
	_, err := bad.Content(context.Background(), articleURL)
	wantStatus(t, err, 401, "")
	if n := len(w.wire.Keys("GET /v1/content")); n != 1 {
		t.Fatalf("a 401 was tried %d times", n)
	}
	var apiErr *Error
	if errors.As(err, &apiErr); apiErr.RequestID == "" {
		t.Error("the error carries no request id")
	}
}

func TestServerExtract(t *testing.T) {
	w := newWorld(t, "pro")
	c := w.client()
	ctx := context.Background()
	answers := []string{`{"title":"Keeping cool"}`, `{"title":"Tide pools"}`}
	var n int
	var mu sync.Mutex
	w.llm.Answer = func(fakellm.Request) string {
		mu.Lock()
		defer mu.Unlock()
		a := answers[min(n, len(answers)-1)]
		n++
		return a
	}
	schema := json.RawMessage(`{"type":"object","required":["title"],"properties":{"title":{"type":"string","minLength":1}}}`)
	got, err := c.Extract(ctx, ExtractRequest{URL: articleURL, Schema: schema})
	if err != nil || string(got.Data) != `{"title":"Keeping cool"}` || got.URL != articleURL {
		t.Fatalf("Extract = %s %v", got.Data, err)
	}
	mu.Lock()
	answers, n = []string{"I could not find it."}, 0
	mu.Unlock()
	_, err = w.client(WithAttempts(1)).Extract(ctx, ExtractRequest{URL: articleURL, Schema: schema})
	var e *Error
	if !errors.As(err, &e) || e.Status != 503 || e.Reason != "llm_failed" || !e.Retryable {
		t.Fatalf("prose answer: %v", err)
	}
	_, err = c.Extract(ctx, ExtractRequest{URL: articleURL, Schema: json.RawMessage(`{"type":7}`)})
	wantStatus(t, err, 422, "schema")
	if b := w.balance(t); b != 20000-10 {
		t.Fatalf("balance %d, want one extraction at 10", b)
	}
}
