package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/trawlhq/trawl/ports"
	"github.com/trawlhq/trawl/testkit/apitest"
	"github.com/trawlhq/trawl/testkit/fakesearch"
	"github.com/trawlhq/trawl/testkit/memstore"
	"github.com/trawlhq/trawl/testkit/sites"
	"github.com/trawlhq/trawl/testkit/storetest"
)

// countingSite is a fixture site that counts what it is asked: full
// answers and 304s, per path. Its pages change when told to.
type countingSite struct {
	*sites.Site
	mu       sync.Mutex
	version  map[string]int
	full     map[string]int
	notMod   map[string]int
	lastMod  time.Time
	requests atomic.Int64
}

func (c *countingSite) counts(path string) (full, notModified int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.full[path], c.notMod[path]
}

func (c *countingSite) change(path string) {
	c.mu.Lock()
	c.version[path]++
	c.mu.Unlock()
}

func articleHTML(title string, v, size int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "<html><head><title>%s</title></head><body><article><h1>%s</h1><p>This is version %d of the page.</p>", title, title, v)
	for b.Len() < size {
		fmt.Fprintf(&b, "<p>Paragraph %d of %s explains tide pools, the creatures that live in them and how the sea returns twice a day.</p>", b.Len(), title)
	}
	b.WriteString("</article></body></html>")
	return b.String()
}

// newCountingSite serves /etag/* with an ETag, /lastmod/* with a
// Last-Modified date, /plain/* with no validator, each page about size
// bytes.
func newCountingSite(t *testing.T, size int) *countingSite {
	c := &countingSite{Site: sites.New(t, "count.test"), version: map[string]int{}, full: map[string]int{}, notMod: map[string]int{}, lastMod: time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)}
	c.Mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		c.requests.Add(1)
		c.mu.Lock()
		v := c.version[r.URL.Path]
		c.mu.Unlock()
		etag := fmt.Sprintf(`"%s-v%d"`, strings.ReplaceAll(r.URL.Path, "/", "_"), v)
		mod := c.lastMod.Add(time.Duration(v) * time.Hour)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		switch {
		case strings.HasPrefix(r.URL.Path, "/etag/"):
			w.Header().Set("ETag", etag)
			if r.Header.Get("If-None-Match") == etag {
				c.mu.Lock()
				c.notMod[r.URL.Path]++
				c.mu.Unlock()
				w.WriteHeader(http.StatusNotModified)
				return
			}
		case strings.HasPrefix(r.URL.Path, "/lastmod/"):
			w.Header().Set("Last-Modified", mod.Format(http.TimeFormat))
			if since, err := http.ParseTime(r.Header.Get("If-Modified-Since")); err == nil && !mod.After(since) {
				c.mu.Lock()
				c.notMod[r.URL.Path]++
				c.mu.Unlock()
				w.WriteHeader(http.StatusNotModified)
				return
			}
		}
		c.mu.Lock()
		c.full[r.URL.Path]++
		c.mu.Unlock()
		_, _ = w.Write([]byte(articleHTML(r.URL.Path, v, size)))
	})
	return c
}

func cacheEnv(t *testing.T, maxBytes int64) (*apitest.Env, *countingSite) {
	return cacheEnvOn(t, memstore.New(), maxBytes)
}

func cacheEnvOn(t *testing.T, store storetest.Stores, maxBytes int64) (*apitest.Env, *countingSite) {
	site := newCountingSite(t, 4<<10)
	e := apitest.Start(t, store, apitest.Options{Resolve: sites.Resolve(site.Site), CacheMaxBytes: maxBytes})
	return e, site
}

func pagePath(endpoint, pageURL string, params ...string) string {
	q := url.Values{"url": {pageURL}}
	for i := 0; i+1 < len(params); i += 2 {
		q.Set(params[i], params[i+1])
	}
	return endpoint + "?" + q.Encode()
}

