package connectapi_test

import (
	"context"
	"errors"
	"maps"
	"net/http"
	"strings"
	"testing"

	"connectrpc.com/connect"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	reflectpb "google.golang.org/grpc/reflection/grpc_reflection_v1"
	"google.golang.org/grpc/status"

	trawlv1 "github.com/trawlhq/trawl/adapters/connectapi/gen/trawl/v1"
	"github.com/trawlhq/trawl/adapters/connectapi/gen/trawl/v1/trawlv1connect"
	"github.com/trawlhq/trawl/ports"
	"github.com/trawlhq/trawl/testkit/apitest"
	"github.com/trawlhq/trawl/testkit/fakellm"
	"github.com/trawlhq/trawl/testkit/fakesearch"
	"github.com/trawlhq/trawl/testkit/memstore"
	"github.com/trawlhq/trawl/testkit/sites"
	"github.com/trawlhq/trawl/testkit/storetest"
)

type env struct {
	*apitest.Env
	tok   string
	pages trawlv1connect.PageServiceClient
	srch  trawlv1connect.SearchServiceClient
	prmpt trawlv1connect.PromptServiceClient
	creds trawlv1connect.CreditsServiceClient
	acct  trawlv1connect.AccountServiceClient
}

func h2c() *http.Client {
	p := new(http.Protocols)
	p.SetUnencryptedHTTP2(true)
	return &http.Client{Transport: &http.Transport{Protocols: p}}
}

func start(t *testing.T, opts ...connect.ClientOption) *env {
	return startOn(t, memstore.New(), apitest.Options{}, opts...)
}

// startOn starts the server over a store, with options for the environment.
func startOn(t testing.TB, store storetest.Stores, o apitest.Options, opts ...connect.ClientOption) *env {
	site := sites.New(t, "news.test")
	site.Handle("/article", "text/html", `<html><head><title>Tides</title></head><body><article><p>Tides rise and fall twice a day, and the pools they leave behind are full of life, from anemones to crabs and snails.</p><p>Shade and depth decide which animals survive the summer heat in those pools, researchers found.</p></article></body></html>`)
	site.Handle("/sitemap.xml", "application/xml", `<urlset><url><loc>http://news.test/article</loc></url></urlset>`)
	eng := fakesearch.New(t, "google")
	eng.Serve(fakesearch.Result{Title: "Tides", Link: "http://news.test/article", Snippet: "About tides."})
	model := fakellm.New(t)
	resolve := sites.Resolve(site)
	maps.Copy(resolve, o.Resolve) // the test's own sites
	o.Resolve, o.Engines, o.LLMBaseURL = resolve, map[string]string{"google": eng.URL}, model.BaseURL()
	e := apitest.Start(t, store, o)
	_, tok := e.Account("rpc@example.com", "business")
	hc := http.DefaultClient
	if len(opts) > 0 {
		hc = h2c()
	}
	auth := connect.WithInterceptors(connect.UnaryInterceptorFunc(func(next connect.UnaryFunc) connect.UnaryFunc {
		return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
			if req.Header().Get("Authorization") == "" {
				req.Header().Set("Authorization", "Bearer "+tok)
			}
			return next(ctx, req)
		}
	}))
	all := append([]connect.ClientOption{auth}, opts...)
	u := e.Server.URL
	return &env{Env: e, tok: tok,
		pages: trawlv1connect.NewPageServiceClient(hc, u, all...), srch: trawlv1connect.NewSearchServiceClient(hc, u, all...),
		prmpt: trawlv1connect.NewPromptServiceClient(hc, u, all...), creds: trawlv1connect.NewCreditsServiceClient(hc, u, all...),
		acct: trawlv1connect.NewAccountServiceClient(hc, u, all...)}
}

func code(t *testing.T, err error, want connect.Code) *connect.Error {
	t.Helper()
	var ce *connect.Error
	if !errors.As(err, &ce) || ce.Code() != want {
		t.Fatalf("err = %v, want %s", err, want)
	}
	return ce
}

func TestEveryMethod(t *testing.T) {
	for name, opts := range map[string][]connect.ClientOption{"connect": nil, "grpc": {connect.WithGRPC()}, "grpc-web": {connect.WithGRPCWeb()}} {
		t.Run(name, func(t *testing.T) { everyMethod(t, start(t, opts...)) })
	}
}

