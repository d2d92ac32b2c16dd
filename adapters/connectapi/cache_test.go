package connectapi_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"

	trawlv1 "github.com/trawlhq/trawl/adapters/connectapi/gen/trawl/v1"
	"github.com/trawlhq/trawl/ports"
	"github.com/trawlhq/trawl/testkit/apitest"
	"github.com/trawlhq/trawl/testkit/memstore"
	"github.com/trawlhq/trawl/testkit/sites"
)

func TestPageCacheOverRPC(t *testing.T) {
	e := startOn(t, memstore.New(), apitest.Options{CacheMaxBytes: 64 << 20})
	ctx := context.Background()
	first, err := e.pages.GetContent(ctx, connect.NewRequest(&trawlv1.GetContentRequest{Url: "http://news.test/article", MaxAge: 3600}))
	if err != nil {
		t.Fatal(err)
	}
	if c := first.Msg.GetContent().GetCache(); c == nil || c.GetHit() || c.CachedAt == nil {
		t.Fatalf("first call: cache %v, want a stored miss", c)
	}
	sc, err := e.pages.Scrape(ctx, connect.NewRequest(&trawlv1.ScrapeRequest{Url: "http://news.test/article", MaxAge: 3600}))
	if err != nil {
		t.Fatal(err)
	}
	if c := sc.Msg.GetCache(); !c.GetHit() || c.GetCachedAt() != first.Msg.GetContent().GetCache().GetCachedAt() {
		t.Fatalf("scrape with max_age: cache %v, want a hit of the first fetch", c)
	}
	no := false
	again, err := e.pages.GetContent(ctx, connect.NewRequest(&trawlv1.GetContentRequest{Url: "http://news.test/article", Store: &no}))
	if err != nil {
		t.Fatal(err)
	}
	if c := again.Msg.GetContent().GetCache(); c.GetHit() || c.CachedAt != nil {
		t.Fatalf("store false: cache %v, want an unstored miss", c)
	}
	code(t, errOf(e.pages.GetContent(ctx, connect.NewRequest(&trawlv1.GetContentRequest{Url: "http://news.test/article", MaxAge: -1}))), connect.CodeInvalidArgument)
}