// cacheOf reads the answer's cache object and checks the header agrees.
func cacheOf(t *testing.T, r apitest.Response) map[string]any {
	t.Helper()
	if r.Status != 200 {
		t.Fatalf("status %d: %s", r.Status, r.Body)
	}
	c, ok := r.JSON(t)["cache"].(map[string]any)
	if !ok {
		t.Fatalf("no cache object in %s", r.Body)
	}
	want := "miss"
	if c["hit"] == true {
		want = "hit"
	}
	if got := r.Header.Get("X-Trawl-Cache"); got != want {
		t.Fatalf("X-Trawl-Cache = %q, body says hit=%v", got, c["hit"])
	}
	return c
}

func TestCacheMaxAgeZeroAlwaysFetches(t *testing.T) {
	e, site := cacheEnv(t, 64<<20)
	_, tok := e.Account("a@example.com", "business")
	page := site.URL("/plain/a")
	for range 3 {
		c := cacheOf(t, e.Do("GET", pagePath("/v1/content", page), tok, nil))
		if c["hit"] != false || c["cached_at"] != nil {
			t.Fatalf("max_age 0: cache = %v, want a miss that was not kept", c)
		}
	}
	if full, _ := site.counts("/plain/a"); full != 3 {
		t.Fatalf("3 calls without max_age reached the site %d times, want 3", full)
	}
}

func TestCacheHitServesEveryFormatWithoutTouchingTheSite(t *testing.T) {
	for name, open := range stores() {
		t.Run(name, func(t *testing.T) { testCacheHit(t, open(t)) })
	}
}

func testCacheHit(t *testing.T, store storetest.Stores) {
	e, site := cacheEnvOn(t, store, 64<<20)
	_, tok := e.Account("a@example.com", "business")
	page := site.URL("/plain/b")
	first := cacheOf(t, e.Do("GET", pagePath("/v1/content", page, "max_age", "3600"), tok, nil))
	if first["hit"] != false {
		t.Fatalf("first call: %v, want a miss", first)
	}
	e.Clock.Advance(10 * time.Minute)
	r := e.Do("GET", pagePath("/v1/content", page, "max_age", "3600"), tok, nil)
	c := cacheOf(t, r)
	if c["hit"] != true || c["age"] != float64(600) || c["cached_at"] != first["cached_at"] {
		t.Fatalf("second call: cache = %v, want a hit 600 s old cached at %v", c, first["cached_at"])
	}
	if got := r.Header.Get("X-Credits-Charged"); got != "2" {
		t.Fatalf("a content hit charged %q, want 2 (the spec's price)", got)
	}
	if md, _ := r.JSON(t)["markdown"].(string); !strings.Contains(md, "version 0") {
		t.Fatalf("hit markdown = %.200q", md)
	}
	// The same entry serves the raw HTML.
	s := e.Do("GET", pagePath("/v1/scrape", page, "max_age", "3600"), tok, nil)
	if c := cacheOf(t, s); c["hit"] != true {
		t.Fatalf("scrape after content: %v, want a hit", c)
	}
	if html, _ := s.JSON(t)["html"].(string); !strings.Contains(html, "<article>") {
		t.Fatalf("scrape hit html = %.200q", html)
	}
	if full, _ := site.counts("/plain/b"); full != 1 {
		t.Fatalf("the site was asked %d times, want 1", full)
	}
	// Past max_age, with no validator: fetched again.
	e.Clock.Advance(time.Hour)
	if c := cacheOf(t, e.Do("GET", pagePath("/v1/content", page, "max_age", "3600"), tok, nil)); c["hit"] != false {
		t.Fatalf("stale without validator: %v, want a miss", c)
	}
	if full, _ := site.counts("/plain/b"); full != 2 {
		t.Fatalf("the site was asked %d times, want 2", full)
	}
}

func TestCacheRevalidates(t *testing.T) {
	for name, open := range stores() {
		t.Run(name, func(t *testing.T) { testCacheRevalidates(t, open) })
	}
}

