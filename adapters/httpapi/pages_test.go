package httpapi_test

import (
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/trawlhq/trawl/bench/extractbench"
	"github.com/trawlhq/trawl/testkit/apitest"
	"github.com/trawlhq/trawl/testkit/memstore"
	"github.com/trawlhq/trawl/testkit/sites"
)

// pageSite serves real pages: a hand-written article, two pages of the
// extraction benchmark, error and block pages, a PDF, robots.txt and sitemaps.
func pageSite(t *testing.T) *sites.Site {
	s := sites.New(t, "news.test")
	article, err := os.ReadFile("../../testdata/pages/article.html")
	if err != nil {
		t.Fatal(err)
	}
	s.Handle("/tide-pools", "text/html; charset=utf-8", string(article))
	pages, err := extractbench.Load("../../testdata/extraction/dev")
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range pages[:2] {
		s.Handle(fmt.Sprintf("/bench/%d", i), "text/html", string(p.HTML))
	}
	s.Mux.HandleFunc("/missing", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(404)
		w.Write([]byte("<html><body><h1>Not found</h1></body></html>"))
	})
	s.Handle("/captcha", "text/html", `<html><head><title>Just a moment...</title></head><body><script>window._cf_chl_opt={}</script></body></html>`)
	s.Handle("/nav-only", "text/html", `<html><body><nav><a href="/a">A</a></nav></body></html>`)
	s.Handle("/report.pdf", "application/pdf", "%PDF-1.7 binary")
	s.Handle("/robots.txt", "text/plain", "User-agent: *\nSitemap: http://news.test/sitemap-index.xml\n")
	s.Handle("/sitemap-index.xml", "application/xml", `<sitemapindex><sitemap><loc>http://news.test/s1.xml</loc></sitemap><sitemap><loc>http://news.test/s2.xml</loc></sitemap></sitemapindex>`)
	s.Handle("/s1.xml", "application/xml", `<urlset><url><loc>http://news.test/a</loc></url><url><loc>http://news.test/B/</loc></url><url><loc>http://news.test/c</loc></url></urlset>`)
	s.Handle("/s2.xml", "application/xml", `<urlset><url><loc>http://news.test/b</loc></url><url><loc>http://NEWS.test/A/</loc></url><url><loc>http://news.test/d</loc></url></urlset>`)
	return s
}

func pagesEnv(t *testing.T) (*apitest.Env, string, *sites.Site) {
	site := pageSite(t)
	empty := sites.New(t, "empty.test")
	empty.Handle("/", "text/html", "<p>home</p>")
	e := apitest.Start(t, memstore.New(), apitest.Options{Resolve: sites.Resolve(site, empty)})
	_, tok := e.Account("dev@example.com", "business")
	return e, tok, site
}

func balance(t *testing.T, e *apitest.Env, tok string) float64 {
	t.Helper()
	return num(t, e.Do("GET", "/v1/credits", tok, nil).JSON(t), "balance")
}

func TestURLRulesOnEveryEndpoint(t *testing.T) {
	e, tok, _ := pagesEnv(t)
	long := "http://news.test/" + strings.Repeat("a", 170)
	cases := map[string]string{
		"missing":           "",
		"malformed":         "not a url",
		"no scheme":         "news.test/a",
		"ftp":               "ftp://news.test/a",
		"too long":          long,
		"raw IPv4":          "http://93.184.216.34/",
		"raw IPv6":          "http://[2606:4700::1111]/",
		"decimal IP":        "http://1572395042/",
		"port":              "http://news.test:8080/a",
		"localhost":         "http://localhost/",
		"metadata resolves": "http://metadata.test/latest/meta-data/",
		"private resolves":  "http://intranet.test/",
	}
	for _, path := range []string{"/v1/scrape", "/v1/content", "/v1/map"} {
		for name, u := range cases {
			r := e.Do("GET", path+"?url="+urlQuery(u), tok, nil)
			m := r.JSON(t)
			errs, _ := m["errors"].(map[string]any)
			if r.Status != 422 || errs["url"] == nil {
				t.Errorf("%s %s (%q) = %d %v", path, name, u, r.Status, m)
			}
		}
	}
	for _, q := range []string{"limit=0", "limit=1001", "limit=ten", "limit=-5"} {
		r := e.Do("GET", "/v1/map?url=http://news.test/&"+q, tok, nil)
		if errs, _ := r.JSON(t)["errors"].(map[string]any); r.Status != 422 || errs["limit"] == nil {
			t.Errorf("map %s = %d %s", q, r.Status, r.Body)
		}
	}
	if b := balance(t, e, tok); b != 90000 {
		t.Fatalf("422s were charged: balance %v", b)
	}
}

func urlQuery(s string) string {
	return strings.NewReplacer("%", "%25", "&", "%26", "#", "%23", " ", "%20", "+", "%2B").Replace(s)
}

