package connectapi_test

import (
	"context"
	"testing"

	"connectrpc.com/connect"

	trawlv1 "github.com/trawlhq/trawl/adapters/connectapi/gen/trawl/v1"
	"github.com/trawlhq/trawl/testkit/apitest"
	"github.com/trawlhq/trawl/testkit/memstore"
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