func testCacheRevalidates(t *testing.T, open opener) {
	for _, path := range []string{"/etag/p", "/lastmod/p"} {
		t.Run(path, func(t *testing.T) {
			e, site := cacheEnvOn(t, open(t), 64<<20)
			_, tok := e.Account("a@example.com", "business")
			page := site.URL(path)
			cacheOf(t, e.Do("GET", pagePath("/v1/content", page, "max_age", "60"), tok, nil))
			e.Clock.Advance(2 * time.Minute)
			c := cacheOf(t, e.Do("GET", pagePath("/v1/content", page, "max_age", "60"), tok, nil))
			if c["hit"] != true || c["revalidated"] != true || c["age"] != float64(0) {
				t.Fatalf("stale entry, unchanged page: %v, want a revalidated hit of age 0", c)
			}
			if full, nm := site.counts(path); full != 1 || nm != 1 {
				t.Fatalf("site answered %d full, %d not-modified; want 1 and 1", full, nm)
			}
			// The 304 refreshed the entry: fresh again for max_age.
			e.Clock.Advance(30 * time.Second)
			if c := cacheOf(t, e.Do("GET", pagePath("/v1/content", page, "max_age", "60"), tok, nil)); c["hit"] != true || c["revalidated"] == true || c["age"] != float64(30) {
				t.Fatalf("after the refresh: %v, want a plain hit 30 s old", c)
			}
			// The page changes: the revalidation brings the new body.
			site.change(path)
			e.Clock.Advance(2 * time.Minute)
			r := e.Do("GET", pagePath("/v1/content", page, "max_age", "60"), tok, nil)
			if c := cacheOf(t, r); c["hit"] != false {
				t.Fatalf("changed page: %v, want a miss", c)
			}
			if md, _ := r.JSON(t)["markdown"].(string); !strings.Contains(md, "version 1") {
				t.Fatalf("changed page markdown = %.200q, want version 1", md)
			}
			if full, nm := site.counts(path); full != 2 || nm != 1 {
				t.Fatalf("site answered %d full, %d not-modified; want 2 and 1", full, nm)
			}
		})
	}
}

func TestCacheStoreFalseKeepsOut(t *testing.T) {
	e, site := cacheEnv(t, 64<<20)
	_, tok := e.Account("a@example.com", "business")
	page := site.URL("/plain/private")
	if c := cacheOf(t, e.Do("GET", pagePath("/v1/content", page, "store", "false"), tok, nil)); c["cached_at"] != nil {
		t.Fatalf("store=false: %v, want cached_at null", c)
	}
	if c := cacheOf(t, e.Do("GET", pagePath("/v1/content", page, "max_age", "3600"), tok, nil)); c["hit"] != false {
		t.Fatalf("after store=false: %v, want a miss", c)
	}
	if full, _ := site.counts("/plain/private"); full != 2 {
		t.Fatalf("site asked %d times, want 2", full)
	}
}

func TestCacheSharesAnonymousFetchesAcrossAccounts(t *testing.T) {
	e, site := cacheEnv(t, 64<<20)
	_, a := e.Account("a@example.com", "business")
	_, b := e.Account("b@example.com", "business")
	page := site.URL("/plain/shared")
	cacheOf(t, e.Do("GET", pagePath("/v1/content", page, "max_age", "3600"), a, nil))
	if c := cacheOf(t, e.Do("GET", pagePath("/v1/content", page, "max_age", "3600"), b, nil)); c["hit"] != true {
		t.Fatalf("another account, anonymous fetch: %v, want a hit", c)
	}
}

func TestCacheEvictsLeastRecentlyUsed(t *testing.T) {
	for name, open := range stores() {
		t.Run(name, func(t *testing.T) { testCacheEvicts(t, open(t)) })
	}
}

