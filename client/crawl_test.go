package client

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/trawlhq/trawl/core/crawl"
	"github.com/trawlhq/trawl/testkit/apitest"
	"github.com/trawlhq/trawl/testkit/crawlsite"
	"github.com/trawlhq/trawl/testkit/memstore"
	"github.com/trawlhq/trawl/testkit/sites"
)

// TestServerCrawl runs a crawl through the client against the real API,
// every request and answer checked against the OpenAPI document.
func TestServerCrawl(t *testing.T) {
	site := sites.New(t, "crawl.test")
	site.Mux.Handle("/", crawlsite.New(30))
	e := apitest.Start(t, memstore.New(), apitest.Options{Resolve: sites.Resolve(site), Crawl: crawl.RunnerOptions{Poll: 20 * time.Millisecond, Backoff: 100 * time.Millisecond}})
	acct, token := e.Account("crawl@example.com", "business")
	wire := newCheckedTransport(t, e.Server.URL)
	c := New(e.Server.URL, token, WithHTTPClient(&http.Client{Transport: wire, Timeout: time.Minute}))
	ctx := context.Background()

	_, err := c.CreateCrawl(ctx, CrawlRequest{URL: "ftp://crawl.test/"})
	wantStatus(t, err, 422, "url")
	limit, depth := 12, 2
	ack, err := c.CreateCrawl(ctx, CrawlRequest{URL: "http://crawl.test/", Limit: &limit, MaxDepth: &depth, Exclude: []string{"/calendar/**"}, Render: "never"})
	if err != nil || ack.Status != CrawlQueued || ack.Limit != 12 || ack.MaxDepth != 2 {
		t.Fatalf("CreateCrawl = %+v %v", ack, err)
	}
	var st CrawlStatus
	for deadline := time.Now().Add(30 * time.Second); !st.Done(); {
		if st, err = c.Crawl(ctx, ack.CrawlID); err != nil || time.Now().After(deadline) {
			t.Fatalf("Crawl = %+v %v", st, err)
		}
		time.Sleep(5 * time.Millisecond)
		e.Clock.Advance(20 * time.Millisecond)
	}
	if st.Status != CrawlCompleted || st.Succeeded != 12 || st.CreditsCharged != 24 || st.Skipped["limit"] == 0 || st.CompletedAt == nil {
		t.Fatalf("crawl = %+v", st)
	}
	seen, cursor := map[string]bool{}, ""
	for {
		pg, err := c.CrawlPages(ctx, ack.CrawlID, cursor, 5)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range pg.Pages {
			if seen[p.URL] || !p.Success || p.Markdown == "" || (p.Depth == 0) != (p.Parent == "") {
				t.Fatalf("page %+v", p)
			}
			seen[p.URL] = true
		}
		if pg.NextCursor == nil {
			break
		}
		cursor = *pg.NextCursor
	}
	if len(seen) != 12 {
		t.Fatalf("listed %d pages, want 12", len(seen))
	}
	_, err = c.CrawlPages(ctx, ack.CrawlID, "", 101)
	wantStatus(t, err, 422, "per_page")
	_, err = c.Crawl(ctx, "crawl_nope")
	wantStatus(t, err, 404, "")
	if st, err = c.CancelCrawl(ctx, ack.CrawlID); err != nil || st.Status != CrawlCompleted {
		t.Fatalf("CancelCrawl of an ended crawl = %+v %v", st, err)
	}
	cr, err := e.Credits.Status(ctx, acct.ID)
	if err != nil || cr.Balance != 90000-24 {
		t.Fatalf("balance %d %v, want 24 charged and the hold released", cr.Balance, err)
	}
}
