package connectapi_test

import (
	"context"
	"fmt"
	"testing"

	"connectrpc.com/connect"

	trawlv1 "github.com/trawlhq/trawl/adapters/connectapi/gen/trawl/v1"
	"github.com/trawlhq/trawl/core/billing"
	"github.com/trawlhq/trawl/core/ratelimit"
)

// TestRateLimitBelongsToTheAccountOverRPC: over RPC too the window is the
// account's: a new token after deleting the old one does not empty it, and
// the tokens of one account share it.
func TestRateLimitBelongsToTheAccountOverRPC(t *testing.T) {
	e := start(t)
	ctx := context.Background()
	scrape := func(tok string) error {
		req := connect.NewRequest(&trawlv1.ScrapeRequest{Url: "http://news.test/article"})
		req.Header().Set("Authorization", "Bearer "+tok)
		_, err := e.pages.Scrape(ctx, req)
		return err
	}

	t.Run("token churn", func(t *testing.T) {
		acct, tok := e.Account("churn@example.com", "basic")
		limit := ratelimit.Limit(billing.DefaultPlans(), "basic", ratelimit.Scrape)
		for i := range limit - 5 {
			if err := scrape(tok); err != nil {
				t.Fatalf("call %d: %v", i+1, err)
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
			if err := scrape(fresh.Secret); err != nil {
				t.Fatalf("call %d with the new token: %v", limit-5+i+1, err)
			}
		}
		code(t, scrape(fresh.Secret), connect.CodeResourceExhausted)
	})

	t.Run("several tokens", func(t *testing.T) {
		acct, first := e.Account("spread@example.com", "business")
		limit := ratelimit.Limit(billing.DefaultPlans(), "business", ratelimit.Scrape)
		toks := []string{first}
		for i := range 4 {
			nt, err := e.Auth.CreateToken(ctx, acct.ID, fmt.Sprint("extra", i))
			if err != nil {
				t.Fatal(err)
			}
			toks = append(toks, nt.Secret)
		}
		for i := range limit {
			if err := scrape(toks[i%len(toks)]); err != nil {
				t.Fatalf("call %d: %v", i+1, err)
			}
		}
		for _, tok := range toks {
			code(t, scrape(tok), connect.CodeResourceExhausted)
		}
	})
}