func testCacheEvicts(t *testing.T, store storetest.Stores) {
	// Entries of about 4.2 KiB, a bound of 70 KiB: 16 fit, not 17.
	e, site := cacheEnvOn(t, store, 70<<10)
	_, tok := e.Account("a@example.com", "business")
	get := func(p string) map[string]any {
		return cacheOf(t, e.Do("GET", pagePath("/v1/scrape", site.URL(p), "max_age", "86400"), tok, nil))
	}
	for i := range 16 {
		get(fmt.Sprintf("/plain/%d", i))
		e.Clock.Advance(2 * time.Minute)
	}
	// Page 0 is used again: page 1 is now the least recently used.
	if c := get("/plain/0"); c["hit"] != true {
		t.Fatalf("page 0 before the bound: %v, want a hit", c)
	}
	e.Clock.Advance(2 * time.Minute)
	get("/plain/16") // past the bound: page 1 goes
	e.Clock.Advance(2 * time.Minute)
	if c := get("/plain/0"); c["hit"] != true {
		t.Fatalf("recently used page 0: %v, want a hit", c)
	}
	if c := get("/plain/1"); c["hit"] != false {
		t.Fatalf("least recently used page 1: %v, want it evicted (a miss)", c)
	}
	if full, _ := site.counts("/plain/1"); full != 2 {
		t.Fatalf("page 1 fetched %d times, want 2", full)
	}
}

func TestCacheMaxAgeRules(t *testing.T) {
	e, site := cacheEnv(t, 64<<20)
	_, tok := e.Account("a@example.com", "business")
	for _, v := range []string{"-1", "2592001", "soon"} {
		r := e.Do("GET", pagePath("/v1/content", site.URL("/plain/x"), "max_age", v), tok, nil)
		if r.Status != 422 || !strings.Contains(string(r.Body), "max_age") {
			t.Errorf("max_age=%s: %d %s, want 422 naming max_age", v, r.Status, r.Body)
		}
	}
	if r := e.Do("GET", pagePath("/v1/content", site.URL("/plain/x"), "store", "perhaps"), tok, nil); r.Status != 422 {
		t.Errorf("store=perhaps: %d, want 422", r.Status)
	}
	if site.requests.Load() != 0 {
		t.Errorf("refused calls reached the site %d times", site.requests.Load())
	}
}

func TestCacheSearchResultsAndTheirContents(t *testing.T) {
	site := newCountingSite(t, 2<<10)
	google := fakesearch.New(t, "google")
	google.Serve(fakesearch.Result{Title: "A", Link: site.URL("/plain/a"), Snippet: "a"}, fakesearch.Result{Title: "B", Link: site.URL("/etag/b"), Snippet: "b"})
	e := apitest.Start(t, memstore.New(), apitest.Options{Resolve: sites.Resolve(site.Site), Engines: map[string]string{"google": google.URL}, CacheMaxBytes: 64 << 20})
	_, tok := e.Account("a@example.com", "business")
	if c := cacheOf(t, e.Do("GET", "/v1/serp?q=tides&max_age=600", tok, nil)); c["hit"] != false {
		t.Fatalf("first search: %v", c)
	}
	r := e.Do("GET", "/v1/serp?q=tides&max_age=600", tok, nil)
	if c := cacheOf(t, r); c["hit"] != true {
		t.Fatalf("second search: %v, want a hit", c)
	}
	if got := r.Header.Get("X-Credits-Charged"); got != "5" {
		t.Fatalf("a search hit charged %q, want 5", got)
	}
	if n := len(google.Queries()); n != 1 {
		t.Fatalf("the engine was asked %d times, want 1", n)
	}
	// Another query is another entry.
	cacheOf(t, e.Do("GET", "/v1/serp?q=pools&max_age=600", tok, nil))
	if n := len(google.Queries()); n != 2 {
		t.Fatalf("the engine was asked %d times, want 2", n)
	}
	// Search content: results from the cache, pages fetched once.
	first := e.Do("GET", "/v1/serp/content?q=tides&max_content=2&max_age=600", tok, nil)
	if first.Status != 200 || first.Header.Get("X-Trawl-Cache") != "miss" {
		t.Fatalf("first search content: %d %s %s", first.Status, first.Header.Get("X-Trawl-Cache"), first.Body)
	}
	second := e.Do("GET", "/v1/serp/content?q=tides&max_content=2&max_age=600", tok, nil)
	if second.Header.Get("X-Trawl-Cache") != "hit" {
		t.Fatalf("second search content: X-Trawl-Cache %q: %s", second.Header.Get("X-Trawl-Cache"), second.Body)
	}
	if got := second.Header.Get("X-Credits-Charged"); got != "9" {
		t.Fatalf("search content hit charged %q, want 9 (5 + 2 per page)", got)
	}
	results, _ := second.JSON(t)["organic_results"].([]any)
	for _, o := range results {
		c, _ := o.(map[string]any)["content"].(map[string]any)
		if cc, _ := c["cache"].(map[string]any); cc["hit"] != true {
			t.Fatalf("content of a result: cache %v, want a hit", c["cache"])
		}
	}
	if n := len(google.Queries()); n != 2 {
		t.Fatalf("the engine was asked %d times, want 2", n)
	}
	for _, p := range []string{"/plain/a", "/etag/b"} {
		if full, _ := site.counts(p); full != 1 {
			t.Fatalf("%s fetched %d times, want 1", p, full)
		}
	}
}

