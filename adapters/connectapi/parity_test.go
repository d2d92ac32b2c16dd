package connectapi_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/protobuf/proto"

	trawlv1 "github.com/trawlhq/trawl/adapters/connectapi/gen/trawl/v1"
	"github.com/trawlhq/trawl/adapters/connectapi/gen/trawl/v1/trawlv1connect"
	"github.com/trawlhq/trawl/core/billing"
	"github.com/trawlhq/trawl/core/credits"
	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/core/idempotency"
	"github.com/trawlhq/trawl/core/ratelimit"
	"github.com/trawlhq/trawl/ports"
	"github.com/trawlhq/trawl/testkit/apitest"
	"github.com/trawlhq/trawl/testkit/memstore"
	"github.com/trawlhq/trawl/testkit/sites"
)

// seen is what a caller of either delivery sees of a billed call.
type seen struct {
	status  int
	headers map[string]string
	charged int64
}

// callHeaders are the headers a billed call's seen may carry, the same
// over HTTP headers and RPC metadata.
var callHeaders = []string{"RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset", "X-RateLimit-Warning",
	"X-Monthly-Quota-Warning", "Idempotent-Replayed", "Retry-After", "X-Credits-Charged", "X-Credits-Remaining"}

func pick(h http.Header) map[string]string {
	out := map[string]string{}
	for _, k := range callHeaders {
		if v := h.Get(k); v != "" {
			out[k] = v
		}
	}
	return out
}

// delivery sends GetContent for a page with an optional Idempotency-Key.
type delivery struct {
	name string
	// fingerprint is what the delivery's request looks like to the
	// Idempotency-Key rules.
	fingerprint func(pageURL string) string
	send        func(t *testing.T, tok, pageURL, key string) (status int, h http.Header)
}

