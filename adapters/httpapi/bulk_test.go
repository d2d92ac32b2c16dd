package httpapi_test

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/mail"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/trawlhq/trawl/core/billing"
	"github.com/trawlhq/trawl/core/bulk"
	"github.com/trawlhq/trawl/core/credits"
	"github.com/trawlhq/trawl/ports"
	"github.com/trawlhq/trawl/testkit/apitest"
	"github.com/trawlhq/trawl/testkit/memstore"
	"github.com/trawlhq/trawl/testkit/sites"
)

// receiver records webhook deliveries; it can fail the first n.
type receiver struct {
	*httptest.Server
	mu      sync.Mutex
	fail    int
	got     []delivery
	hostKey string // hooks.test:<port>
}

type delivery struct {
	header http.Header
	body   []byte
}

func newReceiver(t *testing.T, fail int) *receiver {
	r := &receiver{fail: fail}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.got = append(r.got, delivery{req.Header.Clone(), b})
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
	t.Cleanup(r.Close)
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(r.Server.URL, "http://"))
	r.hostKey = "hooks.test:" + port
	return r
}

func (r *receiver) URL() string { return "http://" + r.hostKey + "/trawl" }

func (r *receiver) deliveries() []delivery {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]delivery(nil), r.got...)
}

// verify checks X-Trawl-Signature the way a receiver would (README).
func verify(secret string, header string, body []byte) bool {
	var ts, sig string
	for _, part := range strings.Split(header, ",") {
		k, v, _ := strings.Cut(part, "=")
		switch k {
		case "t":
			ts = v
		case "v1":
			sig = v
		}
	}
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(ts + "." + string(body)))
	return hmac.Equal([]byte(sig), []byte(hex.EncodeToString(mac.Sum(nil))))
}

func bulkEnv(t *testing.T, rcv *receiver, o apitest.Options) (*apitest.Env, string, ports.Account) {
	site := pageSite(t)
	resolve := sites.Resolve(site)
	if rcv != nil {
		resolve[rcv.hostKey] = strings.TrimPrefix(rcv.Server.URL, "http://")
	}
	for k, v := range o.Resolve {
		resolve[k] = v
	}
	o.Resolve = resolve
	e := apitest.Start(t, memstore.New(), o)
	acct, tok := e.Account("dev@example.com", "business")
	return e, tok, acct
}

// waitJob polls a job until it ends. The worker waits (its polls, webhook
// retries) on the environment's clock, so each round moves that clock on.
func waitJob(t *testing.T, e *apitest.Env, tok, id string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		m := e.Do("GET", "/v1/content/bulk/"+id, tok, nil).JSON(t)
		if m["status"] == "completed" || m["status"] == "failed" {
			return m
		}
		time.Sleep(5 * time.Millisecond)
		e.Clock.Advance(20 * time.Millisecond)
	}
	t.Fatalf("job %s did not finish", id)
	return nil
}

