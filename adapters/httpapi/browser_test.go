package httpapi_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/trawlhq/trawl/adapters/fetch"
	"github.com/trawlhq/trawl/core/crawl"
	"github.com/trawlhq/trawl/testkit/apitest"
	"github.com/trawlhq/trawl/testkit/countryproxy"
	"github.com/trawlhq/trawl/testkit/memstore"
	"github.com/trawlhq/trawl/testkit/sites"
)

func TestContentFormatsAndOptions(t *testing.T) {
	e, tok, site := pagesEnv(t)
	site.Handle("/linked", "text/html", `<html><body><article><h1>Linked</h1><p>`+strings.Repeat("A paragraph of plain words about the harbour. ", 10)+`</p>
<p><a href="/tide-pools#x">Tide <em>pools</em></a> <a href="/tide-pools">again</a> <img src="/a.png" alt="A boat"></p></article></body></html>`)
	before := balance(t, e, tok)
	r := e.Do("GET", "/v1/content?url=http://news.test/linked&formats=links,images", tok, nil)
	if r.Status != 200 {
		t.Fatalf("GET = %d %s", r.Status, r.Body)
	}
	m := r.JSON(t)
	links, _ := m["links"].([]any)
	if len(links) != 1 || links[0].(map[string]any)["url"] != "http://news.test/tide-pools" || links[0].(map[string]any)["text"] != "Tide pools" {
		t.Errorf("links = %v", m["links"])
	}
	if imgs, _ := m["images"].([]any); len(imgs) != 1 || imgs[0].(map[string]any)["alt"] != "A boat" {
		t.Errorf("images = %v", m["images"])
	}
	if _, ok := m["screenshot"]; ok {
		t.Error("a screenshot nobody asked for")
	}
	if got := before - balance(t, e, tok); got != 2 {
		t.Errorf("charged %v, want the page's 2", got)
	}
	r = e.Do("POST", "/v1/content", tok, map[string]any{"url": "http://news.test/linked", "formats": []string{"links"}, "headers": map[string]string{"X-Trace": "1"}, "locale": "de-DE"})
	if r.Status != 200 || r.JSON(t)["links"] == nil {
		t.Fatalf("POST = %d %s", r.Status, r.Body)
	}
	if r := e.Do("GET", "/v1/content?url=http://news.test/linked", tok, nil); strings.Contains(string(r.Body), `"links"`) {
		t.Error("links without formats: the spec's answer must stay as it is")
	}
	before = balance(t, e, tok)
	for _, c := range []struct {
		body  map[string]any
		field string
	}{
		{map[string]any{"url": "http://news.test/linked", "formats": []string{"pdf"}}, "formats"},
		{map[string]any{"url": "http://news.test/linked", "actions": []map[string]any{{"type": "click", "selector": "#a"}, {"type": "wait"}}}, "actions[1].milliseconds"},
		{map[string]any{"url": "http://news.test/linked", "headers": map[string]string{"Host": "intranet.test"}}, "headers.Host"},
		{map[string]any{"url": "http://news.test/linked", "country": "DE"}, "country"},
		{map[string]any{"url": "http://news.test/linked", "actions": "click"}, "actions"},
		{map[string]any{"url": "http://news.test/linked", "formats": []string{"screenshot"}, "render": "never"}, "render"},
	} {
		r := e.Do("POST", "/v1/content", tok, c.body)
		if r.Status != http.StatusUnprocessableEntity || !strings.Contains(string(r.Body), `"`+c.field+`"`) {
			t.Errorf("%v: %d %s, want 422 on %s", c.body, r.Status, r.Body, c.field)
		}
	}
	// This server has no browser: a screenshot is refused, free.
	if r := e.Do("POST", "/v1/content", tok, map[string]any{"url": "http://news.test/linked", "formats": []string{"screenshot"}}); r.Status != 503 {
		t.Errorf("screenshot without a browser = %d %s", r.Status, r.Body)
	}
	if got := before - balance(t, e, tok); got != 0 {
		t.Errorf("failures charged %v", got)
	}
}