func TestCacheInBulkAndCrawlBodies(t *testing.T) {
	e, site := cacheEnv(t, 64<<20)
	_, tok := e.Account("a@example.com", "business")
	cacheOf(t, e.Do("GET", pagePath("/v1/content", site.URL("/plain/a"), "max_age", "3600"), tok, nil))

	r := e.Do("POST", "/v1/content/bulk", tok, map[string]any{"urls": []string{site.URL("/plain/a"), site.URL("/plain/b")}, "email": true, "sync": true, "max_age": 3600})
	if r.Status != 200 {
		t.Fatalf("bulk: %d %s", r.Status, r.Body)
	}
	if a, _ := site.counts("/plain/a"); a != 1 {
		t.Fatalf("bulk with max_age fetched the cached page again (%d fetches)", a)
	}
	if b, _ := site.counts("/plain/b"); b != 1 {
		t.Fatalf("bulk fetched the new page %d times, want 1", b)
	}
	r = e.Do("POST", "/v1/content/bulk", tok, map[string]any{"urls": []string{site.URL("/plain/a")}, "email": true, "sync": true, "store": false})
	if r.Status != 200 {
		t.Fatalf("bulk without max_age: %d %s", r.Status, r.Body)
	}
	if a, _ := site.counts("/plain/a"); a != 2 {
		t.Fatalf("bulk without max_age: %d fetches, want 2", a)
	}
	for _, body := range []map[string]any{
		{"urls": []string{site.URL("/plain/a")}, "email": true, "max_age": -1},
		{"urls": []string{site.URL("/plain/a")}, "email": true, "max_age": 2592001},
	} {
		r := e.Do("POST", "/v1/content/bulk", tok, body)
		if errs, _ := r.JSON(t)["errors"].(map[string]any); r.Status != 422 || errs["max_age"] == nil {
			t.Errorf("bulk max_age %v: %d %s, want 422 naming max_age", body["max_age"], r.Status, r.Body)
		}
	}
	if r := e.Do("POST", "/v1/crawl", tok, map[string]any{"url": site.URL("/plain/a"), "email": true, "max_age": -1}); r.Status != 422 {
		t.Errorf("crawl max_age -1: %d %s", r.Status, r.Body)
	}

	r = e.Do("POST", "/v1/crawl", tok, map[string]any{"url": site.URL("/plain/b"), "limit": 1, "sitemap": "skip", "email": true, "max_age": 3600})
	if r.Status != 202 {
		t.Fatalf("crawl: %d %s", r.Status, r.Body)
	}
	id, _ := r.JSON(t)["crawl_id"].(string)
	if m := waitCrawl(t, e, tok, id); m["status"] != "completed" || m["succeeded"] != float64(1) {
		t.Fatalf("crawl ended %v", m)
	}
	if b, _ := site.counts("/plain/b"); b != 1 {
		t.Fatalf("the crawl with max_age fetched the cached page again (%d fetches)", b)
	}
	pages := e.Do("GET", "/v1/crawl/"+id+"/pages", tok, nil).JSON(t)
	list, _ := pages["pages"].([]any)
	if len(list) != 1 {
		t.Fatalf("crawl pages: %v", pages)
	}
	if c, _ := list[0].(map[string]any)["cache"].(map[string]any); c["hit"] != true {
		t.Fatalf("crawled page cache = %v, want a hit", c)
	}
}