func everyMethod(t *testing.T, e *env) {
	ctx := context.Background()
	// AccountService
	u, err := e.acct.GetUser(ctx, connect.NewRequest(&trawlv1.GetUserRequest{}))
	if err != nil || u.Msg.Email != "rpc@example.com" || u.Msg.Id == 0 {
		t.Fatalf("GetUser = %v %v", u, err)
	}
	bad := connect.NewRequest(&trawlv1.GetUserRequest{})
	bad.Header().Set("Authorization", "Bearer trawl_"+strings.Repeat("x", 40))
	_, err = e.acct.GetUser(ctx, bad)
	code(t, err, connect.CodeUnauthenticated)

	// CreditsService
	c, err := e.creds.GetCredits(ctx, connect.NewRequest(&trawlv1.GetCreditsRequest{}))
	if err != nil || c.Msg.Balance != 90000 || c.Msg.FormattedBalance != "90,000" || c.Msg.Status.Threshold != 18000 || c.Msg.Status.NextRenewal == nil {
		t.Fatalf("GetCredits = %v %v", c, err)
	}
	us, err := e.creds.GetUsageStats(ctx, connect.NewRequest(&trawlv1.GetUsageStatsRequest{}))
	if err != nil || us.Msg.Status.Limit != 90000 {
		t.Fatalf("GetUsageStats = %v %v", us, err)
	}
	pc, err := e.creds.PreviewCost(ctx, connect.NewRequest(&trawlv1.PreviewCostRequest{ServiceType: "serp", Quantity: 3}))
	if err != nil || pc.Msg.Preview.TotalCost != 15 || pc.Msg.Preview.ServiceName != "Search Results" {
		t.Fatalf("PreviewCost = %v %v", pc, err)
	}
	ce := code(t, errOf(e.creds.PreviewCost(ctx, connect.NewRequest(&trawlv1.PreviewCostRequest{ServiceType: "map"}))), connect.CodeInvalidArgument)
	if br := badRequest(ce); br == nil || br.FieldViolations[0].Field != "service_type" {
		t.Fatalf("no field violation naming service_type: %v", ce.Details())
	}
	ca, err := e.creds.CanAfford(ctx, connect.NewRequest(&trawlv1.CanAffordRequest{ServiceType: "prompt"}))
	if err != nil || !ca.Msg.CanAfford || ca.Msg.Preview.Quantity != 1 {
		t.Fatalf("CanAfford = %v %v", ca, err)
	}
	code(t, errOf(e.creds.CanAfford(ctx, connect.NewRequest(&trawlv1.CanAffordRequest{ServiceType: "serp", Quantity: 101}))), connect.CodeInvalidArgument)
	pu, err := e.creds.PurchaseCredits(ctx, connect.NewRequest(&trawlv1.PurchaseCreditsRequest{Credits: 500}))
	if err != nil || !strings.Contains(pu.Msg.CheckoutUrl, "/checkout/"+pu.Msg.SessionId) {
		t.Fatalf("PurchaseCredits = %v %v", pu, err)
	}
	code(t, errOf(e.creds.PurchaseCredits(ctx, connect.NewRequest(&trawlv1.PurchaseCreditsRequest{Credits: 99}))), connect.CodeInvalidArgument)

	// PageService
	sc, err := e.pages.Scrape(ctx, connect.NewRequest(&trawlv1.ScrapeRequest{Url: "http://news.test/article"}))
	if err != nil || sc.Msg.StatusCode != 200 || !strings.Contains(sc.Msg.Html, "<article>") {
		t.Fatalf("Scrape = %v %v", sc, err)
	}
	if sc.Header().Get("RateLimit-Limit") != "180" || sc.Header().Get("RateLimit-Remaining") != "179" {
		t.Fatalf("Scrape rate-limit headers = %v", sc.Header())
	}
	code(t, errOf(e.pages.Scrape(ctx, connect.NewRequest(&trawlv1.ScrapeRequest{Url: "http://127.0.0.1/"}))), connect.CodeInvalidArgument)
	gc, err := e.pages.GetContent(ctx, connect.NewRequest(&trawlv1.GetContentRequest{Url: "http://news.test/article"}))
	if err != nil || !gc.Msg.Content.Success || !strings.Contains(gc.Msg.Content.Markdown, "Tides rise") || gc.Msg.Content.Metadata.Title != "Tides" {
		t.Fatalf("GetContent = %v %v", gc, err)
	}
	code(t, errOf(e.pages.GetContent(ctx, connect.NewRequest(&trawlv1.GetContentRequest{Url: "http://news.test/missing"}))), connect.CodeUnavailable)
	mp, err := e.pages.Map(ctx, connect.NewRequest(&trawlv1.MapRequest{Url: "http://news.test/"}))
	if err != nil || mp.Msg.Total != 1 || mp.Msg.Sources[0] != "sitemap" {
		t.Fatalf("Map = %v %v", mp, err)
	}
	code(t, errOf(e.pages.Map(ctx, connect.NewRequest(&trawlv1.MapRequest{Url: "http://news.test/", Limit: 1001}))), connect.CodeInvalidArgument)
	job, err := e.pages.CreateBulkContentJob(ctx, connect.NewRequest(&trawlv1.CreateBulkContentJobRequest{Urls: []string{"http://news.test/article", "http://news.test/missing"}, Email: true, Sync: true, Render: "never"}))
	if err != nil || job.Msg.EstimatedCompletionTime != "Completed" || job.Msg.UrlsCount != 2 {
		t.Fatalf("CreateBulkContentJob = %v %v", job, err)
	}
	code(t, errOf(e.pages.CreateBulkContentJob(ctx, connect.NewRequest(&trawlv1.CreateBulkContentJobRequest{Urls: []string{"http://news.test/a"}}))), connect.CodeInvalidArgument)
	st, err := e.pages.GetBulkContentJob(ctx, connect.NewRequest(&trawlv1.GetBulkContentJobRequest{JobId: job.Msg.JobId}))
	if err != nil || st.Msg.Status != "completed" || st.Msg.SuccessCount != 1 || len(st.Msg.Results) != 2 || st.Msg.Render != "never" || st.Msg.Results[0].Engine != "http" || st.Msg.Results[0].Reason != "" {
		t.Fatalf("GetBulkContentJob = %v %v", st, err)
	}
	if miss := st.Msg.Results[1]; miss.Success || miss.Reason != "page_not_found" || miss.Retryable || miss.Engine != "" {
		t.Fatalf("failed URL over RPC = %v", miss)
	}
	code(t, errOf(e.pages.GetBulkContentJob(ctx, connect.NewRequest(&trawlv1.GetBulkContentJobRequest{JobId: "job_nope"}))), connect.CodeNotFound)
	code(t, errOf(e.pages.CreateBulkContentJob(ctx, connect.NewRequest(&trawlv1.CreateBulkContentJobRequest{Urls: []string{"http://news.test/a"}, Email: true, Render: "sometimes"}))), connect.CodeInvalidArgument)

	// SearchService
	sr, err := e.srch.Search(ctx, connect.NewRequest(&trawlv1.SearchRequest{Q: "tides"}))
	if err != nil || sr.Msg.Engine != "google" || len(sr.Msg.OrganicResults) != 1 || sr.Msg.OrganicResults[0].Content != nil {
		t.Fatalf("Search = %v %v", sr, err)
	}
	code(t, errOf(e.srch.Search(ctx, connect.NewRequest(&trawlv1.SearchRequest{Q: "tides", Engine: "yahoo"}))), connect.CodeInvalidArgument)
	scr, err := e.srch.SearchContent(ctx, connect.NewRequest(&trawlv1.SearchContentRequest{Q: "tides", MaxContent: 1}))
	if err != nil || scr.Msg.OrganicResults[0].Content == nil || !scr.Msg.OrganicResults[0].Content.Success {
		t.Fatalf("SearchContent = %v %v", scr, err)
	}
	code(t, errOf(e.srch.SearchContent(ctx, connect.NewRequest(&trawlv1.SearchContentRequest{Q: "tides", MaxContent: 51}))), connect.CodeInvalidArgument)

	// PromptService
	pr, err := e.prmpt.Prompt(ctx, connect.NewRequest(&trawlv1.PromptRequest{Prompt: "What are tides?", Url: "http://news.test/article"}))
	if err != nil || !strings.Contains(pr.Msg.Response, "What are tides?") {
		t.Fatalf("Prompt = %v %v", pr, err)
	}
	code(t, errOf(e.prmpt.Prompt(ctx, connect.NewRequest(&trawlv1.PromptRequest{}))), connect.CodeInvalidArgument)

	// Transactions: every billed call above, newest first.
	tx, err := e.creds.ListTransactions(ctx, connect.NewRequest(&trawlv1.ListTransactionsRequest{PerPage: 50}))
	if err != nil || tx.Msg.Total != 7 || tx.Msg.Data[0].ServiceType != "prompt" || tx.Msg.PerPage != 50 {
		t.Fatalf("ListTransactions = %v %v", tx, err)
	}
	code(t, errOf(e.creds.ListTransactions(ctx, connect.NewRequest(&trawlv1.ListTransactionsRequest{PerPage: 101}))), connect.CodeInvalidArgument)
}

