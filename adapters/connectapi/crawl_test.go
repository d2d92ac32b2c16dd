package connectapi_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"connectrpc.com/connect"

	trawlv1 "github.com/trawlhq/trawl/adapters/connectapi/gen/trawl/v1"
	"github.com/trawlhq/trawl/adapters/connectapi/gen/trawl/v1/trawlv1connect"
	"github.com/trawlhq/trawl/core/crawl"
	"github.com/trawlhq/trawl/testkit/apitest"
	"github.com/trawlhq/trawl/testkit/crawlsite"
	"github.com/trawlhq/trawl/testkit/memstore"
	"github.com/trawlhq/trawl/testkit/sites"
)

// TestCrawlService runs a crawl through CrawlService: the same crawl,
// counts, pages and charges as the JSON API, with its field errors.
func TestCrawlService(t *testing.T) {
	site := sites.New(t, "crawl.test")
	cs := crawlsite.New(20)
	site.Mux.Handle("/", cs)
	e := startOn(t, memstore.New(), apitest.Options{Resolve: sites.Resolve(site), Crawl: crawl.RunnerOptions{Poll: 20 * time.Millisecond, Backoff: 100 * time.Millisecond}})
	cl := trawlv1connect.NewCrawlServiceClient(http.DefaultClient, e.Server.URL, connect.WithInterceptors(connect.UnaryInterceptorFunc(func(next connect.UnaryFunc) connect.UnaryFunc {
		return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
			req.Header().Set("Authorization", "Bearer "+e.tok)
			return next(ctx, req)
		}
	})))
	ctx := context.Background()
	bad := int32(10_001)
	ce := code(t, errOf(cl.CreateCrawl(ctx, connect.NewRequest(&trawlv1.CreateCrawlRequest{Url: "http://crawl.test/", Limit: &bad, Scope: "world"}))), connect.CodeInvalidArgument)
	if br := badRequest(ce); br == nil || len(br.FieldViolations) != 2 {
		t.Fatalf("field violations = %v", ce.Details())
	}
	limit, depth := int32(15), int32(2)
	ack, err := cl.CreateCrawl(ctx, connect.NewRequest(&trawlv1.CreateCrawlRequest{Url: "http://crawl.test/", Limit: &limit, MaxDepth: &depth, Exclude: []string{"/calendar/**"}, Render: "never"}))
	if err != nil || ack.Msg.Status != "queued" || ack.Msg.Limit != 15 || ack.Msg.MaxDepth != 2 {
		t.Fatalf("CreateCrawl = %v %v", ack, err)
	}
	id := ack.Msg.CrawlId
	var st *trawlv1.CrawlStatus
	for deadline := time.Now().Add(30 * time.Second); ; {
		res, err := cl.GetCrawl(ctx, connect.NewRequest(&trawlv1.GetCrawlRequest{CrawlId: id}))
		if err != nil {
			t.Fatal(err)
		}
		if st = res.Msg.Crawl; st.Status == "completed" || time.Now().After(deadline) {
			break
		}
		time.Sleep(5 * time.Millisecond)
		e.Clock.Advance(20 * time.Millisecond)
	}
	if st.Status != "completed" || st.Succeeded != 15 || st.CreditsCharged != 30 || len(st.Skipped) != len(crawl.SkipReasons) || st.CompletedAt == "" {
		t.Fatalf("crawl = %v", st)
	}
	// The status over RPC is the JSON API's.
	js := e.Do("GET", "/v1/crawl/"+id, e.tok, nil).JSON(t)
	if js["succeeded"] != float64(st.Succeeded) || js["discovered"] != float64(st.Discovered) || js["credits_charged"] != float64(st.CreditsCharged) {
		t.Fatalf("JSON %v, RPC %v", js, st)
	}
	seen, cursor := 0, ""
	for {
		per := int32(4)
		res, err := cl.ListCrawlPages(ctx, connect.NewRequest(&trawlv1.ListCrawlPagesRequest{CrawlId: id, Cursor: cursor, PerPage: &per}))
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range res.Msg.Pages {
			if !p.Content.Success || p.Content.Markdown == "" || (p.Depth > 0) != (p.Parent != "") {
				t.Fatalf("page = %v", p)
			}
		}
		seen += len(res.Msg.Pages)
		if res.Msg.NextCursor == nil {
			break
		}
		cursor = *res.Msg.NextCursor
	}
	if seen != 15 {
		t.Fatalf("listed %d pages, want 15", seen)
	}
	zero := int32(0)
	code(t, errOf(cl.ListCrawlPages(ctx, connect.NewRequest(&trawlv1.ListCrawlPagesRequest{CrawlId: id, PerPage: &zero}))), connect.CodeInvalidArgument)
	code(t, errOf(cl.GetCrawl(ctx, connect.NewRequest(&trawlv1.GetCrawlRequest{CrawlId: "crawl_nope"}))), connect.CodeNotFound)
	c, err := cl.CancelCrawl(ctx, connect.NewRequest(&trawlv1.CancelCrawlRequest{CrawlId: id}))
	if err != nil || c.Msg.Crawl.Status != "completed" {
		t.Fatalf("CancelCrawl of a finished crawl = %v %v", c, err)
	}
	cr := e.Do("GET", "/v1/credits", e.tok, nil).JSON(t)
	if cr["balance"] != float64(90000-30) {
		t.Fatalf("balance %v, want 30 charged and the hold released", cr["balance"])
	}
}