func TestChangesAndCacheHeaderOverRPC(t *testing.T) {
	site := sites.New(t, "watch.test")
	page := sites.NewPricing(10)
	site.Mux.Handle("/pricing", page)
	e := startOn(t, memstore.New(), apitest.Options{Resolve: sites.Resolve(site), CacheMaxBytes: 64 << 20})
	ctx := context.Background()
	get := func(r *trawlv1.GetContentRequest) *connect.Response[trawlv1.GetContentResponse] {
		t.Helper()
		r.Url = "http://watch.test/pricing"
		res, err := e.pages.GetContent(ctx, connect.NewRequest(r))
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	first := get(&trawlv1.GetContentRequest{Changes: true, MaxAge: 3600})
	if c := first.Msg.GetContent().GetChange(); c.GetStatus() != "new" || c.PreviousAt != nil {
		t.Fatalf("first: change %v, want new", c)
	}
	if h := first.Header().Get("X-Trawl-Cache"); h != "miss" {
		t.Fatalf("first: X-Trawl-Cache %q, want miss", h)
	}
	e.Clock.Advance(time.Minute)
	hit := get(&trawlv1.GetContentRequest{Changes: true, MaxAge: 3600})
	if h := hit.Header().Get("X-Trawl-Cache"); h != "hit" || !hit.Msg.GetContent().GetCache().GetHit() {
		t.Fatalf("second: X-Trawl-Cache %q, cache %v, want a hit", h, hit.Msg.GetContent().GetCache())
	}
	if c := hit.Msg.GetContent().GetChange(); c.GetStatus() != "same" || c.GetPreviousAt() != "2026-06-15T12:00:00Z" {
		t.Fatalf("second: change %v, want same", c)
	}
	page.Set(12)
	e.Clock.Advance(time.Hour)
	changed := get(&trawlv1.GetContentRequest{Changes: true})
	c := changed.Msg.GetContent().GetChange()
	if c.GetStatus() != "changed" || !strings.Contains(c.GetDiff(), "+Basic costs 12 euros") || !strings.Contains(c.GetDiff(), "-Basic costs 10 euros") {
		t.Fatalf("price change: %v", c)
	}
	if tagged := get(&trawlv1.GetContentRequest{Changes: true, Tag: "weekly"}); tagged.Msg.GetContent().GetChange().GetStatus() != "new" {
		t.Fatalf("a new tag: %v, want new", tagged.Msg.GetContent().GetChange())
	}
	if plain := get(&trawlv1.GetContentRequest{}); plain.Msg.GetContent().GetChange() != nil {
		t.Fatalf("without changes: %v, want none", plain.Msg.GetContent().GetChange())
	}
	ce := code(t, errOf(e.pages.GetContent(ctx, connect.NewRequest(&trawlv1.GetContentRequest{Url: "http://watch.test/pricing", Changes: true, Tag: strings.Repeat("x", 101)}))), connect.CodeInvalidArgument)
	if br := badRequest(ce); br == nil || br.FieldViolations[0].GetField() != "tag" {
		t.Fatalf("long tag: %v", ce.Details())
	}
	// Search results: a miss, then a hit of the same results, in the
	// message and the header.
	for i, want := range []string{"miss", "hit"} {
		res, err := e.srch.Search(ctx, connect.NewRequest(&trawlv1.SearchRequest{Q: "tides", MaxAge: 3600}))
		if err != nil {
			t.Fatal(err)
		}
		if h := res.Header().Get("X-Trawl-Cache"); h != want || res.Msg.GetCache().GetHit() != (want == "hit") {
			t.Fatalf("search %d: X-Trawl-Cache %q, cache %v, want %s", i, h, res.Msg.GetCache(), want)
		}
	}
	sc, err := e.srch.SearchContent(ctx, connect.NewRequest(&trawlv1.SearchContentRequest{Q: "tides", MaxAge: 3600, MaxContent: 1}))
	if err != nil {
		t.Fatal(err)
	}
	if h := sc.Header().Get("X-Trawl-Cache"); h != "miss" || !sc.Msg.GetCache().GetHit() {
		t.Fatalf("search content: X-Trawl-Cache %q (results cache %v), want miss: the page was fetched", h, sc.Msg.GetCache())
	}
	code(t, errOf(e.srch.Search(ctx, connect.NewRequest(&trawlv1.SearchRequest{Q: "tides", MaxAge: 31 * 24 * 3600}))), connect.CodeInvalidArgument)
}

// TestChangesInBulkOverRPC: a bulk job's changes and tag reach its pages.
func TestChangesInBulkOverRPC(t *testing.T) {
	site := sites.New(t, "watch.test")
	site.Mux.Handle("/pricing", sites.NewPricing(10))
	e := startOn(t, memstore.New(), apitest.Options{Resolve: sites.Resolve(site)})
	ctx := context.Background()
	if _, err := e.pages.GetContent(ctx, connect.NewRequest(&trawlv1.GetContentRequest{Url: "http://watch.test/pricing", Changes: true, Tag: "t"})); err != nil {
		t.Fatal(err)
	}
	no := false
	ack, err := e.pages.CreateBulkContentJob(ctx, connect.NewRequest(&trawlv1.CreateBulkContentJobRequest{Urls: []string{"http://watch.test/pricing"}, Email: true, Sync: true,
		Changes: true, Tag: "t", MaxAge: 60, Store: &no}))
	if err != nil {
		t.Fatal(err)
	}
	urls, err := e.Store.(ports.JobStore).JobURLs(ctx, ack.Msg.GetJobId())
	if err != nil || len(urls) != 1 {
		t.Fatalf("job URLs: %v %v", urls, err)
	}
	var got struct {
		Change struct{ Status string } `json:"change"`
	}
	if err := json.Unmarshal(urls[0].Content, &got); err != nil || got.Change.Status != "same" {
		t.Fatalf("bulk page: %s (%v), want change same", urls[0].Content, err)
	}
	code(t, errOf(e.pages.CreateBulkContentJob(ctx, connect.NewRequest(&trawlv1.CreateBulkContentJobRequest{Urls: []string{"http://watch.test/pricing"}, Email: true, MaxAge: -5}))), connect.CodeInvalidArgument)
}
