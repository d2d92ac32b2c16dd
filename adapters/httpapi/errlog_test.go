package httpapi_test

import (
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/mock"

	"github.com/trawlhq/trawl/adapters/httpapi"
	"github.com/trawlhq/trawl/core/credits"
	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/core/ratelimit"
	"github.com/trawlhq/trawl/ports"
	"github.com/trawlhq/trawl/testkit/apitest"
	"github.com/trawlhq/trawl/testkit/logtest"
	"github.com/trawlhq/trawl/testkit/memstore"
	"github.com/trawlhq/trawl/testkit/mocks"
)

// TestEveryServerErrorIsLogged: each 500 the JSON API answers is logged
// with its cause and the request id: internal errors, panics, and errors of
// a kind the status table does not know.
func TestEveryServerErrorIsLogged(t *testing.T) {
	pay := mocks.NewPaymentProvider(t)
	pay.EXPECT().CreateCheckout(mock.Anything, mock.Anything).Return(ports.Checkout{}, errors.New("dial tcp 10.0.0.7:443: provider refused"))
	var logs logtest.Buffer
	e := apitest.Start(t, memstore.New(), apitest.Options{Payments: pay, Logger: slog.New(slog.NewJSONHandler(&logs, nil)), Mount: func(a *httpapi.API, _ *apitest.Env) {
		a.Billed("GET /v1/test-panic", ratelimit.Content, func(*http.Request, credits.Call) (int, any, credits.Receipt, error) { panic("kaboom cause") })
		a.Billed("GET /v1/test-odd-kind", ratelimit.Content, func(*http.Request, credits.Call) (int, any, credits.Receipt, error) {
			return 0, nil, credits.Receipt{}, failure.E("test", failure.Kind(250), "odd", errors.New("odd kind cause"))
		})
	}})
	_, tok := e.Account("dev@example.com", "business")
	for _, c := range []struct {
		method, path string
		body         any
		cause        string
	}{
		{"POST", "/v1/credits/purchase", map[string]any{"credits": 100}, "provider refused"},
		{"GET", "/v1/test-panic", nil, "kaboom cause"},
		{"GET", "/v1/test-odd-kind", nil, "odd kind cause"},
	} {
		r := e.Do(c.method, c.path, tok, c.body)
		id := r.Header.Get("X-Request-Id")
		if r.Status != 500 || string(r.Body) != "{\"message\":\"Server Error\"}\n" {
			t.Errorf("%s = %d %s", c.path, r.Status, r.Body)
		}
		found := false
		for _, line := range strings.Split(logs.String(), "\n") {
			found = found || strings.Contains(line, `"level":"ERROR"`) && strings.Contains(line, `"request_id":"`+id+`"`) && strings.Contains(line, c.cause)
		}
		if !found {
			t.Errorf("%s: no error line with request %s and cause %q:\n%s", c.path, id, c.cause, logs.String())
		}
	}
}