// TestCountryRetry: a page read through a proxy of the caller's country
// that answers 403 is read once more through the other proxy of that
// country; the answer carries that proxy's stamp and costs the page's
// price. With both of a country's proxies blocked the call fails, free.
func TestCountryRetry(t *testing.T) {
	site := pageSite(t)
	blocked, open, us := countryproxy.Start(t, "DE", "de-blocked", true), countryproxy.Start(t, "DE", "de-open", false), countryproxy.Start(t, "US", "us-blocked", true)
	us2 := countryproxy.Start(t, "US", "us-blocked-too", true)
	var pool []fetch.Proxy
	for _, p := range []*countryproxy.Proxy{blocked, open, us, us2} {
		u, _ := url.Parse(p.URL())
		pool = append(pool, fetch.Proxy{Country: p.Country, URL: u})
	}
	e := apitest.Start(t, memstore.New(), apitest.Options{Resolve: sites.Resolve(site), Proxies: pool})
	_, tok := e.Account("dev@example.com", "business")
	// A page whose first pick in DE is the blocked proxy.
	path := ""
	for i := 0; path == ""; i++ {
		if p := fmt.Sprintf("/tide-pools?v=%d", i); fetch.PickProxy(2, "http://news.test"+p, 0) == 0 {
			path = p
		}
	}
	before := balance(t, e, tok)
	r := e.Do("GET", "/v1/content?country=de&url="+url.QueryEscape("http://news.test"+path), tok, nil)
	if r.Status != 200 || !strings.Contains(r.JSON(t)["markdown"].(string), countryproxy.Stamp("DE", "de-open")) {
		t.Fatalf("DE = %d %.300s", r.Status, r.Body)
	}
	t.Logf("DE: blocked proxy %d requests, open proxy %d, retries %d", blocked.Requests.Load(), open.Requests.Load(), e.Content.ProxyRetries())
	if blocked.Requests.Load() != 1 || open.Requests.Load() != 1 || e.Content.ProxyRetries() != 1 {
		t.Errorf("requests: blocked %d, open %d; retries %d", blocked.Requests.Load(), open.Requests.Load(), e.Content.ProxyRetries())
	}
	if got := before - balance(t, e, tok); got != 2 {
		t.Errorf("charged %v, want 2", got)
	}
	before = balance(t, e, tok)
	r = e.Do("GET", "/v1/content?country=US&url=http://news.test/tide-pools", tok, nil)
	if r.Status != 503 || us.Requests.Load()+us2.Requests.Load() != 2 || e.Content.ProxyRetries() != 2 {
		t.Errorf("US, all blocked = %d %s; requests %d+%d", r.Status, r.Body, us.Requests.Load(), us2.Requests.Load())
	}
	if got := before - balance(t, e, tok); got != 0 {
		t.Errorf("a blocked call charged %v", got)
	}
	if r := e.Do("GET", "/v1/content?country=FR&url=http://news.test/tide-pools", tok, nil); r.Status != 422 || !strings.Contains(string(r.Body), "DE, US") {
		t.Errorf("FR = %d %s", r.Status, r.Body)
	}
	// The guard holds through the pool: a private target is refused
	// before any proxy is asked.
	n := blocked.Tunnels.Load() + open.Tunnels.Load()
	if r := e.Do("GET", "/v1/content?country=DE&url=http://intranet.test/x", tok, nil); r.Status != 422 || blocked.Tunnels.Load()+open.Tunnels.Load() != n {
		t.Errorf("private target through DE = %d %s", r.Status, r.Body)
	}
}

// TestSerpContentFormats: each page /v1/serp/content reads carries the
// formats asked for; a bad option is a 422 before the search is charged.
func TestSerpContentFormats(t *testing.T) {
	e := newSearchEnv(t)
	e.engines["duckduckgo"].Serve(serpResults...)
	r := e.Do("GET", "/v1/serp/content?q=tide&engine=duckduckgo&max_content=1&formats=links,images&locale=en-GB", e.tok, nil)
	got := organicContents(t, r.JSON(t))
	c := got["http://news.test/tide-pools"]
	if c == nil || c["success"] != true || c["links"] == nil || c["images"] == nil {
		t.Fatalf("the result page lacks its formats: %v", c)
	}
	before := balance(t, e.Env, e.tok)
	if r := e.Do("GET", "/v1/serp/content?q=tide&engine=duckduckgo&formats=pdf", e.tok, nil); r.Status != 422 || !strings.Contains(string(r.Body), `"formats"`) {
		t.Errorf("formats=pdf = %d %s", r.Status, r.Body)
	}
	if after := balance(t, e.Env, e.tok); after != before {
		t.Errorf("a refused search cost %v", before-after)
	}
}

// TestCrawlPageOptions: a crawl's headers reach every page it reads, its
// formats are on every page it keeps, and a bad option is refused before
// anything is held.
func TestCrawlPageOptions(t *testing.T) {
	site := sites.New(t, "crawl.test")
	var seen atomic.Int64
	site.Mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Trace") == "tide-42" && r.Header.Get("Cookie") == "session=s1" {
			seen.Add(1)
		}
		w.Header().Set("Content-Type", "text/html")
		next := map[string]string{"/": "/a", "/a": "/b", "/b": "/"}[r.URL.Path]
		fmt.Fprintf(w, `<html><body><article><h1>Page %s</h1><p>%s</p><p><a href="%s">next</a></p></article></body></html>`, r.URL.Path,
			strings.Repeat("Plain words about the harbour and its boats. ", 8), next)
	})
	e := apitest.Start(t, memstore.New(), apitest.Options{Resolve: sites.Resolve(site), Crawl: crawl.RunnerOptions{Poll: 20 * time.Millisecond, Backoff: 100 * time.Millisecond}})
	_, tok := e.Account("dev@example.com", "business")
	r := e.Do("POST", "/v1/crawl", tok, map[string]any{"url": "http://crawl.test/", "limit": 3, "formats": []string{"links"}, "headers": map[string]string{"X-Trace": "tide-42"}, "cookies": map[string]string{"session": "s1"}})
	if r.Status != 202 {
		t.Fatalf("crawl = %d %s", r.Status, r.Body)
	}
	id := r.JSON(t)["crawl_id"].(string)
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if st := e.Do("GET", "/v1/crawl/"+id, tok, nil).JSON(t); st["status"] == "completed" {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	pages := e.Do("GET", "/v1/crawl/"+id+"/pages", tok, nil).JSON(t)["pages"].([]any)
	if len(pages) != 3 {
		t.Fatalf("pages = %v", pages)
	}
	for _, p := range pages {
		if p.(map[string]any)["links"] == nil {
			t.Errorf("a page without its links: %v", p)
		}
	}
	if seen.Load() < 3 {
		t.Errorf("%d requests carried the crawl's headers and cookies, want every page's", seen.Load())
	}
	if r := e.Do("POST", "/v1/crawl", tok, map[string]any{"url": "http://crawl.test/", "headers": map[string]string{"Host": "x"}}); r.Status != 422 || !strings.Contains(string(r.Body), "headers.Host") {
		t.Errorf("a bad header = %d %s", r.Status, r.Body)
	}
}
