package httpapi_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/trawlhq/trawl/core/crawl"
	"github.com/trawlhq/trawl/testkit/apitest"
	"github.com/trawlhq/trawl/testkit/crawlsite"
	"github.com/trawlhq/trawl/testkit/memstore"
	"github.com/trawlhq/trawl/testkit/sites"
)

// TestMapIncludeLinks: /v1/map with include_links=true answers a site
// without a sitemap from its links (robots.txt obeyed, nofollow honoured,
// one spelling of each URL, the same host only), tops up a short sitemap
// with them, and leaves /v1/map as it was without the parameter.
func TestMapIncludeLinks(t *testing.T) {
	cs := crawlsite.New(200)
	linked := sites.New(t, "linked.test")
	linked.Mux.Handle("/", cs)
	short := sites.New(t, "short.test")
	short.Handle("/sitemap.xml", "application/xml", `<urlset><url><loc>http://short.test/listed</loc></url><url><loc>http://short.test/about</loc></url></urlset>`)
	short.Handle("/robots.txt", "text/plain", "User-agent: *\nDisallow: /admin\n")
	short.Handle("/", "text/html", `<html><body><a href="/about">About</a> <a href="/news">News</a> <a href="/admin/x">Admin</a> <a href="/news?utm_source=x">Again</a></body></html>`)
	short.Handle("/news", "text/html", `<html><body><a href="/news/1">One</a> <a href="http://linked.test/">Elsewhere</a></body></html>`)
	e := apitest.Start(t, memstore.New(), apitest.Options{Resolve: sites.Resolve(linked, short), NoWorker: true})
	_, tok := e.Account("map@example.com", "business")

	// Without include_links: the spec's /v1/map, a free 503 without a sitemap.
	if r := e.Do("GET", "/v1/map?url=http://linked.test/", tok, nil); r.Status != 503 || !strings.Contains(string(r.Body), "no_sitemap") {
		t.Fatalf("map without include_links = %d %s", r.Status, r.Body)
	}
	if r := e.Do("GET", "/v1/map?url=http://linked.test/&include_links=maybe", tok, nil); r.Status != 422 || !strings.Contains(string(r.Body), `"include_links"`) {
		t.Fatalf("include_links=maybe = %d %s", r.Status, r.Body)
	}
	r := e.Do("GET", "/v1/map?url=http://linked.test/&include_links=true&limit=40", tok, nil)
	m := r.JSON(t)
	urls, _ := m["urls"].([]any)
	if r.Status != 200 || fmt.Sprint(m["sources"]) != "[links]" || len(urls) != 40 || num(t, m, "total") != 40 || m["truncated"] != false || urls[0] != "http://linked.test/" {
		t.Fatalf("map of a site without a sitemap = %d %v", r.Status, m)
	}
	seen := map[string]bool{}
	for _, u := range urls {
		s := u.(string)
		if seen[s] || !strings.HasPrefix(s, "http://linked.test/") || strings.Contains(s, "/private/") || strings.Contains(s, "/nofollow/") || strings.Contains(s, "utm_") || strings.HasSuffix(s, "index.html") {
			t.Fatalf("map listed %s (urls %v)", s, urls)
		}
		seen[s] = true
	}
	if cs.Hits("/private/") != 0 || cs.Hits("/nofollow/") != 0 || cs.Hits("/robots.txt") > 3 || cs.Hits("/p/") > crawl.LinkMapPages {
		t.Fatalf("private %d, nofollow %d, robots.txt %d, articles read %d", cs.Hits("/private/"), cs.Hits("/nofollow/"), cs.Hits("/robots.txt"), cs.Hits("/p/"))
	}

	// robots.txt: read by the sitemap discovery of both maps, and once for the links (then from the store).
	// A short sitemap is topped up by links, its own URLs first.
	r = e.Do("GET", "/v1/map?url=http://short.test/&include_links=1", tok, nil)
	m = r.JSON(t)
	if got := fmt.Sprint(m["urls"]); r.Status != 200 || fmt.Sprint(m["sources"]) != "[sitemap links]" ||
		got != "[http://short.test/listed http://short.test/about http://short.test/ http://short.test/news http://short.test/news/1]" {
		t.Fatalf("map of a short sitemap = %d %v", r.Status, m)
	}
	// A sitemap that fills the limit is answered as without the parameter.
	r = e.Do("GET", "/v1/map?url=http://short.test/&include_links=true&limit=2", tok, nil)
	if m = r.JSON(t); r.Status != 200 || fmt.Sprint(m["sources"]) != "[sitemap]" || num(t, m, "total") != 2 {
		t.Fatalf("map with a full sitemap = %d %v", r.Status, m)
	}
	if b := balance(t, e, tok); b != 90000-9 {
		t.Fatalf("balance %v, want three maps at 3 and the failures free", b)
	}
}