func TestContentEndpoint(t *testing.T) {
	e, tok, _ := pagesEnv(t)
	r := e.Do("GET", "/v1/content?url=http://news.test/tide-pools", tok, nil)
	m := r.JSON(t)
	if r.Status != 200 || m["url"] != "http://news.test/tide-pools" || m["success"] != true || num(t, m, "statusCode") != 200 || m["errorMessage"] != nil {
		t.Fatalf("content = %d %v", r.Status, m)
	}
	if cl := r.Header.Get("Content-Length"); cl != strconv.Itoa(len(r.Body)) { // sent whole, not chunked
		t.Errorf("Content-Length %q for a body of %d bytes", cl, len(r.Body))
	}
	if h, _ := m["html"].(string); !strings.Contains(h, "<h2>Three ways to keep cool</h2>") || strings.Contains(h, "<script") {
		t.Errorf("html = %s", h)
	}
	if md, _ := m["markdown"].(string); !strings.Contains(md, "## Three ways to keep cool") || !strings.Contains(md, "(http://news.test/glossary/operculum)") {
		t.Errorf("markdown = %s", md)
	}
	meta, _ := m["metadata"].(map[string]any)
	for _, k := range []string{"title", "description", "keywords", "author", "language", "favicon", "ogImage", "ogImageWidth", "ogImageHeight", "ogTitle", "ogType"} {
		if _, ok := meta[k].(string); !ok {
			t.Errorf("metadata.%s = %v", k, meta[k])
		}
	}
	if meta["favicon"] != "http://news.test/static/favicon.png" || meta["ogImage"] != "http://news.test/images/pool.jpg" || meta["language"] != "en-GB" {
		t.Errorf("metadata = %v", meta)
	}
	if b := balance(t, e, tok); b != 89998 {
		t.Fatalf("balance %v, want 89998", b)
	}
	for i := range 2 {
		r := e.Do("GET", fmt.Sprintf("/v1/content?url=http://news.test/bench/%d", i), tok, nil)
		if md, _ := r.JSON(t)["markdown"].(string); r.Status != 200 || len(md) < 300 {
			t.Errorf("benchmark page %d = %d, %d chars of markdown", i, r.Status, len(md))
		}
	}
	tx := e.Do("GET", "/v1/credits/transactions?per_page=1", tok, nil).JSON(t)["data"].([]any)[0].(map[string]any)
	if tx["service_type"] != "content" || tx["credits"] != float64(2) || tx["metadata"].(map[string]any)["url"] != "http://news.test/bench/1" {
		t.Errorf("transaction = %v", tx)
	}
}

func TestContentFailuresAreFree(t *testing.T) {
	e, tok, _ := pagesEnv(t)
	for path, want := range map[string]struct {
		msg, reason string
		retryable   bool
	}{
		"/missing":    {"the site answered 404 Not Found", "page_not_found", false},
		"/captcha":    {"bot-protection challenge", "captcha", false},
		"/nav-only":   {"no main content", "no_main_content", false},
		"/report.pdf": {"not an HTML page", "not_html", false},
	} {
		r := e.Do("GET", "/v1/content?url=http://news.test"+path, tok, nil)
		m := r.JSON(t)
		if msg, _ := m["message"].(string); r.Status != 503 || !strings.Contains(msg, want.msg) || m["reason"] != want.reason || m["retryable"] != want.retryable || len(m) != 3 {
			t.Errorf("%s = %d %v; want 503 saying %q, reason %s", path, r.Status, m, want.msg, want.reason)
		}
		if r.Header.Get("X-Credits-Charged") != "0" || r.Header.Get("X-Credits-Remaining") != "90000" {
			t.Errorf("%s: credits headers = %q, %q", path, r.Header.Get("X-Credits-Charged"), r.Header.Get("X-Credits-Remaining"))
		}
	}
	r := e.Do("GET", "/v1/content?url=http://gone.test/", tok, nil)
	if m := r.JSON(t); r.Status != 503 || !strings.Contains(m["message"].(string), "gone.test was not found") || m["reason"] != "dns" {
		t.Errorf("unknown host = %d %s", r.Status, r.Body)
	}
	if b := balance(t, e, tok); b != 90000 {
		t.Fatalf("failures were charged: balance %v", b)
	}
}