func TestBulkValidation(t *testing.T) {
	e, tok, _ := bulkEnv(t, nil, apitest.Options{NoWorker: true})
	many := make([]string, 101)
	for i := range many {
		many[i] = fmt.Sprintf("http://news.test/%d", i)
	}
	long := "http://news.test/" + strings.Repeat("a", 490)
	for _, c := range []struct {
		body  any
		field string
	}{
		{map[string]any{"email": true}, "urls"},
		{map[string]any{"urls": []string{}, "email": true}, "urls"},
		{map[string]any{"urls": many, "email": true}, "urls"},
		{map[string]any{"urls": []string{"http://news.test/a", "http://news.test/b", "ftp://x.test/"}, "email": true}, "urls.2"},
		{map[string]any{"urls": []string{"http://127.0.0.1/"}, "email": true}, "urls.0"},
		{map[string]any{"urls": []string{"http://news.test:8080/"}, "email": true}, "urls.0"},
		{map[string]any{"urls": "http://news.test/a", "email": true}, "urls"},
		{map[string]any{"urls": []string{"http://news.test/a"}}, "callback_url"},
		{map[string]any{"urls": []string{"http://news.test/a"}, "email": false, "callback_url": ""}, "callback_url"},
		{map[string]any{"urls": []string{"http://news.test/a"}, "callback_url": "ftp://hooks.test/"}, "callback_url"},
		{map[string]any{"urls": []string{"http://news.test/a"}, "callback_url": "http://localhost:9000/hook"}, "callback_url"},
		{map[string]any{"urls": []string{"http://news.test/a"}, "callback_url": "http://127.0.0.1:9000/hook"}, "callback_url"},
		{map[string]any{"urls": []string{"http://news.test/a"}, "callback_url": "http://intranet.test/hook"}, "callback_url"},
		{map[string]any{"urls": []string{"http://news.test/a"}, "callback_url": "http://user:pw@hooks.test/"}, "callback_url"},
		{map[string]any{"urls": []string{"http://news.test/a"}, "callback_url": "https://h.test/" + strings.Repeat("x", 500)}, "callback_url"},
		{map[string]any{"sitemap": long + "xxxxxxxxxxxx", "email": true}, "sitemap"},
		{map[string]any{"sitemap": "http://news.test/missing", "email": true}, "sitemap"},
		{map[string]any{"sitemap": "http://news.test/tide-pools", "email": true}, "sitemap"},
		{map[string]any{"urls": []string{"http://news.test/a"}, "email": "maybe"}, "email"},
	} {
		r := e.Do("POST", "/v1/content/bulk", tok, c.body)
		m := r.JSON(t)
		errs, _ := m["errors"].(map[string]any)
		if r.Status != 422 || errs[c.field] == nil {
			t.Errorf("%v = %d %v; want 422 naming %s", c.body, r.Status, m, c.field)
		}
	}
	if b := balance(t, e, tok); b != 90000 {
		t.Fatalf("422s held or charged credits: %v", b)
	}
}

func TestBulkPaymentRequired(t *testing.T) {
	e, tok, acct := bulkEnv(t, nil, apitest.Options{NoWorker: true})
	_, freeTok := e.Account("free@example.com", "none")
	r := e.Do("POST", "/v1/content/bulk", freeTok, map[string]any{"urls": []string{"http://news.test/a"}, "email": true})
	if r.Status != 402 || r.JSON(t)["message"] != "Plan Required" {
		t.Fatalf("no plan = %d %s", r.Status, r.Body)
	}
	err := e.Store.WithCredits(context.Background(), acct.ID, func(tx ports.LedgerTx) error {
		st := tx.State()
		st.AllowanceUsed, st.Used = 90000-5, 90000-5
		return tx.SaveState(st)
	})
	if err != nil {
		t.Fatal(err)
	}
	r = e.Do("POST", "/v1/content/bulk", tok, map[string]any{"urls": []string{"http://news.test/a", "http://news.test/b", "http://news.test/c"}, "email": true})
	m := r.JSON(t)
	if r.Status != 402 || m["message"] != "Insufficient Credits" || m["required"] != float64(6) || m["balance"] != float64(5) {
		t.Fatalf("short balance = %d %v", r.Status, m)
	}
	if r := e.Do("POST", "/v1/content/bulk", tok, map[string]any{"urls": []string{"http://news.test/a", "http://news.test/b"}, "email": true}); r.Status != 202 {
		t.Fatalf("an affordable batch = %d %s", r.Status, r.Body)
	}
	// The accepted batch holds 4 of the 5 credits left: another batch of one cannot start.
	r = e.Do("POST", "/v1/content/bulk", tok, map[string]any{"urls": []string{"http://news.test/x"}, "email": true})
	if m := r.JSON(t); r.Status != 402 || m["balance"] != float64(1) {
		t.Fatalf("after the hold = %d %v", r.Status, m)
	}
}