// changingSite serves pages whose content, or only their chrome, changes
// between calls.
type changingSite struct {
	*sites.Site
	mu     sync.Mutex
	body   map[string]string
	chrome int
}

func (c *changingSite) set(path, body string) {
	c.mu.Lock()
	c.body[path] = body
	c.mu.Unlock()
}

func newChangingSite(t *testing.T) *changingSite {
	c := &changingSite{Site: sites.New(t, "watch.test"), body: map[string]string{}}
	c.Mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		c.mu.Lock()
		body, ok := c.body[r.URL.Path]
		c.chrome++
		chrome := c.chrome
		c.mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		// The navigation, the banner and the footer change on every request.
		fmt.Fprintf(w, `<html><head><title>Pricing</title></head><body><nav><a href="/a%d">Deal %d</a> <a href="/b">Blog</a></nav><div class="banner">Visitors today: %d</div><main><article>%s</article></main><footer>Rendered at request %d. Copyright.</footer></body></html>`, chrome, chrome, chrome*7, body, chrome)
	})
	return c
}

func pricing(basic, pro int) string {
	return fmt.Sprintf(`<h1>Pricing</h1><p>Our plans are billed monthly and can be cancelled at any time, with no questions asked and no fees.</p><p>Basic costs %d euros a month and includes ten projects, email support and weekly backups.</p><p>Pro costs %d euros a month and includes unlimited projects, phone support and daily backups.</p>`, basic, pro)
}