func errOf[T any](_ T, err error) error { return err }

func badRequest(ce *connect.Error) *errdetails.BadRequest {
	for _, d := range ce.Details() {
		if v, err := d.Value(); err == nil {
			if br, ok := v.(*errdetails.BadRequest); ok {
				return br
			}
		}
	}
	return nil
}

func TestPaymentAndRateLimitDetails(t *testing.T) {
	e := start(t)
	ctx := context.Background()
	a, _ := e.Store.AccountByEmail(ctx, "rpc@example.com")
	_ = e.Store.WithCredits(ctx, a.ID, func(tx ports.LedgerTx) error {
		st := tx.State()
		st.AllowanceUsed, st.Used = 89998, 89998
		return tx.SaveState(st)
	})
	// 3 credits left: a scrape succeeds and warns of the low balance.
	sc, err := e.pages.Scrape(ctx, connect.NewRequest(&trawlv1.ScrapeRequest{Url: "http://news.test/article"}))
	if err != nil || !strings.Contains(sc.Header().Get("X-Monthly-Quota-Warning"), "below the low threshold") {
		t.Fatalf("low balance warning = %v %v", sc, err)
	}
	ce := code(t, errOf(e.pages.GetContent(ctx, connect.NewRequest(&trawlv1.GetContentRequest{Url: "http://news.test/article"}))), connect.CodeFailedPrecondition)
	var info *errdetails.ErrorInfo
	var ic *trawlv1.InsufficientCredits
	for _, d := range ce.Details() {
		v, _ := d.Value()
		switch m := v.(type) {
		case *errdetails.ErrorInfo:
			info = m
		case *trawlv1.InsufficientCredits:
			ic = m
		}
	}
	if info == nil || info.Reason != "INSUFFICIENT_CREDITS" || info.Metadata["http_status"] != "402" || ic == nil || ic.Required != 2 || ic.Balance != 1 {
		t.Fatalf("402 details: %v %v", info, ic)
	}
	_, freeTok := e.Account("free@example.com", "none")
	req := connect.NewRequest(&trawlv1.ScrapeRequest{Url: "http://news.test/article"})
	req.Header().Set("Authorization", "Bearer "+freeTok)
	ce = code(t, errOf(e.pages.Scrape(ctx, req)), connect.CodeFailedPrecondition)
	if ce.Message() != "Plan Required" {
		t.Fatalf("plan required = %v", ce)
	}
	// The free account's scrape used one of its 15 per minute; use the rest.
	var last error
	for range 15 {
		r := connect.NewRequest(&trawlv1.ScrapeRequest{Url: "http://news.test/article"})
		r.Header().Set("Authorization", "Bearer "+freeTok)
		_, last = e.pages.Scrape(ctx, r)
	}
	ce = code(t, last, connect.CodeResourceExhausted)
	var retry *errdetails.RetryInfo
	for _, d := range ce.Details() {
		if v, _ := d.Value(); v != nil {
			if r, ok := v.(*errdetails.RetryInfo); ok {
				retry = r
			}
		}
	}
	if retry == nil || retry.RetryDelay.AsDuration().Seconds() < 1 || ce.Meta().Get("Retry-After") == "" {
		t.Fatalf("429 details: %v %v", retry, ce.Meta())
	}
}