func TestBulkAsyncJobDelivers(t *testing.T) {
	rcv := newReceiver(t, 2) // fails twice, then succeeds
	e, tok, acct := bulkEnv(t, rcv, apitest.Options{})
	urls := []string{"http://news.test/tide-pools", "http://news.test/missing", "http://news.test/bench/1", "http://news.test/bench/0?page=2&x=y", "http://NEWS.test/tide-pools/"}
	r := e.Do("POST", "/v1/content/bulk", tok, map[string]any{"urls": urls, "email": true, "callback_url": rcv.URL()})
	ack := r.JSON(t)
	if r.Status != 202 || ack["status"] != "queued" || ack["urls_count"] != float64(4) || ack["url_source"] != "urls" || ack["delivery_method"] != "email,webhook" {
		t.Fatalf("ack = %d %v", r.Status, ack)
	}
	for _, k := range []string{"message", "job_id", "estimated_completion_time", "queued_at"} {
		if s, _ := ack[k].(string); s == "" {
			t.Errorf("ack.%s = %v", k, ack[k])
		}
	}
	id := ack["job_id"].(string)
	job := waitJob(t, e, tok, id)
	if job["status"] != "completed" || job["success_count"] != float64(3) || job["failed_count"] != float64(1) || job["processed_count"] != float64(4) {
		t.Fatalf("job = %v", job)
	}
	// Webhook: three attempts, the last accepted, each signed.
	ds := rcv.deliveries()
	if len(ds) != 3 {
		t.Fatalf("%d webhook attempts, want 3", len(ds))
	}
	secret, _ := e.Store.(ports.AccountStore).WebhookSecret(context.Background(), acct.ID, func() string { return "unused" })
	for _, d := range ds {
		if d.header.Get("Content-Type") != "application/json" || d.header.Get("User-Agent") != "Trawl-API/1.0" || d.header.Get("X-Trawl-Webhook") != "content-all-results" {
			t.Fatalf("headers = %v", d.header)
		}
		if !verify(secret, d.header.Get("X-Trawl-Signature"), d.body) {
			t.Fatalf("signature %q does not verify", d.header.Get("X-Trawl-Signature"))
		}
	}
	var payload map[string]any
	if err := json.Unmarshal(ds[2].body, &payload); err != nil {
		t.Fatal(err)
	}
	user := payload["user"].(map[string]any)
	results := payload["results"].([]any)
	if payload["processed_count"] != float64(4) || payload["success_count"] != float64(3) || payload["failed_count"] != float64(1) ||
		user["email"] != "dev@example.com" || user["id"] != float64(acct.ID) || len(results) != 4 || payload["processing_completed_at"] == "" {
		t.Fatalf("payload = %.500v", payload)
	}
	miss := results[1].(map[string]any)
	if miss["success"] != false || miss["content"] != nil || !strings.Contains(fmt.Sprint(miss["error"]), "404") || miss["reason"] != "page_not_found" || miss["retryable"] != false {
		t.Fatalf("failed result = %v", miss)
	}
	first := results[0].(map[string]any)
	if c := first["content"].(map[string]any); first["success"] != true || first["error"] != nil || !strings.Contains(c["markdown"].(string), "Three ways to keep cool") {
		t.Fatalf("first result = %.300v", first)
	}
	deliveries := job["deliveries"].([]any)
	if len(deliveries) != 4 { // email + 3 webhook attempts
		t.Fatalf("recorded deliveries = %v", deliveries)
	}
	// Email: in the outbox, with a link to the ZIP.
	files, _ := filepath.Glob(filepath.Join(e.Outbox, "*.eml"))
	if len(files) != 1 {
		t.Fatalf("%d emails", len(files))
	}
	raw, _ := os.ReadFile(files[0])
	msg, _ := mail.ReadMessage(bytes.NewReader(raw))
	if msg.Header.Get("To") != "<dev@example.com>" {
		t.Fatalf("email to %q", msg.Header.Get("To"))
	}
	link := regexp.MustCompile(`http://[^\s"<]+/files/[^\s"<]+`).FindString(strings.ReplaceAll(strings.ReplaceAll(string(raw), "=\r\n", ""), "=3D", "="))
	if link == "" || job["download_url"] != link {
		t.Fatalf("link %q, job download_url %v", link, job["download_url"])
	}
	res, err := http.Get(link)
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("download = %v %v", res, err)
	}
	zipped, _ := io.ReadAll(res.Body)
	res.Body.Close()
	zr, err := zip.NewReader(bytes.NewReader(zipped), int64(len(zipped)))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
	}
	sort.Strings(names)
	want := []string{"html/news.test/bench/0_page-2_x-y_" + qhash("page=2&x=y") + ".html", "html/news.test/bench/1.html", "html/news.test/tide-pools.html", "manifest.json",
		"markdown/news.test/bench/0_page-2_x-y_" + qhash("page=2&x=y") + ".md", "markdown/news.test/bench/1.md", "markdown/news.test/tide-pools.md"}
	if strings.Join(names, " ") != strings.Join(want, " ") {
		t.Fatalf("zip tree = %v\nwant %v", names, want)
	}
	// Billing: 2 per extracted URL, one transaction each, the hold released.
	st, held, _ := e.Store.ReadCredits(context.Background(), acct.ID, e.Clock.Now())
	if billing.DefaultPlans().Balance(st) != 90000-6 || held != 0 {
		t.Fatalf("balance %d held %d", billing.DefaultPlans().Balance(st), held)
	}
	tx := e.Do("GET", "/v1/credits/transactions", tok, nil).JSON(t)
	if tx["total"] != float64(3) {
		t.Fatalf("transactions = %v", tx["total"])
	}
	first0 := tx["data"].([]any)[0].(map[string]any)
	if first0["service_type"] != "bulk_content" || first0["metadata"].(map[string]any)["job_id"] != id {
		t.Fatalf("transaction = %v", first0)
	}
	// Another account cannot see the job.
	_, otherTok := e.Account("other@example.com", "business")
	if r := e.Do("GET", "/v1/content/bulk/"+id, otherTok, nil); r.Status != 404 {
		t.Fatalf("another account's job = %d", r.Status)
	}
}