func TestChangesOnContent(t *testing.T) {
	site := newChangingSite(t)
	site.set("/pricing", pricing(10, 20))
	e := apitest.Start(t, memstore.New(), apitest.Options{Resolve: sites.Resolve(site.Site)})
	_, a := e.Account("a@example.com", "business")
	_, b := e.Account("b@example.com", "business")
	change := func(tok string, params ...string) map[string]any {
		t.Helper()
		r := e.Do("GET", pagePath("/v1/content", site.URL("/pricing"), append([]string{"changes", "true"}, params...)...), tok, nil)
		if r.Status != 200 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		c, _ := r.JSON(t)["change"].(map[string]any)
		if c == nil {
			t.Fatalf("no change object: %s", r.Body)
		}
		return c
	}
	if c := change(a); c["status"] != "new" || c["previous_at"] != nil {
		t.Fatalf("first call: %v, want new", c)
	}
	e.Clock.Advance(time.Hour)
	// Only the chrome changed (navigation, banner, footer).
	c := change(a)
	if c["status"] != "same" || c["previous_at"] != "2026-06-15T12:00:00Z" || c["diff"] != nil {
		t.Fatalf("chrome-only change: %v, want same with previous_at", c)
	}
	site.set("/pricing", pricing(12, 20))
	e.Clock.Advance(time.Hour)
	c = change(a)
	diff, _ := c["diff"].(string)
	if c["status"] != "changed" || c["previous_at"] != "2026-06-15T13:00:00Z" {
		t.Fatalf("price change: %v", c)
	}
	for _, want := range []string{"--- previous", "+++ current", "-Basic costs 10 euros", "+Basic costs 12 euros"} {
		if !strings.Contains(diff, want) {
			t.Errorf("diff lacks %q:\n%s", want, diff)
		}
	}
	if strings.Contains(diff, "Pro costs") && strings.Contains(diff, "-Pro") {
		t.Errorf("diff marks the unchanged Pro line:\n%s", diff)
	}
	// Another account has its own snapshots; a tag keeps others apart.
	if c := change(b); c["status"] != "new" {
		t.Fatalf("another account: %v, want new", c)
	}
	if c := change(a, "tag", "weekly"); c["status"] != "new" {
		t.Fatalf("a new tag: %v, want new", c)
	}
	if c := change(a); c["status"] != "same" {
		t.Fatalf("untagged again: %v, want same", c)
	}
	// Without changes=true nothing is compared or said.
	if r := e.Do("GET", pagePath("/v1/content", site.URL("/pricing")), a, nil); r.JSON(t)["change"] != nil {
		t.Fatalf("change without changes=true: %s", r.Body)
	}
	for _, q := range [][]string{{"changes", "perhaps"}, {"changes", "true", "tag", strings.Repeat("x", 101)}} {
		if r := e.Do("GET", pagePath("/v1/content", site.URL("/pricing"), q...), a, nil); r.Status != 422 {
			t.Errorf("%v: %d, want 422", q, r.Status)
		}
	}
	// Past the retention, the old snapshot is no previous.
	e.Clock.Advance(91 * 24 * time.Hour)
	if c := change(a); c["status"] != "new" {
		t.Fatalf("after 91 days: %v, want new", c)
	}
}

func TestChangesInBulkAndCrawl(t *testing.T) {
	site := newChangingSite(t)
	site.set("/pricing", pricing(10, 20))
	e := apitest.Start(t, memstore.New(), apitest.Options{Resolve: sites.Resolve(site.Site)})
	_, tok := e.Account("a@example.com", "business")
	e.Do("GET", pagePath("/v1/content", site.URL("/pricing"), "changes", "true"), tok, nil)
	site.set("/pricing", pricing(10, 25))
	e.Clock.Advance(time.Hour)
	r := e.Do("POST", "/v1/crawl", tok, map[string]any{"url": site.URL("/pricing"), "limit": 1, "sitemap": "skip", "email": true, "changes": true})
	if r.Status != 202 {
		t.Fatalf("crawl: %d %s", r.Status, r.Body)
	}
	id, _ := r.JSON(t)["crawl_id"].(string)
	waitCrawl(t, e, tok, id)
	// A bulk job with the same tag as nothing before: new; untagged after
	// the crawl's snapshot: same.
	for _, c := range []struct{ tag, want string }{{"launch", "new"}, {"", "same"}} {
		r := e.Do("POST", "/v1/content/bulk", tok, map[string]any{"urls": []string{site.URL("/pricing")}, "email": true, "sync": true, "changes": true, "tag": c.tag})
		if r.Status != 200 {
			t.Fatalf("bulk: %d %s", r.Status, r.Body)
		}
		job, _ := r.JSON(t)["job_id"].(string)
		urls, err := e.Store.(ports.JobStore).JobURLs(context.Background(), job)
		if err != nil || len(urls) != 1 {
			t.Fatalf("bulk URLs: %v %v", urls, err)
		}
		var page struct {
			Change struct{ Status string } `json:"change"`
		}
		if err := json.Unmarshal(urls[0].Content, &page); err != nil || page.Change.Status != c.want {
			t.Fatalf("bulk tag %q: change %q (%v) in %.300s, want %s", c.tag, page.Change.Status, err, urls[0].Content, c.want)
		}
	}
	pages, _ := e.Do("GET", "/v1/crawl/"+id+"/pages", tok, nil).JSON(t)["pages"].([]any)
	if len(pages) != 1 {
		t.Fatalf("crawl pages: %v", pages)
	}
	c, _ := pages[0].(map[string]any)["change"].(map[string]any)
	if c["status"] != "changed" || !strings.Contains(fmt.Sprint(c["diff"]), "+Pro costs 25 euros") {
		t.Fatalf("crawled page change: %v", c)
	}
}

