package httpapi_test

import (
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/testkit/apitest"
	"github.com/trawlhq/trawl/testkit/fakellm"
	"github.com/trawlhq/trawl/testkit/fakesearch"
	"github.com/trawlhq/trawl/testkit/memstore"
	"github.com/trawlhq/trawl/testkit/sites"
)

// reasonSite serves the failures a target site can answer with.
func reasonSite(t *testing.T) *sites.Site {
	s := sites.New(t, "fail.test")
	status := func(path string, code int) {
		s.Mux.HandleFunc(path, func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(code)
			_, _ = w.Write([]byte("<html><body><h1>no</h1></body></html>"))
		})
	}
	status("/forbidden", http.StatusForbidden)
	status("/gone", http.StatusGone)
	status("/broken", http.StatusBadGateway)
	s.Handle("/denied", "text/html", `<html><head><title>Access Denied</title></head><body><p>You don't have permission to access this server.</p></body></html>`)
	s.Handle("/challenge", "text/html", `<html><head><title>Just a moment...</title></head><body><script>window._cf_chl_opt={}</script></body></html>`)
	s.Handle("/nav-only", "text/html", `<html><body><nav><a href="/a">A</a></nav></body></html>`)
	s.Handle("/data.bin", "application/octet-stream", "\x00\x01\x02")
	s.Mux.HandleFunc("/loop", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/loop", http.StatusFound) })
	s.Mux.HandleFunc("/to-ftp", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "ftp://fail.test/file", http.StatusFound)
	})
	return s
}

// TestEveryFailureNamesAKnownReason drives each way a billed call can fail
// to complete through the real router and holds its 503 to a stable code
// of failure.Reasons, with the code's retryable flag, and no charge.
func TestEveryFailureNamesAKnownReason(t *testing.T) {
	site := reasonSite(t)
	google, bing := fakesearch.New(t, "google"), fakesearch.New(t, "bing")
	google.Block()
	bing.Down()
	resolve := sites.Resolve(site)
	resolve["closed.test:80"] = "127.0.0.1:1" // nothing listens there
	model := fakellm.New(t)
	e := apitest.Start(t, memstore.New(), apitest.Options{Resolve: resolve, Engines: map[string]string{"google": google.URL, "bing": bing.URL}, LLMBaseURL: model.BaseURL()})
	noModel := apitest.Start(t, memstore.New(), apitest.Options{Resolve: resolve})
	_, tok := e.Account("dev@example.com", "business")
	_, tok2 := noModel.Account("dev@example.com", "business")

	get := func(path, u string) func() apitest.Response {
		return func() apitest.Response { return e.Do("GET", path+"?url="+url.QueryEscape(u), tok, nil) }
	}
	cases := []struct {
		name   string
		do     func() apitest.Response
		reason failure.Reason
	}{
		{"site refuses with 403", get("/v1/content", site.URL("/forbidden")), failure.ReasonBlocked},
		{"access-denied page", get("/v1/content", site.URL("/denied")), failure.ReasonBlocked},
		{"bot challenge", get("/v1/content", site.URL("/challenge")), failure.ReasonCaptcha},
		{"page gone", get("/v1/content", site.URL("/gone")), failure.ReasonPageNotFound},
		{"site error", get("/v1/content", site.URL("/broken")), failure.ReasonSiteError},
		{"not a page (content)", get("/v1/content", site.URL("/data.bin")), failure.ReasonNotHTML},
		{"not a page (scrape)", get("/v1/scrape", site.URL("/data.bin")), failure.ReasonNotHTML},
		{"no main content", get("/v1/content", site.URL("/nav-only")), failure.ReasonNoMainContent},
		{"unknown host", get("/v1/content", "http://gone.test/"), failure.ReasonDNS},
		{"connection refused", get("/v1/scrape", "http://closed.test/"), failure.ReasonRefused},
		{"redirect loop", get("/v1/scrape", site.URL("/loop")), failure.ReasonRedirects},
		{"redirect off the web", get("/v1/content", site.URL("/to-ftp")), failure.ReasonRedirects},
		{"no sitemap", get("/v1/map", site.URL("/")), failure.ReasonNoSitemap},
		{"engine blocks", func() apitest.Response { return e.Do("GET", "/v1/serp?q=tides", tok, nil) }, failure.ReasonEngineBlocked},
		{"engine down", func() apitest.Response { return e.Do("GET", "/v1/serp?q=tides&engine=bing", tok, nil) }, failure.ReasonEngineUnreachable},
		{"engine unreachable", func() apitest.Response { return e.Do("GET", "/v1/serp/content?q=tides&engine=duckduckgo", tok, nil) }, failure.ReasonEngineUnreachable},
		{"model keeps failing", func() apitest.Response {
			model.FailNext(500, 500, 500, 500)
			return e.Do("POST", "/v1/prompt", tok, map[string]any{"prompt": "hello"})
		}, failure.ReasonLLMFailed},
		{"no model", func() apitest.Response {
			return noModel.Do("POST", "/v1/prompt", tok2, map[string]any{"prompt": "hello"})
		}, failure.ReasonLLMUnavailable},
	}
	for _, c := range cases {
		r := c.do()
		m := r.JSON(t)
		info, known := failure.Reason(asString(m["reason"])).Info()
		if r.Status != 503 || !known || info.Code != c.reason || m["retryable"] != info.Retryable || asString(m["message"]) == "" {
			t.Errorf("%s = %d %v; want 503 reason %s", c.name, r.Status, m, c.reason)
		}
		if r.Header.Get("X-Credits-Charged") != "0" || r.Header.Get("X-Credits-Remaining") == "" {
			t.Errorf("%s: X-Credits-Charged %q, X-Credits-Remaining %q", c.name, r.Header.Get("X-Credits-Charged"), r.Header.Get("X-Credits-Remaining"))
		}
	}
	if b := balance(t, e, tok); b != 90000 {
		t.Fatalf("failures were charged: balance %v", b)
	}
}

func asString(v any) string { s, _ := v.(string); return s }

// TestReasonCodesAreDocumented: the OpenAPI document lists exactly the
// codes of failure.Reasons, and docs/api.md names each.
func TestReasonCodesAreDocumented(t *testing.T) {
	e := apitest.Start(t, memstore.New(), apitest.Options{})
	doc := e.Do("GET", "/openapi.json", "", nil).JSON(t)
	schemas := doc["components"].(map[string]any)["schemas"].(map[string]any)
	if ref := schemas["Failure"].(map[string]any)["properties"].(map[string]any)["reason"].(map[string]any)["$ref"]; ref != "#/components/schemas/Reason" {
		t.Fatalf("Failure.reason = %v, want the Reason schema", ref)
	}
	enum := schemas["Reason"].(map[string]any)["enum"].([]any)
	readme, err := os.ReadFile("../../docs/api.md")
	if err != nil {
		t.Fatal(err)
	}
	reasons := failure.Reasons()
	if len(enum) != len(reasons) {
		t.Errorf("the document lists %d codes, failure.Reasons %d", len(enum), len(reasons))
	}
	for i, r := range reasons {
		if i < len(enum) && enum[i] != string(r.Code) {
			t.Errorf("code %d: document %v, failure.Reasons %s", i, enum[i], r.Code)
		}
		if !strings.Contains(string(readme), "| `"+string(r.Code)+"` |") {
			t.Errorf("docs/api.md does not list %s", r.Code)
		}
	}
}