// TestBothDeliveriesAgree runs the same billed calls over the JSON API and
// over RPC (the Connect and gRPC protocols) and compares what the caller
// sees: the status, the limit, replay and balance headers (or metadata,
// trailers included), and the charge.
func TestBothDeliveriesAgree(t *testing.T) {
	site := sites.New(t, "news.test")
	const article = `<html><head><title>Tides</title></head><body><article><p>Tides rise and fall twice a day, and the pools they leave behind are full of life, from anemones to crabs and snails.</p><p>Shade and depth decide which animals survive the summer heat in those pools, researchers found.</p></article></body></html>`
	site.Handle("/article", "text/html", article)
	site.Handle("/challenge", "text/html", `<html><head><title>Just a moment...</title></head><body><script>window._cf_chl_opt={}</script></body></html>`)
	var e *apitest.Env
	var revokeOf atomic.Int64 // the account whose tokens /revoke deletes
	site.Mux.HandleFunc("/revoke", func(w http.ResponseWriter, r *http.Request) {
		acct := revokeOf.Load()
		toks, _ := e.Auth.ListTokens(r.Context(), acct)
		for _, tk := range toks {
			_ = e.Auth.DeleteToken(r.Context(), acct, tk.ID)
		}
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte(article))
	})
	e = apitest.Start(t, memstore.New(), apitest.Options{Resolve: sites.Resolve(site)})
	ctx := context.Background()

	deliveries := []delivery{
		{
			name: "http",
			fingerprint: func(pageURL string) string {
				return idempotency.Fingerprint("GET", "/v1/content", url.Values{"url": {pageURL}}.Encode(), nil)
			},
			send: func(t *testing.T, tok, pageURL, key string) (int, http.Header) {
				var hs []string
				if key != "" {
					hs = []string{"Idempotency-Key", key}
				}
				r := e.Do("GET", "/v1/content?"+url.Values{"url": {pageURL}}.Encode(), tok, nil, hs...)
				return r.Status, r.Header
			},
		},
		rpcDelivery("rpc", trawlv1connect.NewPageServiceClient(http.DefaultClient, e.Server.URL)),
		rpcDelivery("grpc", trawlv1connect.NewPageServiceClient(h2c(), e.Server.URL, connect.WithGRPC())),
	}

	page := site.URL("/article")
	// drain leaves balance credits on the account.
	drain := func(t *testing.T, a ports.Account, balance int64) {
		st, _ := e.Credits.Status(ctx, a.ID)
		n := st.Balance - balance
		_, err := e.Biller.Run(ctx, credits.Call{Principal: ports.Principal{Account: a.Caller()}, Service: billing.Content, MaxCredits: n},
			func(context.Context) (int64, ports.TransactionMetadata, error) {
				return n, ports.TransactionMetadata{}, nil
			})
		if err != nil {
			t.Fatal(err)
		}
	}
	limit := ratelimit.Limit(billing.DefaultPlans(), "basic", ratelimit.Content)

	cases := []struct {
		name string
		plan string
		// before runs on the fresh account before the compared call.
		before  func(t *testing.T, d delivery, a ports.Account, tok string)
		url     string
		key     string
		want    int
		charged int64
		// header must be on the answer.
		header string
	}{
		{name: "billed", plan: "basic", url: page, want: 200, charged: 2},
		{name: "near the limit", plan: "basic", url: page, want: 200, charged: 2, header: "X-RateLimit-Warning",
			before: func(t *testing.T, d delivery, _ ports.Account, tok string) {
				for range limit - 2 {
					if st, _ := d.send(t, tok, page, ""); st != 200 {
						t.Fatalf("warm-up = %d", st)
					}
				}
			}},
		{name: "over the limit", plan: "basic", url: page, want: 429, header: "Retry-After",
			before: func(t *testing.T, d delivery, _ ports.Account, tok string) {
				for range limit {
					if st, _ := d.send(t, tok, page, ""); st != 200 {
						t.Fatalf("warm-up = %d", st)
					}
				}
			}},
		{name: "replay", plan: "basic", url: page, key: "k-replay", want: 200, header: "Idempotent-Replayed",
			before: func(t *testing.T, d delivery, _ ports.Account, tok string) {
				if st, h := d.send(t, tok, page, "k-replay"); st != 200 || h.Get("Idempotent-Replayed") != "" {
					t.Fatalf("first call = %d %v", st, h)
				}
			}},
		{name: "key still running", plan: "basic", url: page, key: "k-running", want: 409,
			before: func(t *testing.T, d delivery, a ports.Account, _ string) {
				now := e.Clock.Now()
				_, claimed, err := e.Store.BeginIdempotent(ctx, ports.IdempotencyRecord{AccountID: a.ID, Key: "k-running",
					Fingerprint: d.fingerprint(page), CreatedAt: now, ExpiresAt: now.Add(time.Hour)})
				if err != nil || !claimed {
					t.Fatalf("claim = %v %v", claimed, err)
				}
			}},
		{name: "key reused for another request", plan: "basic", url: page, key: "k-other", want: 422,
			before: func(t *testing.T, d delivery, _ ports.Account, tok string) {
				if st, _ := d.send(t, tok, site.URL("/article?v=2"), "k-other"); st != 200 {
					t.Fatalf("first call = %d", st)
				}
			}},
		{name: "low balance", plan: "basic", url: page, want: 200, charged: 2, header: "X-Monthly-Quota-Warning",
			before: func(t *testing.T, _ delivery, a ports.Account, _ string) { drain(t, a, 100) }},
		{name: "insufficient credits", plan: "basic", url: page, want: 402,
			before: func(t *testing.T, _ delivery, a ports.Account, _ string) { drain(t, a, 1) }},
		{name: "plan required", plan: "", url: page, want: 402},
		{name: "bad address", plan: "basic", url: "http://intranet.test/", want: 422},
		{name: "cannot be extracted", plan: "basic", url: site.URL("/challenge"), want: 503},
		{name: "token revoked mid-call", plan: "basic", url: site.URL("/revoke"), want: 401,
			before: func(t *testing.T, _ delivery, a ports.Account, _ string) { revokeOf.Store(a.ID) }},
	}
	n := 0
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := map[string]seen{}
			for _, d := range deliveries {
				n++
				a, tok := e.Account("parity"+strconv.Itoa(n)+"@example.com", c.plan)
				if c.before != nil {
					c.before(t, d, a, tok)
				}
				before, _ := e.Credits.Status(ctx, a.ID)
				status, h := d.send(t, tok, c.url, c.key)
				after, _ := e.Credits.Status(ctx, a.ID)
				got[d.name] = seen{status: status, headers: pick(h), charged: before.Balance - after.Balance}
				e.Clock.Advance(2 * time.Minute) // the next account starts with an empty window
			}
			h := got["http"]
			if h.status != c.want || h.charged != c.charged {
				t.Errorf("http = %d charged %d, want %d charged %d", h.status, h.charged, c.want, c.charged)
			}
			for _, name := range []string{"rpc", "grpc"} {
				r := got[name]
				if r.status != h.status || r.charged != h.charged {
					t.Errorf("%s = %d charged %d, http = %d charged %d", name, r.status, r.charged, h.status, h.charged)
				}
				if len(h.headers) != len(r.headers) {
					t.Errorf("headers differ:\nhttp %v\n%s %v", h.headers, name, r.headers)
				}
				for k, v := range h.headers {
					if r.headers[k] != v {
						t.Errorf("%s: http %q, %s %q", k, v, name, r.headers[k])
					}
				}
			}
			for _, k := range []string{"RateLimit-Limit", "X-Credits-Charged", c.header} {
				if k != "" && h.headers[k] == "" {
					t.Errorf("no %s: %v", k, h.headers)
				}
			}
			if got := h.headers["X-Credits-Charged"]; got != strconv.FormatInt(c.charged, 10) {
				t.Errorf("X-Credits-Charged = %q, charged %d", got, c.charged)
			}
		})
	}
}

