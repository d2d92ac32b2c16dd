package client

import (
	"context"
	"net/http"
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

const pricingURL = "http://watch.test/pricing"

// TestServerCacheAndChanges runs every call that takes max_age, store,
// changes and tag against the real API with its page cache on, and reads
// the cache and change objects back.
func TestServerCacheAndChanges(t *testing.T) {
	site := sites.New(t, "watch.test")
	pr := sites.NewPricing(10)
	site.Mux.Handle("/pricing", pr)
	eng := fakesearch.New(t, "google")
	eng.Serve(fakesearch.Result{Title: "Pricing", Link: pricingURL, Snippet: "Plans."})
	llm := fakellm.New(t)
	answers := []string{`{"basic":10}`, `{"basic":12}`}
	var n int
	var mu sync.Mutex
	llm.Answer = func(fakellm.Request) string {
		mu.Lock()
		defer mu.Unlock()
		a := answers[min(n, len(answers)-1)]
		n++
		return a
	}
	e := apitest.Start(t, memstore.New(), apitest.Options{Resolve: sites.Resolve(site), Engines: map[string]string{"google": eng.URL}, LLMBaseURL: llm.BaseURL(), CacheMaxBytes: 64 << 20})
	_, token := e.Account("cache@example.com", "pro")
	c := New(e.Server.URL, token, WithHTTPClient(&http.Client{Transport: newCheckedTransport(t, e.Server.URL), Timeout: time.Minute}))
	ctx := context.Background()

	first, err := c.ContentWith(ctx, ContentRequest{URL: pricingURL, MaxAge: 3600, Changes: true})
	if err != nil || first.Cache == nil || first.Cache.Hit || first.Cache.CachedAt == nil || first.Change == nil || first.Change.Status != "new" {
		t.Fatalf("first ContentWith = %+v %+v %v, want a stored miss, change new", first.Cache, first.Change, err)
	}
	e.Clock.Advance(time.Minute)
	sc, err := c.ScrapeWith(ctx, ScrapeRequest{URL: pricingURL, MaxAge: 3600})
	if err != nil || sc.Cache == nil || !sc.Cache.Hit || sc.Cache.Age != 60 || site.Hits.Load() != 1 {
		t.Fatalf("ScrapeWith = %+v %v (site read %d times), want a hit of age 60", sc.Cache, err, site.Hits.Load())
	}
	no := false
	sc, err = c.ScrapeWith(ctx, ScrapeRequest{URL: pricingURL, Store: &no})
	if err != nil || sc.Cache == nil || sc.Cache.Hit || sc.Cache.CachedAt != nil || site.Hits.Load() != 2 {
		t.Fatalf("ScrapeWith store false = %+v %v, want an unkept miss", sc.Cache, err)
	}
	_, err = c.ScrapeWith(ctx, ScrapeRequest{URL: pricingURL, MaxAge: -1})
	wantStatus(t, err, 422, "max_age")

	pr.Set(12)
	e.Clock.Advance(time.Hour)
	ct, err := c.ContentWith(ctx, ContentRequest{URL: pricingURL, Changes: true})
	if err != nil || ct.Change == nil || ct.Change.Status != "changed" || ct.Change.PreviousAt == nil || !strings.Contains(ct.Change.Diff, "+Basic costs 12 euros") {
		t.Fatalf("changed page: %+v %v", ct.Change, err)
	}
	ct, err = c.ContentWith(ctx, ContentRequest{URL: pricingURL, Changes: true, Tag: "weekly"})
	if err != nil || ct.Change == nil || ct.Change.Status != "new" {
		t.Fatalf("a new tag: %+v %v", ct.Change, err)
	}
	_, err = c.ContentWith(ctx, ContentRequest{URL: pricingURL, Changes: true, Tag: strings.Repeat("x", 101)})
	wantStatus(t, err, 422, "tag")

	for i, hit := range []bool{false, true} {
		res, err := c.Search(ctx, SearchParams{Q: "pricing", MaxAge: 3600})
		if err != nil || res.Cache == nil || res.Cache.Hit != hit {
			t.Fatalf("Search %d: cache %+v %v, want hit %v", i, res.Cache, err, hit)
		}
	}
	res, err := c.SearchContent(ctx, SearchParams{Q: "pricing", MaxAge: 3600, MaxContent: 1})
	if err != nil || res.Cache == nil || !res.Cache.Hit || len(res.OrganicResults) == 0 || res.OrganicResults[0].Content == nil || res.OrganicResults[0].Content.Cache == nil {
		t.Fatalf("SearchContent: %+v %v", res, err)
	}

	schema := []byte(`{"type":"object","required":["basic"],"properties":{"basic":{"type":"number"}}}`)
	for i, want := range []string{"new", "changed"} {
		x, err := c.Extract(ctx, ExtractRequest{URL: pricingURL, Schema: schema, Changes: true})
		if err != nil || x.Change == nil || x.Change.Status != want {
			t.Fatalf("Extract %d: %+v %v, want %s", i, x.Change, err, want)
		}
		if want == "changed" && (string(x.Change.Fields["basic"].Previous) != "10" || string(x.Change.Fields["basic"].Current) != "12") {
			t.Fatalf("Extract fields: %+v", x.Change.Fields)
		}
	}

	ack, err := c.CreateBulkJob(ctx, BulkRequest{URLs: []string{pricingURL}, Email: true, Sync: true, MaxAge: 3600, Changes: true})
	if err != nil {
		t.Fatal(err)
	}
	urls, err := e.Store.(ports.JobStore).JobURLs(ctx, ack.JobID)
	if err != nil || len(urls) != 1 || !strings.Contains(string(urls[0].Content), `"status":"same"`) || !strings.Contains(string(urls[0].Content), `"hit":true`) {
		t.Fatalf("bulk page: %s %v, want a cache hit whose change is same", urls[0].Content, err)
	}
	_, err = c.CreateBulkJob(ctx, BulkRequest{URLs: []string{pricingURL}, Email: true, MaxAge: 31 * 24 * 3600})
	wantStatus(t, err, 422, "max_age")
	_, err = c.CreateCrawl(ctx, CrawlRequest{URL: pricingURL, Email: true, Tag: strings.Repeat("x", 101), Changes: true})
	wantStatus(t, err, 422, "tag")
}
