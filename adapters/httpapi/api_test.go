package httpapi_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"

	"github.com/trawlhq/trawl/adapters/errmap"
	"github.com/trawlhq/trawl/adapters/httpapi"
	"github.com/trawlhq/trawl/adapters/sqlstore"
	"github.com/trawlhq/trawl/core/credits"
	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/core/ratelimit"
	"github.com/trawlhq/trawl/ports"
	"github.com/trawlhq/trawl/testkit/apitest"
	"github.com/trawlhq/trawl/testkit/memstore"
	"github.com/trawlhq/trawl/testkit/mocks"
	"github.com/trawlhq/trawl/testkit/storetest"
)

type opener func(t *testing.T) storetest.Stores

func stores() map[string]opener {
	return map[string]opener{
		"memory": func(*testing.T) storetest.Stores { return memstore.New() },
		"sqlite": func(t *testing.T) storetest.Stores {
			s, err := sqlstore.Open(context.Background(), sqlstore.Options{DataDir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			return s
		},
	}
}

func eachStore(t *testing.T, o apitest.Options, fn func(t *testing.T, e *apitest.Env)) {
	for name, open := range stores() {
		t.Run(name, func(t *testing.T) { fn(t, apitest.Start(t, open(t), o)) })
	}
}

func num(t *testing.T, m map[string]any, key string) float64 {
	t.Helper()
	v, ok := m[key].(float64)
	if !ok {
		t.Fatalf("%s is %T (%v), want a number in %v", key, m[key], m[key], m)
	}
	return v
}

func TestAuthentication(t *testing.T) {
	eachStore(t, apitest.Options{}, func(t *testing.T, e *apitest.Env) {
		_, tok := e.Account("dev@example.com", "basic")
		for name, token := range map[string]string{
			"missing":   "",
			"malformed": "not-a-token",
			"unknown":   "trawl_" + strings.Repeat("x", 40),
		} {
			for _, path := range []string{"/user", "/v1/credits", "/v1/credits/transactions", "/v1/credits/usage-stats"} {
				r := e.Do("GET", path, token, nil)
				if r.Status != 401 || string(r.Body) != "{\"message\":\"Unauthenticated.\"}\n" {
					t.Errorf("%s token on %s: %d %s", name, path, r.Status, r.Body)
				}
			}
		}
		r := e.Do("GET", "/user", "", nil, "Authorization", "Basic "+tok)
		if r.Status != 401 {
			t.Errorf("Basic scheme accepted: %d", r.Status)
		}
		r = e.Do("GET", "/user", tok, nil)
		u := r.JSON(t)
		if r.Status != 200 || u["email"] != "dev@example.com" || u["name"] != "dev" || num(t, u, "id") < 1 {
			t.Fatalf("/user = %d %v", r.Status, u)
		}
		for _, k := range []string{"email_verified_at", "created_at", "updated_at"} {
			s, _ := u[k].(string)
			if _, err := time.Parse(time.RFC3339Nano, s); err != nil {
				t.Errorf("%s = %q is not ISO-8601", k, s)
			}
		}
		if _, leaked := u["plan"]; leaked {
			t.Error("/user leaks internal fields")
		}
	})
}

func TestRequestID(t *testing.T) {
	e := apitest.Start(t, memstore.New(), apitest.Options{})
	r := e.Do("GET", "/healthz", "", nil, "X-Request-Id", "client-abc.123")
	if r.Header.Get("X-Request-Id") != "client-abc.123" {
		t.Errorf("sane id not echoed: %q", r.Header.Get("X-Request-Id"))
	}
	r = e.Do("GET", "/healthz", "", nil, "X-Request-Id", "bad id with spaces <script>")
	if id := r.Header.Get("X-Request-Id"); !strings.HasPrefix(id, "req_") {
		t.Errorf("insane id echoed or missing: %q", id)
	}
	r = e.Do("GET", "/v1/credits", "", nil)
	if r.Header.Get("X-Request-Id") == "" {
		t.Error("errors carry no request id")
	}
}

func TestCreditsShape(t *testing.T) {
	eachStore(t, apitest.Options{}, func(t *testing.T, e *apitest.Env) {
		_, tok := e.Account("dev@example.com", "pro")
		r := e.Do("GET", "/v1/credits", tok, nil)
		m := r.JSON(t)
		if r.Status != 200 || num(t, m, "balance") != 20000 || m["formatted_balance"] != "20,000" || num(t, m, "limit") != 20000 || num(t, m, "used") != 0 {
			t.Fatalf("/v1/credits = %d %v", r.Status, m)
		}
		st, ok := m["status"].(map[string]any)
		if !ok {
			t.Fatalf("status is %T", m["status"])
		}
		checkStatus(t, st, 20000, 4000)
		r = e.Do("GET", "/v1/credits/usage-stats", tok, nil)
		checkStatus(t, r.JSON(t), 20000, 4000)
		if r.Header.Get("X-Monthly-Quota-Warning") != "" {
			t.Error("quota warning on a full balance")
		}
	})
}

func checkStatus(t *testing.T, st map[string]any, balance, threshold float64) {
	t.Helper()
	want := []string{"balance", "formatted_balance", "limit", "used", "is_low", "threshold", "percentage_used", "next_renewal"}
	if len(st) != len(want) {
		t.Errorf("status has %d fields, want %d: %v", len(st), len(want), st)
	}
	if num(t, st, "balance") != balance || num(t, st, "threshold") != threshold || st["is_low"] != false || num(t, st, "percentage_used") != 0 {
		t.Errorf("status = %v", st)
	}
	if _, ok := st["formatted_balance"].(string); !ok {
		t.Errorf("formatted_balance = %v", st["formatted_balance"])
	}
	if s, _ := st["next_renewal"].(string); s == "" {
		t.Errorf("next_renewal = %v", st["next_renewal"])
	}
}

func TestAccountWithoutPlan(t *testing.T) {
	e := apitest.Start(t, memstore.New(), apitest.Options{Mount: billedRoute("GET /v1/test-billed", ratelimit.Content, 2, nil)})
	_, tok := e.Account("free@example.com", "none")
	r := e.Do("GET", "/v1/credits", tok, nil)
	m := r.JSON(t)
	st := m["status"].(map[string]any)
	if r.Status != 200 || num(t, m, "limit") != 0 || num(t, m, "balance") != 0 || st["next_renewal"] != nil || st["is_low"] != true || num(t, st, "threshold") != 50 {
		t.Fatalf("no-plan credits = %v", m)
	}
	if r.Header.Get("X-Monthly-Quota-Warning") == "" {
		t.Error("an empty balance carries no quota warning")
	}
	r = e.Do("GET", "/v1/test-billed?url=x", tok, nil)
	if r.Status != 402 || string(r.Body) != "{\"message\":\"Plan Required\"}\n" {
		t.Fatalf("billed call without plan = %d %s", r.Status, r.Body)
	}
	if e.Do("GET", "/user", tok, nil).Status != 200 {
		t.Fatal("/user must work without a plan")
	}
}

func TestPreviewAndCanAfford(t *testing.T) {
	eachStore(t, apitest.Options{}, func(t *testing.T, e *apitest.Env) {
		_, tok := e.Account("dev@example.com", "basic")
		r := e.Do("POST", "/v1/credits/preview-cost", tok, map[string]any{"service_type": "prompt", "quantity": 7})
		p := r.JSON(t)
		if r.Status != 200 || p["service_type"] != "prompt" || p["service_name"] != "LLM Prompt" || num(t, p, "credit_cost_per_request") != 10 ||
			num(t, p, "quantity") != 7 || num(t, p, "total_cost") != 70 || num(t, p, "current_balance") != 6000 || num(t, p, "remaining_after") != 5930 || p["can_afford"] != true {
			t.Fatalf("preview = %d %v", r.Status, p)
		}
		r = e.Do("POST", "/v1/credits/preview-cost", tok, map[string]any{"service_type": "scrape"})
		if p := r.JSON(t); num(t, p, "quantity") != 1 || num(t, p, "total_cost") != 1 {
			t.Fatalf("default quantity: %v", p)
		}
		r = e.Do("POST", "/v1/credits/can-afford", tok, map[string]any{"service_type": "content", "quantity": "3"})
		m := r.JSON(t)
		inner, _ := m["preview"].(map[string]any)
		if r.Status != 200 || m["can_afford"] != true || inner == nil || num(t, inner, "total_cost") != 6 {
			t.Fatalf("can-afford = %d %v", r.Status, m)
		}
		for _, path := range []string{"/v1/credits/preview-cost", "/v1/credits/can-afford"} {
			for _, c := range []struct {
				body  any
				field string
			}{
				{map[string]any{}, "service_type"},
				{map[string]any{"service_type": ""}, "service_type"},
				{map[string]any{"service_type": "map"}, "service_type"},
				{map[string]any{"service_type": 5}, "service_type"},
				{map[string]any{"service_type": "serp", "quantity": 0}, "quantity"},
				{map[string]any{"service_type": "serp", "quantity": 101}, "quantity"},
				{map[string]any{"service_type": "serp", "quantity": 1.5}, "quantity"},
				{map[string]any{"service_type": "serp", "quantity": "many"}, "quantity"},
				{"[1,2]", "body"},
				{"{not json", "body"},
			} {
				r := e.Do("POST", path, tok, c.body)
				m := r.JSON(t)
				errs, _ := m["errors"].(map[string]any)
				if r.Status != 422 || errs[c.field] == nil || m["message"] == "" {
					t.Errorf("%s %v = %d %v; want 422 naming %s", path, c.body, r.Status, m, c.field)
				}
			}
		}
	})
}

func TestPurchaseAndLocalCheckout(t *testing.T) {
	eachStore(t, apitest.Options{}, func(t *testing.T, e *apitest.Env) {
		_, tok := e.Account("dev@example.com", "basic")
		for _, body := range []any{map[string]any{}, map[string]any{"credits": 99}, map[string]any{"credits": 10001}, map[string]any{"credits": "lots"}, map[string]any{"credits": 150.5}} {
			r := e.Do("POST", "/v1/credits/purchase", tok, body)
			if errs, _ := r.JSON(t)["errors"].(map[string]any); r.Status != 422 || errs["credits"] == nil {
				t.Errorf("purchase %v = %d %s", body, r.Status, r.Body)
			}
		}
		r := e.Do("POST", "/v1/credits/purchase", tok, map[string]any{"credits": 1500})
		m := r.JSON(t)
		checkout, _ := m["checkout_url"].(string)
		session, _ := m["session_id"].(string)
		if r.Status != 200 || session == "" || !strings.HasSuffix(checkout, "/checkout/"+session) {
			t.Fatalf("purchase = %d %v", r.Status, m)
		}
		u, _ := url.Parse(checkout)
		page := e.Do("GET", u.Path, "", nil)
		if page.Status != 200 || !strings.Contains(string(page.Body), "1,500 credits") || !strings.Contains(string(page.Body), "7.50 USD") {
			t.Fatalf("checkout page = %d %s", page.Status, page.Body)
		}
		if b := num(t, e.Do("GET", "/v1/credits", tok, nil).JSON(t), "balance"); b != 6000 {
			t.Fatalf("credits added before payment: %v", b)
		}
		client := e.Server.Client()
		client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
		for range 3 { // paying again (a double click, a replayed webhook) adds nothing
			res, err := client.Post(e.Server.URL+u.Path+"/pay", "", nil)
			if err != nil || res.StatusCode != http.StatusSeeOther {
				t.Fatalf("pay = %v %v", res, err)
			}
			res.Body.Close()
		}
		if b := num(t, e.Do("GET", "/v1/credits", tok, nil).JSON(t), "balance"); b != 7500 {
			t.Fatalf("balance after paying = %v, want 7500", b)
		}
		page = e.Do("GET", u.Path, "", nil)
		if !strings.Contains(string(page.Body), "Payment complete") {
			t.Fatalf("paid page: %s", page.Body)
		}
		tx := e.Do("GET", "/v1/credits/transactions", tok, nil).JSON(t)
		if num(t, tx, "total") != 1 {
			t.Fatalf("transactions after top-up: %v", tx)
		}
		if e.Do("GET", "/checkout/cs_nope", "", nil).Status != 404 {
			t.Fatal("unknown checkout session")
		}
	})
}

func TestTransactionsPaginator(t *testing.T) {
	eachStore(t, apitest.Options{Mount: billedRoute("GET /v1/test-billed", ratelimit.Content, 2, nil)}, func(t *testing.T, e *apitest.Env) {
		_, tok := e.Account("dev@example.com", "business")
		for i := range 5 {
			if r := e.Do("GET", "/v1/test-billed?url=https://example.com/"+strconv.Itoa(i), tok, nil); r.Status != 200 {
				t.Fatalf("billed call = %d %s", r.Status, r.Body)
			}
		}
		r := e.Do("GET", "/v1/credits/transactions?per_page=2&page=2", tok, nil)
		m := r.JSON(t)
		data, _ := m["data"].([]any)
		if r.Status != 200 || len(data) != 2 || num(t, m, "current_page") != 2 || num(t, m, "last_page") != 3 || num(t, m, "per_page") != 2 ||
			num(t, m, "total") != 5 || num(t, m, "from") != 3 || num(t, m, "to") != 4 {
			t.Fatalf("page 2 = %v", m)
		}
		links, _ := m["links"].(map[string]any)
		for _, k := range []string{"first", "last", "prev", "next"} {
			if s, _ := links[k].(string); !strings.Contains(s, "/v1/credits/transactions?page=") {
				t.Errorf("links.%s = %v", k, links[k])
			}
		}
		tx := data[0].(map[string]any)
		meta, _ := tx["metadata"].(map[string]any)
		if tx["service_type"] != "content" || tx["service_name"] != "Content Extraction" || num(t, tx, "credits") != 2 ||
			num(t, tx, "balance_after") != 89994 || meta["url"] != "https://example.com/2" || meta["request_id"] == "" || num(t, tx, "id") < 1 {
			t.Fatalf("newest-first transaction on page 2 = %v", tx)
		}
		if _, err := time.Parse(time.RFC3339Nano, tx["created_at"].(string)); err != nil {
			t.Fatal(err)
		}
		r = e.Do("GET", "/v1/credits/transactions?page=3&per_page=2", tok, nil)
		if m := r.JSON(t); m["next"] != nil || m["links"].(map[string]any)["next"] != nil {
			t.Fatalf("last page has a next link: %v", m)
		}
		r = e.Do("GET", "/v1/credits/transactions?page=9", tok, nil)
		if m := r.JSON(t); len(m["data"].([]any)) != 0 || m["from"] != nil || m["to"] != nil {
			t.Fatalf("past the end: %v", m)
		}
		for _, q := range []string{"per_page=0", "per_page=101", "per_page=abc", "page=0", "page=-1", "page=x"} {
			r := e.Do("GET", "/v1/credits/transactions?"+q, tok, nil)
			if r.Status != 422 {
				t.Errorf("%s = %d %s", q, r.Status, r.Body)
			}
		}
	})
}

func TestBilledCallsChargeOnlyOnSuccess(t *testing.T) {
	fail := func(r *http.Request) error {
		if r.URL.Query().Get("fail") != "" {
			return failure.Unable("test", failure.ReasonSiteError, "The page could not be fetched: target answered 500.")
		}
		return nil
	}
	eachStore(t, apitest.Options{Mount: billedRoute("GET /v1/test-billed", ratelimit.Content, 2, fail)}, func(t *testing.T, e *apitest.Env) {
		_, tok := e.Account("dev@example.com", "business")
		r := e.Do("GET", "/v1/test-billed?fail=1", tok, nil)
		if r.Status != 503 || string(r.Body) != "{\"message\":\"The page could not be fetched: target answered 500.\",\"reason\":\"site_error\",\"retryable\":true}\n" {
			t.Fatalf("failed call = %d %s", r.Status, r.Body)
		}
		if c, rem := r.Header.Get("X-Credits-Charged"), r.Header.Get("X-Credits-Remaining"); c != "0" || rem != "90000" {
			t.Fatalf("failed call: X-Credits-Charged %q, X-Credits-Remaining %q", c, rem)
		}
		if b := num(t, e.Do("GET", "/v1/credits", tok, nil).JSON(t), "balance"); b != 90000 {
			t.Fatalf("failed call charged: %v", b)
		}
		if r := e.Do("GET", "/v1/test-billed", tok, nil); r.Status != 200 || r.Header.Get("X-Credits-Charged") != "2" || r.Header.Get("X-Credits-Remaining") != "89998" {
			t.Fatalf("ok call = %d, charged %q, remaining %q", r.Status, r.Header.Get("X-Credits-Charged"), r.Header.Get("X-Credits-Remaining"))
		}
		if b := num(t, e.Do("GET", "/v1/credits", tok, nil).JSON(t), "balance"); b != 89998 {
			t.Fatalf("balance = %v", b)
		}
	})
}

func TestInsufficientCredits(t *testing.T) {
	e := apitest.Start(t, memstore.New(), apitest.Options{Mount: billedRoute("GET /v1/test-billed", ratelimit.Content, 2, nil)})
	a, tok := e.Account("dev@example.com", "basic")
	for range 2999 {
		if _, err := e.Biller.Run(context.Background(), creditsCall(a), twoCredits); err != nil {
			t.Fatal(err)
		}
	}
	r := e.Do("GET", "/v1/test-billed", tok, nil)
	if r.Status != 200 || r.Header.Get("X-Monthly-Quota-Warning") == "" {
		t.Fatalf("last affordable call = %d, warning %q", r.Status, r.Header.Get("X-Monthly-Quota-Warning"))
	}
	r = e.Do("GET", "/v1/test-billed", tok, nil)
	m := r.JSON(t)
	if r.Status != 402 || m["message"] != "Insufficient Credits" || num(t, m, "required") != 2 || num(t, m, "balance") != 0 {
		t.Fatalf("over balance = %d %v", r.Status, m)
	}
}

func TestRateLimit(t *testing.T) {
	e := apitest.Start(t, memstore.New(), apitest.Options{Mount: func(a *httpapi.API, env *apitest.Env) {
		billedRoute("GET /v1/test-billed", ratelimit.Content, 2, nil)(a, env)
		billedRoute("GET /v1/test-prompt", ratelimit.Prompt, 10, nil)(a, env)
	}})
	_, tok := e.Account("dev@example.com", "basic")
	for i := 1; i <= 15; i++ {
		r := e.Do("GET", "/v1/test-billed", tok, nil)
		if r.Status != 200 || r.Header.Get("RateLimit-Limit") != "15" || r.Header.Get("RateLimit-Remaining") != strconv.Itoa(15-i) {
			t.Fatalf("request %d: %d limit=%q remaining=%q", i, r.Status, r.Header.Get("RateLimit-Limit"), r.Header.Get("RateLimit-Remaining"))
		}
		if warn := r.Header.Get("X-RateLimit-Warning") != ""; warn != (i >= 12) {
			t.Errorf("request %d: warning %v", i, warn)
		}
	}
	r := e.Do("GET", "/v1/test-billed", tok, nil)
	if r.Status != 429 || r.Header.Get("Retry-After") != "60" || string(r.Body) != "{\"message\":\"Too Many Requests\"}\n" {
		t.Fatalf("16th = %d retry %q %s", r.Status, r.Header.Get("Retry-After"), r.Body)
	}
	if b := num(t, e.Do("GET", "/v1/credits", tok, nil).JSON(t), "balance"); b != 6000-30 {
		t.Fatalf("a refused call was charged: %v", b)
	}
	// Groups are independent; credits and /user are exempt.
	if r := e.Do("GET", "/v1/test-prompt", tok, nil); r.Status != 200 || r.Header.Get("RateLimit-Limit") != "8" {
		t.Fatalf("prompt group = %d %q", r.Status, r.Header.Get("RateLimit-Limit"))
	}
	for range 30 {
		if r := e.Do("GET", "/user", tok, nil); r.Status != 200 || r.Header.Get("RateLimit-Limit") != "" {
			t.Fatalf("/user limited: %d", r.Status)
		}
	}
	e.Clock.Advance(20 * time.Second)
	if r := e.Do("GET", "/v1/test-billed", tok, nil); r.Header.Get("Retry-After") != "40" {
		t.Fatalf("Retry-After after 20 s = %q", r.Header.Get("Retry-After"))
	}
	e.Clock.Advance(40 * time.Second)
	if r := e.Do("GET", "/v1/test-billed", tok, nil); r.Status != 200 {
		t.Fatalf("after the window slid: %d", r.Status)
	}
}

func TestIdempotencyKey(t *testing.T) {
	eachStore(t, apitest.Options{Mount: billedRoute("GET /v1/test-billed", ratelimit.Content, 2, nil)}, func(t *testing.T, e *apitest.Env) {
		_, tok := e.Account("dev@example.com", "business")
		first := e.Do("GET", "/v1/test-billed?url=a", tok, nil, "Idempotency-Key", "order-1")
		again := e.Do("GET", "/v1/test-billed?url=a", tok, nil, "Idempotency-Key", "order-1")
		if first.Status != 200 || again.Status != 200 || string(first.Body) != string(again.Body) || again.Header.Get("Idempotent-Replayed") != "true" {
			t.Fatalf("replay: %d %s / %d %s", first.Status, first.Body, again.Status, again.Body)
		}
		if b := num(t, e.Do("GET", "/v1/credits", tok, nil).JSON(t), "balance"); b != 89998 {
			t.Fatalf("retry charged twice: balance %v", b)
		}
		r := e.Do("GET", "/v1/test-billed?url=b", tok, nil, "Idempotency-Key", "order-1")
		if errs, _ := r.JSON(t)["errors"].(map[string]any); r.Status != 422 || errs["Idempotency-Key"] == nil {
			t.Fatalf("key reused for another request = %d %s", r.Status, r.Body)
		}
		if r := e.Do("GET", "/v1/test-billed?url=a", tok, nil, "Idempotency-Key", strings.Repeat("k", 300)); r.Status != 422 {
			t.Fatalf("overlong key = %d", r.Status)
		}
	})
}

func TestIdempotencyKeyFailedCallsRunAgain(t *testing.T) {
	var mu sync.Mutex
	failing := true
	fail := func(*http.Request) error {
		mu.Lock()
		defer mu.Unlock()
		if failing {
			return failure.E("test", failure.Unavailable, "down")
		}
		return nil
	}
	e := apitest.Start(t, memstore.New(), apitest.Options{Mount: billedRoute("GET /v1/test-billed", ratelimit.Content, 2, fail)})
	_, tok := e.Account("dev@example.com", "business")
	if r := e.Do("GET", "/v1/test-billed", tok, nil, "Idempotency-Key", "k"); r.Status != 503 {
		t.Fatalf("first = %d", r.Status)
	}
	mu.Lock()
	failing = false
	mu.Unlock()
	if r := e.Do("GET", "/v1/test-billed", tok, nil, "Idempotency-Key", "k"); r.Status != 200 || r.Header.Get("Idempotent-Replayed") != "" {
		t.Fatalf("retry after a failure must run again: %d", r.Status)
	}
}

func TestRevokedTokenMidRequest(t *testing.T) {
	var e *apitest.Env
	var acct ports.Account
	revoke := func(r *http.Request) error {
		toks, _ := e.Auth.ListTokens(r.Context(), acct.ID)
		for _, tk := range toks {
			_ = e.Auth.DeleteToken(r.Context(), acct.ID, tk.ID)
		}
		return nil
	}
	e = apitest.Start(t, memstore.New(), apitest.Options{Mount: billedRoute("GET /v1/test-billed", ratelimit.Content, 2, revoke)})
	var tok string
	acct, tok = e.Account("dev@example.com", "business")
	r := e.Do("GET", "/v1/test-billed", tok, nil)
	if r.Status != 401 {
		t.Fatalf("token deleted mid-request = %d %s", r.Status, r.Body)
	}
	st, _ := e.Credits.Status(context.Background(), acct.ID)
	if st.Used != 0 {
		t.Fatalf("revoked call charged %d", st.Used)
	}
}

func TestErrorsNeverLeak(t *testing.T) {
	pay := mocks.NewPaymentProvider(t)
	pay.EXPECT().CreateCheckout(mock.Anything, mock.Anything).Return(ports.Checkout{}, errors.New("dial tcp 10.0.0.7:443: secret-internal-host refused"))
	e := apitest.Start(t, memstore.New(), apitest.Options{Payments: pay, Mount: func(a *httpapi.API, _ *apitest.Env) {
		a.Billed("GET /v1/test-panic", ratelimit.Content, func(*http.Request, credits.Call) (int, any, credits.Receipt, error) { panic("kaboom internals") })
	}})
	_, tok := e.Account("dev@example.com", "basic")
	r := e.Do("POST", "/v1/credits/purchase", tok, map[string]any{"credits": 100})
	if r.Status != 500 || string(r.Body) != "{\"message\":\"Server Error\"}\n" {
		t.Fatalf("provider failure = %d %s", r.Status, r.Body)
	}
	r = e.Do("GET", "/v1/test-panic", tok, nil)
	if r.Status != 500 || strings.Contains(string(r.Body), "kaboom") {
		t.Fatalf("panic = %d %s", r.Status, r.Body)
	}
	if e.Do("GET", "/healthz", "", nil).Status != 200 {
		t.Fatal("server died after a panic")
	}
}

func TestAccountVanishedIs404(t *testing.T) {
	store := memstore.New()
	ledger := mocks.NewLedgerStore(t)
	ledger.EXPECT().ReadCredits(mock.Anything, mock.Anything, mock.Anything).Return(ports.CreditState{}, 0, failure.E("store", failure.NotFound, "account not found"))
	e := apitest.Start(t, store, apitest.Options{Ledger: ledger})
	_, tok := e.Account("dev@example.com", "basic")
	for _, path := range []string{"/v1/credits/preview-cost", "/v1/credits/can-afford"} {
		r := e.Do("POST", path, tok, map[string]any{"service_type": "content", "quantity": 1})
		if m := r.JSON(t); r.Status != 404 || m["error"] != "Account not found." {
			t.Errorf("%s = %d %v", path, r.Status, m)
		}
	}
}

// The credit status is answered from the credit row read with the token:
// no second read of the store (the mock fails on any call to ReadCredits).
func TestCreditStatusReadsTheAccountOnce(t *testing.T) {
	store := memstore.New()
	e := apitest.Start(t, store, apitest.Options{Ledger: mocks.NewLedgerStore(t)})
	_, tok := e.Account("dev@example.com", "basic")
	for _, path := range []string{"/v1/credits", "/v1/credits/usage-stats"} {
		r := e.Do("GET", path, tok, nil)
		if m := r.JSON(t); r.Status != 200 || m["balance"] != float64(6000) {
			t.Errorf("%s = %d %v", path, r.Status, m)
		}
	}
}

func TestBodyLimitAndUnknownRoutes(t *testing.T) {
	e := apitest.Start(t, memstore.New(), apitest.Options{})
	_, tok := e.Account("dev@example.com", "basic")
	big := `{"service_type":"` + strings.Repeat("a", 2<<20) + `"}`
	if r := e.Do("POST", "/v1/credits/preview-cost", tok, big); r.Status != 413 {
		t.Fatalf("2 MiB body = %d", r.Status)
	}
	r := e.Do("GET", "/v2/nothing", tok, nil)
	if m := r.JSON(t); r.Status != 404 || m["message"] != "Not Found" {
		t.Fatalf("unknown route = %d %v", r.Status, m)
	}
	if r := e.Do("DELETE", "/v1/credits", tok, nil); r.Status != 405 {
		t.Fatalf("wrong method = %d", r.Status)
	}
	if r := e.Do("GET", "/readyz", "", nil); r.Status != 200 {
		t.Fatalf("readyz = %d", r.Status)
	}
}

func TestEveryKindHasAStatus(t *testing.T) {
	for k := failure.Internal; k <= failure.TooLarge; k++ {
		found := false
		for _, known := range errmap.Kinds() {
			found = found || known == k
		}
		if !found {
			t.Errorf("kind %s has no entry in the status table", k)
		}
	}
	if errmap.Lookup(failure.Kind(250)).HTTPStatus != 500 {
		t.Error("unknown kinds must map to 500")
	}
}

func TestOpenAPIDocumentAndDocs(t *testing.T) {
	e := apitest.Start(t, memstore.New(), apitest.Options{})
	r := e.Do("GET", "/openapi.json", "", nil)
	doc := r.JSON(t)
	if r.Status != 200 || doc["openapi"] != "3.1.0" {
		t.Fatalf("openapi.json = %d %v", r.Status, doc["openapi"])
	}
	paths := doc["paths"].(map[string]any)
	for _, p := range []string{"/user", "/v1/credits", "/v1/credits/transactions", "/v1/credits/preview-cost", "/v1/credits/can-afford", "/v1/credits/usage-stats",
		"/v1/credits/purchase", "/v1/scrape", "/v1/content", "/v1/map", "/v1/serp", "/v1/serp/content", "/v1/prompt", "/v1/content/bulk", "/v1/content/bulk/{job_id}"} {
		if paths[p] == nil {
			t.Errorf("the document lacks %s", p)
		}
	}
	if hooks, _ := doc["webhooks"].(map[string]any); hooks["content-all-results"] == nil || hooks["content-bulk-failure"] == nil {
		t.Error("the document lacks the webhooks")
	}
	page := e.Do("GET", "/docs", "", nil)
	if page.Status != 200 || !strings.Contains(string(page.Body), "/v1/serp/content") || !strings.Contains(string(page.Body), "whitelist_domains") {
		t.Fatalf("docs = %d", page.Status)
	}
}