// rpcDelivery sends GetContent with a Connect client of any protocol.
func rpcDelivery(name string, pages trawlv1connect.PageServiceClient) delivery {
	return delivery{
		name: name,
		fingerprint: func(pageURL string) string {
			raw, _ := proto.MarshalOptions{Deterministic: true}.Marshal(&trawlv1.GetContentRequest{Url: pageURL})
			return idempotency.Fingerprint("RPC", trawlv1connect.PageServiceGetContentProcedure, "", raw)
		},
		send: func(t *testing.T, tok, pageURL, key string) (int, http.Header) {
			req := connect.NewRequest(&trawlv1.GetContentRequest{Url: pageURL})
			req.Header().Set("Authorization", "Bearer "+tok)
			if key != "" {
				req.Header().Set("Idempotency-Key", key)
			}
			res, err := pages.GetContent(context.Background(), req)
			if err == nil {
				return http.StatusOK, res.Header()
			}
			var ce *connect.Error
			if !errors.As(err, &ce) {
				t.Fatalf("%s: %v", name, err)
			}
			status := 0
			for _, d := range ce.Details() {
				if v, err := d.Value(); err == nil {
					if info, ok := v.(*errdetails.ErrorInfo); ok {
						status, _ = strconv.Atoi(info.Metadata["http_status"])
					}
				}
			}
			return status, ce.Meta()
		},
	}
}

// vanishing is a store in which an account's row can disappear while its
// token still authenticates (the account deleted during the request).
type vanishing struct {
	*memstore.Store
	gone atomic.Int64
}

func (s *vanishing) AccountByID(ctx context.Context, id int64) (ports.Account, error) {
	if id == s.gone.Load() {
		return ports.Account{}, failure.E("store", failure.NotFound, "account not found")
	}
	return s.Store.AccountByID(ctx, id)
}

func (s *vanishing) ReadCredits(ctx context.Context, id int64, now time.Time) (ports.CreditState, int64, error) {
	if id == s.gone.Load() {
		return ports.CreditState{}, 0, failure.E("store", failure.NotFound, "account not found")
	}
	return s.Store.ReadCredits(ctx, id, now)
}

// rpcOutcome is the HTTP status an RPC error stands for and its message.
func rpcOutcome(t *testing.T, err error) (int, string) {
	t.Helper()
	if err == nil {
		return http.StatusOK, ""
	}
	var ce *connect.Error
	if !errors.As(err, &ce) {
		t.Fatalf("not an RPC error: %v", err)
	}
	for _, d := range ce.Details() {
		if v, err := d.Value(); err == nil {
			if info, ok := v.(*errdetails.ErrorInfo); ok {
				status, _ := strconv.Atoi(info.Metadata["http_status"])
				return status, ce.Message()
			}
		}
	}
	t.Fatalf("no ErrorInfo: %v", err)
	return 0, ""
}