func qhash(q string) string {
	sum := sha256.Sum256([]byte(q))
	return hex.EncodeToString(sum[:4])
}

func TestBulkSyncAndFallback(t *testing.T) {
	rcv := newReceiver(t, 0)
	e, tok, _ := bulkEnv(t, rcv, apitest.Options{NoWorker: true})
	r := e.Do("POST", "/v1/content/bulk", tok, map[string]any{"urls": []string{"http://news.test/tide-pools", "http://news.test/bench/1"}, "callback_url": rcv.URL(), "sync": true})
	ack := r.JSON(t)
	if r.Status != 200 || ack["estimated_completion_time"] != "Completed" || ack["status"] != "queued" || ack["delivery_method"] != "webhook" {
		t.Fatalf("sync = %d %v", r.Status, ack)
	}
	if len(rcv.deliveries()) != 1 {
		t.Fatal("the sync job's webhook did not fire before the answer")
	}
	if job := e.Do("GET", "/v1/content/bulk/"+ack["job_id"].(string), tok, nil).JSON(t); job["status"] != "completed" || job["sync"] != true {
		t.Fatalf("sync job = %v", job)
	}
	eleven := make([]string, 11)
	for i := range eleven {
		eleven[i] = fmt.Sprintf("http://news.test/p%d", i)
	}
	r = e.Do("POST", "/v1/content/bulk", tok, map[string]any{"urls": eleven, "email": true, "sync": true})
	ack = r.JSON(t)
	if r.Status != 202 || !strings.Contains(ack["message"].(string), "cannot run synchronously") || ack["estimated_completion_time"] == "Completed" {
		t.Fatalf("11 URLs with sync = %d %v", r.Status, ack)
	}
}

func TestBulkFromSitemap(t *testing.T) {
	e, tok, _ := bulkEnv(t, nil, apitest.Options{})
	r := e.Do("POST", "/v1/content/bulk", tok, map[string]any{"sitemap": "http://news.test/s1.xml", "urls": nil, "email": true})
	ack := r.JSON(t)
	if r.Status != 202 || ack["url_source"] != "sitemap" || ack["urls_count"] != float64(3) {
		t.Fatalf("sitemap ack = %d %v", r.Status, ack)
	}
	// urls win over sitemap.
	r = e.Do("POST", "/v1/content/bulk", tok, map[string]any{"sitemap": "http://news.test/s1.xml", "urls": []string{"http://news.test/tide-pools"}, "email": true})
	if ack := r.JSON(t); ack["url_source"] != "urls" || ack["urls_count"] != float64(1) {
		t.Fatalf("urls and sitemap = %v", ack)
	}
}