func TestChangesOnExtractFieldByField(t *testing.T) {
	// The model answers the same data with its keys in another order, then
	// a new price.
	e, tok, _ := extractEnv(t,
		`{"name":"Copper kettle","price":49.9,"tags":["kitchen","copper"]}`,
		`{"tags":["kitchen","copper"],"price":49.9,"name":"Copper kettle"}`,
		`{"price":44.9,"name":"Copper kettle","tags":["kitchen","copper"]}`)
	body := extractBody(productSchema)
	body["changes"] = true
	want := []string{"new", "same", "changed"}
	for i, status := range want {
		e.Clock.Advance(time.Hour)
		r := e.Do("POST", "/v1/extract", tok, body)
		if r.Status != 200 {
			t.Fatalf("call %d: %d %s", i, r.Status, r.Body)
		}
		c, _ := r.JSON(t)["change"].(map[string]any)
		if c["status"] != status {
			t.Fatalf("call %d: change %v, want %s", i, c, status)
		}
		if status == "changed" {
			fields, _ := c["fields"].(map[string]any)
			price, _ := fields["price"].(map[string]any)
			if len(fields) != 1 || price["previous"] != 49.9 || price["current"] != 44.9 || c["diff"] != nil {
				t.Fatalf("changed fields = %v, want only price 49.9 -> 44.9", c)
			}
		}
	}
	// The page's content snapshots are apart from the extraction's.
	r := e.Do("GET", "/v1/content?changes=true&url="+url.QueryEscape("http://shop.test/kettle"), tok, nil)
	if c, _ := r.JSON(t)["change"].(map[string]any); c["status"] != "new" {
		t.Fatalf("content after extractions: %v, want new", c)
	}
}

func TestChangesRemovedInBulk(t *testing.T) {
	rcv := newReceiver(t, 0)
	site := newChangingSite(t)
	site.set("/pricing", pricing(10, 20))
	resolve := sites.Resolve(site.Site)
	resolve[rcv.hostKey] = strings.TrimPrefix(rcv.Server.URL, "http://")
	e := apitest.Start(t, memstore.New(), apitest.Options{Resolve: resolve})
	_, tok := e.Account("a@example.com", "business")
	submit := func() map[string]any {
		t.Helper()
		n := len(rcv.deliveries())
		r := e.Do("POST", "/v1/content/bulk", tok, map[string]any{"urls": []string{site.URL("/pricing")}, "callback_url": rcv.URL(), "sync": true, "changes": true})
		if r.Status != 200 || len(rcv.deliveries()) != n+1 {
			t.Fatalf("bulk: %d %s", r.Status, r.Body)
		}
		var payload struct {
			Results []map[string]any `json:"results"`
		}
		if err := json.Unmarshal(rcv.deliveries()[n].body, &payload); err != nil || len(payload.Results) != 1 {
			t.Fatalf("payload: %v %s", err, rcv.deliveries()[n].body)
		}
		return payload.Results[0]
	}
	if res := submit(); res["success"] != true {
		t.Fatalf("first: %v", res)
	}
	site.mu.Lock()
	delete(site.body, "/pricing")
	site.mu.Unlock()
	e.Clock.Advance(time.Hour)
	res := submit()
	c, _ := res["change"].(map[string]any)
	if res["success"] != false || c["status"] != "removed" || c["previous_at"] != "2026-06-15T12:00:00Z" {
		t.Fatalf("gone page: %v, want a failed result with change removed", res)
	}
}
