package httpapi_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/trawlhq/trawl/core/billing"
	"github.com/trawlhq/trawl/core/ratelimit"
	"github.com/trawlhq/trawl/testkit/apitest"
	"github.com/trawlhq/trawl/testkit/memstore"
)

// TestRateLimitBelongsToTheAccount: the per-minute window is the
// account's. Deleting a token and making a new one does not empty it, and
// several tokens of one account draw on one window.
func TestRateLimitBelongsToTheAccount(t *testing.T) {
	e := apitest.Start(t, memstore.New(), apitest.Options{Mount: billedRoute("GET /v1/test-billed", ratelimit.Content, 2, nil)})
	ctx := context.Background()
	limit := ratelimit.Limit(billing.DefaultPlans(), "basic", ratelimit.Content)
	call := func(tok string) int { return e.Do("GET", "/v1/test-billed", tok, nil).Status }

	t.Run("token churn", func(t *testing.T) {
		acct, tok := e.Account("churn@example.com", "basic")
		for i := range limit - 5 {
			if s := call(tok); s != 200 {
				t.Fatalf("call %d = %d", i+1, s)
			}
		}
		toks, _ := e.Auth.ListTokens(ctx, acct.ID)
		for _, tk := range toks {
			if err := e.Auth.DeleteToken(ctx, acct.ID, tk.ID); err != nil {
				t.Fatal(err)
			}
		}
		fresh, err := e.Auth.CreateToken(ctx, acct.ID, "fresh")
		if err != nil {
			t.Fatal(err)
		}
		for i := range 5 {
			if s := call(fresh.Secret); s != 200 {
				t.Fatalf("call %d with the new token = %d", limit-5+i+1, s)
			}
		}
		if s := call(fresh.Secret); s != 429 {
			t.Fatalf("call %d with a new token = %d, want 429: a new token reset the window", limit+1, s)
		}
	})

	t.Run("several tokens", func(t *testing.T) {
		acct, first := e.Account("spread@example.com", "business")
		limit := ratelimit.Limit(billing.DefaultPlans(), "business", ratelimit.Content)
		toks := []string{first}
		for i := range 4 {
			nt, err := e.Auth.CreateToken(ctx, acct.ID, fmt.Sprint("extra", i))
			if err != nil {
				t.Fatal(err)
			}
			toks = append(toks, nt.Secret)
		}
		for i := range limit {
			if s := call(toks[i%len(toks)]); s != 200 {
				t.Fatalf("call %d = %d", i+1, s)
			}
		}
		for _, tok := range toks {
			if r := e.Do("GET", "/v1/test-billed", tok, nil); r.Status != 429 || r.Header.Get("RateLimit-Remaining") != "0" {
				t.Fatalf("over the limit with another token = %d %v", r.Status, r.Header)
			}
		}
		// Another account keeps its own window.
		_, other := e.Account("other@example.com", "basic")
		if s := call(other); s != 200 {
			t.Fatalf("another account = %d", s)
		}
	})
}