func TestScrapeEndpoint(t *testing.T) {
	e, tok, _ := pagesEnv(t)
	r := e.Do("GET", "/v1/scrape?url=http://news.test/tide-pools", tok, nil)
	m := r.JSON(t)
	if h, _ := m["html"].(string); r.Status != 200 || !strings.Contains(h, "<script>window.tracker") || m["final_url"] != "http://news.test/tide-pools" ||
		num(t, m, "statusCode") != 200 || m["contentType"] != "text/html" || m["url"] != "http://news.test/tide-pools" {
		t.Fatalf("scrape = %d %.300v", r.Status, m)
	}
	// The target's error status is reported and billed: something was received.
	r = e.Do("GET", "/v1/scrape?url=http://news.test/missing", tok, nil)
	if m := r.JSON(t); r.Status != 200 || num(t, m, "statusCode") != 404 {
		t.Fatalf("scrape of a 404 = %d %v", r.Status, m)
	}
	if r := e.Do("GET", "/v1/scrape?url=http://news.test/report.pdf", tok, nil); r.Status != 503 {
		t.Fatalf("scrape of a PDF = %d", r.Status)
	}
	if b := balance(t, e, tok); b != 89998 {
		t.Fatalf("balance %v, want 89998 (two scrapes at 1)", b)
	}
}

func TestMapEndpoint(t *testing.T) {
	e, tok, _ := pagesEnv(t)
	r := e.Do("GET", "/v1/map?url=http://news.test/some/article?x=1", tok, nil)
	m := r.JSON(t)
	urls, _ := m["urls"].([]any)
	got := fmt.Sprint(urls)
	if r.Status != 200 || got != "[http://news.test/a http://news.test/B/ http://news.test/c http://news.test/d]" || num(t, m, "total") != 4 ||
		m["truncated"] != false || fmt.Sprint(m["sources"]) != "[sitemap]" || m["url"] != "http://news.test/some/article?x=1" {
		t.Fatalf("map = %d %v", r.Status, m)
	}
	r = e.Do("GET", "/v1/map?url=http://news.test/&limit=2", tok, nil)
	m = r.JSON(t)
	if urls, _ := m["urls"].([]any); len(urls) != 2 || num(t, m, "total") != 4 || m["truncated"] != true {
		t.Fatalf("limit 2 = %v", m)
	}
	r = e.Do("GET", "/v1/map?url=http://empty.test/", tok, nil)
	if msg, _ := r.JSON(t)["message"].(string); r.Status != 503 || !strings.Contains(msg, "No sitemap could be discovered for empty.test") {
		t.Fatalf("no sitemap = %d %s", r.Status, r.Body)
	}
	if b := balance(t, e, tok); b != 90000-6 {
		t.Fatalf("balance %v, want two maps at 3 and a free miss", b)
	}
}

// TestRenderParameter: render is checked before any work (422 naming it,
// free), and a server without a browser answers engine http, or a free 503
// saying it does not render when a browser was needed.
func TestRenderParameter(t *testing.T) {
	e, tok, site := pagesEnv(t)
	site.Handle("/spa", "text/html", `<html><body><div id="root"></div><script type="module" src="/assets/index.js"></script></body></html>`)
	for _, path := range []string{"/v1/content?render=sometimes&url=http://news.test/tide-pools", "/v1/scrape?render=1&url=http://news.test/tide-pools", "/v1/serp/content?q=x&render=yes"} {
		r := e.Do("GET", path, tok, nil)
		if r.Status != 422 || !strings.Contains(string(r.Body), "render") {
			t.Errorf("%s = %d %s", path, r.Status, r.Body)
		}
	}
	if r := e.Do("POST", "/v1/prompt", tok, map[string]any{"prompt": "hi", "url": "http://news.test/tide-pools", "render": "maybe"}); r.Status != 422 || !strings.Contains(string(r.Body), "render") {
		t.Errorf("prompt with a bad render = %d %s", r.Status, r.Body)
	}
	for _, mode := range []string{"", "&render=auto", "&render=never"} {
		r := e.Do("GET", "/v1/content?url=http://news.test/tide-pools"+mode, tok, nil)
		if m := r.JSON(t); r.Status != 200 || m["engine"] != "http" {
			t.Errorf("content%s = %d engine %v", mode, r.Status, m["engine"])
		}
	}
	if r := e.Do("GET", "/v1/scrape?url=http://news.test/spa", tok, nil); r.Status != 200 || r.JSON(t)["engine"] != "http" {
		t.Errorf("scrape of a shell without a browser = %d %s", r.Status, r.Body)
	}
	before := balance(t, e, tok)
	r := e.Do("GET", "/v1/content?url=http://news.test/spa", tok, nil)
	if r.Status != 503 || !strings.Contains(string(r.Body), "does not render pages in a browser") {
		t.Errorf("content of a shell without a browser = %d %s", r.Status, r.Body)
	}
	r = e.Do("GET", "/v1/content?render=always&url=http://news.test/tide-pools", tok, nil)
	if r.Status != 503 || !strings.Contains(string(r.Body), "does not render pages in a browser") {
		t.Errorf("render=always without a browser = %d %s", r.Status, r.Body)
	}
	if b := balance(t, e, tok); b != before {
		t.Fatalf("failed renders charged: balance %v, was %v", b, before)
	}
}