// TestBothDeliveriesWordFailuresAlike asks the same of the JSON API and of
// RPC and compares the status and the message the caller reads: core words
// a failure once, for both.
func TestBothDeliveriesWordFailuresAlike(t *testing.T) {
	store := &vanishing{Store: memstore.New()}
	e := apitest.Start(t, store, apitest.Options{})
	creditsRPC := trawlv1connect.NewCreditsServiceClient(http.DefaultClient, e.Server.URL)
	type rpcCall func(ctx context.Context, tok string) error
	auth := func(req interface{ Header() http.Header }, tok string) {
		req.Header().Set("Authorization", "Bearer "+tok)
	}
	transactions := func(page, perPage int32) rpcCall {
		return func(ctx context.Context, tok string) error {
			req := connect.NewRequest(&trawlv1.ListTransactionsRequest{Page: page, PerPage: perPage})
			auth(req, tok)
			_, err := creditsRPC.ListTransactions(ctx, req)
			return err
		}
	}
	preview := func(serviceType string, qty int64) rpcCall {
		return func(ctx context.Context, tok string) error {
			req := connect.NewRequest(&trawlv1.PreviewCostRequest{ServiceType: serviceType, Quantity: qty})
			auth(req, tok)
			_, err := creditsRPC.PreviewCost(ctx, req)
			return err
		}
	}
	purchase := func(n int64) rpcCall {
		return func(ctx context.Context, tok string) error {
			req := connect.NewRequest(&trawlv1.PurchaseCreditsRequest{Credits: n})
			auth(req, tok)
			_, err := creditsRPC.PurchaseCredits(ctx, req)
			return err
		}
	}
	cases := []struct {
		name         string
		vanish       bool
		method, path string
		body         any
		rpc          rpcCall
		want         int
		message      string
	}{
		{name: "transactions of a vanished account", vanish: true, method: "GET", path: "/v1/credits/transactions",
			rpc: transactions(0, 0), want: 404, message: "Account not found."},
		{name: "preview of a vanished account", vanish: true, method: "POST", path: "/v1/credits/preview-cost",
			body: map[string]any{"service_type": "content"}, rpc: preview("content", 0), want: 404, message: "Account not found."},
		{name: "transactions per page out of range", method: "GET", path: "/v1/credits/transactions?per_page=101",
			rpc: transactions(0, 101), want: 422, message: "The per page field must be between 1 and 100."},
		{name: "preview of an unknown service", method: "POST", path: "/v1/credits/preview-cost",
			body: map[string]any{"service_type": "teleport"}, rpc: preview("teleport", 0), want: 422},
		{name: "purchase out of range", method: "POST", path: "/v1/credits/purchase",
			body: map[string]any{"credits": 1}, rpc: purchase(1), want: 422,
			message: fmt.Sprintf("The credits field must be between %s and %s.", billing.FormatCredits(credits.MinPurchase), billing.FormatCredits(credits.MaxPurchase))},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a, tok := e.Account("words"+strconv.Itoa(i)+"@example.com", "basic")
			if c.vanish {
				store.gone.Store(a.ID)
				defer store.gone.Store(0)
			}
			r := e.Do(c.method, c.path, tok, c.body)
			restMsg, _ := r.JSON(t)["message"].(string)
			rpcStatus, rpcMsg := rpcOutcome(t, c.rpc(context.Background(), tok))
			if r.Status != c.want || (c.message != "" && restMsg != c.message) {
				t.Errorf("http = %d %q, want %d %q", r.Status, restMsg, c.want, c.message)
			}
			if rpcStatus != r.Status || rpcMsg != restMsg {
				t.Errorf("rpc = %d %q, http = %d %q", rpcStatus, rpcMsg, r.Status, restMsg)
			}
		})
	}
}

// TestBothDeliveriesApplyTheSameDefaults leaves optional fields out on both
// deliveries: core applies its one default, so the answers agree.
func TestBothDeliveriesApplyTheSameDefaults(t *testing.T) {
	e := apitest.Start(t, memstore.New(), apitest.Options{})
	creditsRPC := trawlv1connect.NewCreditsServiceClient(http.DefaultClient, e.Server.URL)
	ctx := context.Background()
	a, tok := e.Account("defaults@example.com", "basic")
	for range 25 {
		if _, err := e.Biller.Run(ctx, credits.Call{Principal: ports.Principal{Account: a.Caller()}, Service: billing.Content, MaxCredits: 1},
			func(context.Context) (int64, ports.TransactionMetadata, error) {
				return 1, ports.TransactionMetadata{}, nil
			}); err != nil {
			t.Fatal(err)
		}
	}

	m := e.Do("GET", "/v1/credits/transactions", tok, nil).JSON(t)
	req := connect.NewRequest(&trawlv1.ListTransactionsRequest{})
	req.Header().Set("Authorization", "Bearer "+tok)
	res, err := creditsRPC.ListTransactions(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	rest := []float64{m["current_page"].(float64), m["per_page"].(float64), float64(len(m["data"].([]any)))}
	rpc := []float64{float64(res.Msg.GetCurrentPage()), float64(res.Msg.GetPerPage()), float64(len(res.Msg.GetData()))}
	if rest[0] != credits.DefaultPage || rest[1] != credits.DefaultPerPage || rest[2] != credits.DefaultPerPage || rest[0] != rpc[0] || rest[1] != rpc[1] || rest[2] != rpc[2] {
		t.Errorf("transactions page, per page, items: http %v, rpc %v", rest, rpc)
	}

	m = e.Do("POST", "/v1/credits/preview-cost", tok, map[string]any{"service_type": "serp"}).JSON(t)
	preq := connect.NewRequest(&trawlv1.PreviewCostRequest{ServiceType: "serp"})
	preq.Header().Set("Authorization", "Bearer "+tok)
	pres, err := creditsRPC.PreviewCost(ctx, preq)
	if err != nil {
		t.Fatal(err)
	}
	if m["quantity"] != float64(credits.DefaultPreviewQuantity) || pres.Msg.GetPreview().GetQuantity() != credits.DefaultPreviewQuantity ||
		m["total_cost"] != float64(pres.Msg.GetPreview().GetTotalCost()) {
		t.Errorf("preview: http %v, rpc %v", m, pres.Msg.GetPreview())
	}
}
