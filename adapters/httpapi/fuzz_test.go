package httpapi_test

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/trawlhq/trawl/testkit/apitest"
	"github.com/trawlhq/trawl/testkit/logtest"
	"github.com/trawlhq/trawl/testkit/memstore"
)

// leakMarkers are pieces of text that only internals produce: Go errors of
// the network, the stores and the runtime.
var leakMarkers = []string{"goroutine ", ".go:", "runtime error", "panic", "dial tcp", "connection refused", "no such host", "i/o timeout",
	"sql:", "sqlite", "pq:", "memstore", "sqlstore", "context deadline exceeded", "context canceled", "invalid character", "json: cannot"}

var wildcard = regexp.MustCompile(`\{[^}]*\}`)

// FuzzREST sends arbitrary queries, bodies and path segments to every route
// the JSON API registers, through the real router and middleware: no
// request may panic, answer 500, or show internals.
func FuzzREST(f *testing.F) {
	var logs logtest.Buffer
	e := apitest.Start(f, memstore.New(), apitest.Options{NoWorker: true, Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
	_, tok := e.Account("fuzz@example.com", "business")
	var routes []string // "METHOD /path"
	for _, p := range e.API.Patterns() {
		if strings.Contains(p, " ") { // the RPC surface is mounted by prefix, without a method
			routes = append(routes, p)
		}
	}
	if len(routes) < 15 {
		f.Fatalf("only %d routes: %v", len(routes), routes)
	}
	for i := range routes {
		for _, seed := range []struct{ query, body string }{
			{"url=http://news.test/article&limit=5", `{"service_type":"serp","quantity":3,"credits":500,"prompt":"What?","url":"http://news.test/","urls":["http://news.test/a"],"email":true}`},
			{"url=%zz&q=&page=-1&per_page=1e9", `{"service_type":17,"quantity":"x","urls":"nope","callback_url":"http://[::1]/","sitemap":{"a":1}}`},
			{"q=tides&engine=yahoo&max_content=51&whitelist_domains=*.", `[1,2,3]`},
			{"", "\x00\xff{\"a\":"},
		} {
			f.Add(uint8(i), seed.query, []byte(seed.body), "job_123", true)
		}
		f.Add(uint8(i), "", []byte(nil), "", false)
	}
	handler := e.API.Handler()
	f.Fuzz(func(t *testing.T, route uint8, query string, body []byte, segment string, withToken bool) {
		method, pattern, _ := strings.Cut(routes[int(route)%len(routes)], " ")
		path := wildcard.ReplaceAllString(pattern, "x")
		if strings.HasSuffix(path, "/") {
			path += "x"
		}
		path = strings.Replace(path, "/x", "/"+strings.ReplaceAll(segment, "/", ""), 1)
		req := httptest.NewRequest(method, "/", bytes.NewReader(body))
		req.URL.Path, req.URL.RawQuery = path, query
		req.Header.Set("Content-Type", "application/json")
		if withToken {
			req.Header.Set("Authorization", "Bearer "+tok)
		}
		e.Clock.Advance(time.Minute) // a fresh rate-limit window for every input
		rec := httptest.NewRecorder()
		handler.ServeHTTP(rec, req)
		out := rec.Body.String()
		if rec.Code == http.StatusInternalServerError {
			t.Fatalf("%s %s?%s = 500 %s\nlog: %s", method, path, query, out, logs.String())
		}
		if rec.Code >= 400 {
			for _, m := range leakMarkers {
				if strings.Contains(out, m) {
					t.Fatalf("%s %s?%s shows %q: %s", method, path, query, m, out)
				}
			}
		}
	})
}
