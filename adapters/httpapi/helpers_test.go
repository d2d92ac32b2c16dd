package httpapi_test

import (
	"context"
	"net/http"

	"github.com/trawlhq/trawl/adapters/httpapi"
	"github.com/trawlhq/trawl/core/ratelimit"
	"github.com/trawlhq/trawl/testkit/apitest"

	"github.com/trawlhq/trawl/core/credits"
	"github.com/trawlhq/trawl/ports"
)

func creditsCall(a ports.Account) credits.Call {
	return credits.Call{Principal: ports.Principal{Account: a.Caller()}, Service: "content"}
}

func twoCredits(context.Context) (int64, ports.TransactionMetadata, error) {
	return 2, ports.TransactionMetadata{}, nil
}

// billedRoute mounts a billed route whose work costs n credits, or fails
// with the error of fail: it stands for any billed endpoint.
func billedRoute(pattern string, group ratelimit.Group, n int64, fail func(*http.Request) error) func(*httpapi.API, *apitest.Env) {
	return func(a *httpapi.API, e *apitest.Env) {
		a.Billed(pattern, group, func(r *http.Request, c credits.Call) (int, any, credits.Receipt, error) {
			c.Service, c.MaxCredits = "content", n
			rc, err := e.Biller.Run(r.Context(), c, func(context.Context) (int64, ports.TransactionMetadata, error) {
				if fail != nil {
					if err := fail(r); err != nil {
						return 0, ports.TransactionMetadata{}, err
					}
				}
				return n, ports.TransactionMetadata{URL: r.URL.Query().Get("url")}, nil
			})
			return http.StatusOK, map[string]any{"ok": true, "url": r.URL.Query().Get("url")}, rc, err
		})
	}
}