func TestIdempotencyKeyOverRPC(t *testing.T) {
	e := start(t)
	ctx := context.Background()
	var first string
	for i := range 2 {
		req := connect.NewRequest(&trawlv1.GetContentRequest{Url: "http://news.test/article"})
		req.Header().Set("Idempotency-Key", "rpc-key-1")
		res, err := e.pages.GetContent(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = res.Msg.Content.Markdown
		} else if res.Header().Get("Idempotent-Replayed") != "true" || res.Msg.Content.Markdown != first {
			t.Fatalf("replay = %v", res.Header())
		}
	}
	c, _ := e.creds.GetCredits(ctx, connect.NewRequest(&trawlv1.GetCreditsRequest{}))
	if c.Msg.Balance != 89998 {
		t.Fatalf("balance %d: the retry was charged", c.Msg.Balance)
	}
}

// TestGRPCClient calls the server with grpc-go itself, plus health and reflection.
func TestGRPCClient(t *testing.T) {
	e := start(t)
	conn, err := grpc.NewClient(strings.TrimPrefix(e.Server.URL, "http://"), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx := metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer "+e.tok)
	var user trawlv1.GetUserResponse
	if err := conn.Invoke(ctx, "/trawl.v1.AccountService/GetUser", &trawlv1.GetUserRequest{}, &user); err != nil || user.Email != "rpc@example.com" {
		t.Fatalf("grpc GetUser = %v %v", &user, err)
	}
	var pr trawlv1.PreviewCostResponse
	err = conn.Invoke(ctx, "/trawl.v1.CreditsService/PreviewCost", &trawlv1.PreviewCostRequest{ServiceType: "nope"}, &pr)
	if s, _ := status.FromError(err); s.Code() != codes.InvalidArgument || !strings.Contains(s.Message(), "service type") {
		t.Fatalf("grpc invalid = %v", err)
	}
	var content trawlv1.GetContentResponse
	if err := conn.Invoke(ctx, "/trawl.v1.PageService/GetContent", &trawlv1.GetContentRequest{Url: "http://news.test/article"}, &content); err != nil || !content.Content.Success {
		t.Fatalf("grpc GetContent = %v", err)
	}
	err = conn.Invoke(context.Background(), "/trawl.v1.AccountService/GetUser", &trawlv1.GetUserRequest{}, &user)
	if s, _ := status.FromError(err); s.Code() != codes.Unauthenticated {
		t.Fatalf("grpc without token = %v", err)
	}
	health := healthpb.NewHealthClient(conn)
	for _, svc := range []string{"", "trawl.v1.PageService"} {
		hr, err := health.Check(context.Background(), &healthpb.HealthCheckRequest{Service: svc})
		if err != nil || hr.Status != healthpb.HealthCheckResponse_SERVING {
			t.Fatalf("health(%q) = %v %v", svc, hr, err)
		}
	}
	wctx, cancel := context.WithCancel(context.Background())
	watch, err := health.Watch(wctx, &healthpb.HealthCheckRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if first, err := watch.Recv(); err != nil || first.Status != healthpb.HealthCheckResponse_SERVING {
		t.Fatalf("watch = %v %v", first, err)
	}
	cancel()
	stream, err := reflectpb.NewServerReflectionClient(conn).ServerReflectionInfo(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if err := stream.Send(&reflectpb.ServerReflectionRequest{MessageRequest: &reflectpb.ServerReflectionRequest_ListServices{}}); err != nil {
		t.Fatal(err)
	}
	res, err := stream.Recv()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range res.GetListServicesResponse().GetService() {
		names = append(names, s.Name)
	}
	if !strings.Contains(strings.Join(names, " "), "trawl.v1.SearchService") {
		t.Fatalf("reflection lists %v", names)
	}
}

// TestParityWithJSON: the same request through both surfaces gives the same answer.
func TestParityWithJSON(t *testing.T) {
	e := start(t)
	ctx := context.Background()
	rpc, err := e.pages.GetContent(ctx, connect.NewRequest(&trawlv1.GetContentRequest{Url: "http://news.test/article"}))
	if err != nil {
		t.Fatal(err)
	}
	js := e.Do("GET", "/v1/content?url=http://news.test/article", e.tok, nil).JSON(t)
	meta := js["metadata"].(map[string]any)
	if js["markdown"] != rpc.Msg.Content.Markdown || js["html"] != rpc.Msg.Content.Html || meta["title"] != rpc.Msg.Content.Metadata.Title || js["statusCode"] != float64(rpc.Msg.Content.StatusCode) {
		t.Fatal("GetContent differs between JSON and RPC")
	}
	pcJS := e.Do("POST", "/v1/credits/preview-cost", e.tok, map[string]any{"service_type": "content", "quantity": 4}).JSON(t)
	pcRPC, _ := e.creds.PreviewCost(ctx, connect.NewRequest(&trawlv1.PreviewCostRequest{ServiceType: "content", Quantity: 4}))
	if pcJS["total_cost"] != float64(pcRPC.Msg.Preview.TotalCost) || pcJS["current_balance"] != float64(pcRPC.Msg.Preview.CurrentBalance) || pcJS["service_name"] != pcRPC.Msg.Preview.ServiceName {
		t.Fatalf("PreviewCost differs: %v vs %v", pcJS, pcRPC.Msg)
	}
	errJS := e.Do("GET", "/v1/content?url=http://127.0.0.1/", e.tok, nil)
	_, errRPC := e.pages.GetContent(ctx, connect.NewRequest(&trawlv1.GetContentRequest{Url: "http://127.0.0.1/"}))
	var ce *connect.Error
	if !errors.As(errRPC, &ce) || errJS.Status != 422 || ce.Message() != errJS.JSON(t)["message"] {
		t.Fatalf("errors differ: %d %s vs %v", errJS.Status, errJS.Body, errRPC)
	}
}