// TestBulkRender: a job takes render like the single-URL endpoints (422
// naming it on a bad value), keeps it, reads its pages that way and says
// per URL how each page was read.
func TestBulkRender(t *testing.T) {
	rcv := newReceiver(t, 0)
	e, tok, _ := bulkEnv(t, rcv, apitest.Options{NoWorker: true})
	for _, bad := range []any{"sometimes", 1, true} {
		r := e.Do("POST", "/v1/content/bulk", tok, map[string]any{"urls": []string{"http://news.test/tide-pools"}, "email": true, "render": bad})
		errs, _ := r.JSON(t)["errors"].(map[string]any)
		if r.Status != 422 || errs["render"] == nil {
			t.Errorf("render %v = %d %s", bad, r.Status, r.Body)
		}
	}
	urls := []string{"http://news.test/tide-pools", "http://news.test/missing"}
	r := e.Do("POST", "/v1/content/bulk", tok, map[string]any{"urls": urls, "callback_url": rcv.URL(), "sync": true, "render": "never"})
	if r.Status != 200 {
		t.Fatalf("sync job = %d %s", r.Status, r.Body)
	}
	job := e.Do("GET", "/v1/content/bulk/"+r.JSON(t)["job_id"].(string), tok, nil).JSON(t)
	results := job["results"].([]any)
	read, missing := results[0].(map[string]any), results[1].(map[string]any)
	if job["render"] != "never" || read["engine"] != "http" || missing["engine"] != nil {
		t.Fatalf("render never: job render %v, results %v", job["render"], results)
	}
	var payload struct {
		Results []struct {
			Engine  string `json:"engine"`
			Content *struct {
				Engine string `json:"engine"`
			} `json:"content"`
		} `json:"results"`
	}
	if err := json.Unmarshal(rcv.deliveries()[0].body, &payload); err != nil {
		t.Fatal(err)
	}
	if p := payload.Results; len(p) != 2 || p[0].Engine != "http" || p[0].Content.Engine != "http" || p[1].Engine != "" {
		t.Fatalf("webhook results = %+v", p)
	}
	// This server has no browser: render=always fails every URL, free, and
	// says why.
	before := balance(t, e, tok)
	r = e.Do("POST", "/v1/content/bulk", tok, map[string]any{"urls": urls[:1], "email": true, "sync": true, "render": "ALWAYS"})
	job = e.Do("GET", "/v1/content/bulk/"+r.JSON(t)["job_id"].(string), tok, nil).JSON(t)
	res := job["results"].([]any)[0].(map[string]any)
	if job["render"] != "always" || res["success"] != false || res["engine"] != nil || !strings.Contains(fmt.Sprint(res["error"]), "does not render pages in a browser") {
		t.Fatalf("render always without a browser: %v", job)
	}
	if b := balance(t, e, tok); b != before {
		t.Fatalf("a URL that could not be rendered was charged: %v -> %v", before, b)
	}
	// No render given: auto.
	r = e.Do("POST", "/v1/content/bulk", tok, map[string]any{"urls": urls[:1], "email": true, "sync": true})
	job = e.Do("GET", "/v1/content/bulk/"+r.JSON(t)["job_id"].(string), tok, nil).JSON(t)
	if job["render"] != "auto" || job["results"].([]any)[0].(map[string]any)["engine"] != "http" {
		t.Fatalf("default render: %v", job)
	}
}

// TestBulkReasonCodes: a failed URL of a job carries the reason code and
// retryable flag a single-URL call answers with its 503, in the status,
// the webhook payload and the archive's manifest.
func TestBulkReasonCodes(t *testing.T) {
	edge := sites.New(t, "edge.test")
	edge.Mux.HandleFunc("/denied", func(w http.ResponseWriter, _ *http.Request) { http.Error(w, "Forbidden", http.StatusForbidden) })
	edge.Handle("/huge", "text/html", "<html><body><p>"+strings.Repeat("x", 11<<20)+"</p></body></html>")
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := closed.Addr().String()
	closed.Close()
	resolve := sites.Resolve(edge)
	resolve["down.test:80"] = down
	rcv := newReceiver(t, 0)
	e, tok, _ := bulkEnv(t, rcv, apitest.Options{NoWorker: true, Resolve: resolve})
	want := []struct {
		url       string
		reason    string
		retryable bool
	}{
		{"http://news.test/tide-pools", "", false},
		{"http://news.test/report.pdf", "not_html", false},
		{"http://news.test/nav-only", "no_main_content", false},
		{"http://down.test/page", "refused", true},
		{"http://edge.test/huge", "too_large", false},
		{"http://edge.test/denied", "blocked", false},
		{"http://news.test/missing", "page_not_found", false},
	}
	var urls []string
	for _, w := range want {
		urls = append(urls, w.url)
	}
	r := e.Do("POST", "/v1/content/bulk", tok, map[string]any{"urls": urls, "email": true, "callback_url": rcv.URL(), "sync": true})
	if r.Status != 200 {
		t.Fatalf("sync job = %d %s", r.Status, r.Body)
	}
	id := r.JSON(t)["job_id"].(string)
	// Each single-URL call answers the same code (the rule is one).
	for _, w := range want[1:] {
		m := e.Do("GET", "/v1/content?url="+w.url, tok, nil).JSON(t)
		if m["reason"] != w.reason || m["retryable"] != w.retryable {
			t.Errorf("/v1/content %s = %v %v, want %s %v", w.url, m["reason"], m["retryable"], w.reason, w.retryable)
		}
	}
	check := func(where string, i int, reason, retryable any) {
		t.Helper()
		w := want[i]
		if w.reason == "" {
			if reason != nil || retryable != nil {
				t.Errorf("%s: %s succeeded but carries reason %v retryable %v", where, w.url, reason, retryable)
			}
			return
		}
		if reason != w.reason || retryable != w.retryable {
			t.Errorf("%s: %s = reason %v retryable %v, want %s %v", where, w.url, reason, retryable, w.reason, w.retryable)
		}
	}
	job := e.Do("GET", "/v1/content/bulk/"+id, tok, nil).JSON(t)
	if job["failed_count"] != float64(len(want)-1) {
		t.Fatalf("job = %v", job)
	}
	for i, res := range job["results"].([]any) {
		m := res.(map[string]any)
		check("status", i, m["reason"], m["retryable"])
	}
	var payload map[string]any
	if err := json.Unmarshal(rcv.deliveries()[0].body, &payload); err != nil {
		t.Fatal(err)
	}
	for i, res := range payload["results"].([]any) {
		m := res.(map[string]any)
		check("webhook", i, m["reason"], m["retryable"])
	}
	res, err := http.Get(job["download_url"].(string))
	if err != nil {
		t.Fatal(err)
	}
	zipped, _ := io.ReadAll(res.Body)
	res.Body.Close()
	zr, err := zip.NewReader(bytes.NewReader(zipped), int64(len(zipped)))
	if err != nil {
		t.Fatal(err)
	}
	f, err := zr.Open("manifest.json")
	if err != nil {
		t.Fatalf("no manifest in the archive: %v", err)
	}
	var manifest struct {
		Results []map[string]any `json:"results"`
	}
	if err := json.NewDecoder(f).Decode(&manifest); err != nil || len(manifest.Results) != len(want) {
		t.Fatalf("manifest = %+v, %v", manifest, err)
	}
	for i, m := range manifest.Results {
		check("manifest", i, m["reason"], m["retryable"])
		if m["url"] != want[i].url {
			t.Errorf("manifest entry %d is %v, want %s", i, m["url"], want[i].url)
		}
	}
	if m := manifest.Results[0]; m["html"] != "html/news.test/tide-pools.html" || m["markdown"] != "markdown/news.test/tide-pools.md" || m["engine"] != "http" {
		t.Errorf("manifest entry of the extracted page = %v", m)
	}
}

// TestBulkSubmitKeepsTraceParent: a job keeps the W3C traceparent its
// submitter passed to Submit, and drops a value that is not one.
func TestBulkSubmitKeepsTraceParent(t *testing.T) {
	e, tok, _ := bulkEnv(t, nil, apitest.Options{NoWorker: true})
	p, err := e.Auth.Authenticate(context.Background(), "Bearer "+tok)
	if err != nil {
		t.Fatal(err)
	}
	const tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	for in, want := range map[string]string{tp: tp, "not-a-traceparent": ""} {
		ack, err := e.Bulk.Submit(context.Background(), credits.Call{Principal: p, RequestID: "req_t"}, bulk.Request{URLs: []string{"http://news.test/tide-pools"}, Email: true, TraceParent: in})
		if err != nil {
			t.Fatal(err)
		}
		j, err := e.Store.(ports.JobStore).Job(context.Background(), ack.JobID)
		if err != nil || j.TraceParent != want {
			t.Fatalf("traceparent %q stored as %q (%v), want %q", in, j.TraceParent, err, want)
		}
	}
}
