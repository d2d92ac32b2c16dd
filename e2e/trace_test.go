package e2e

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/trawlhq/trawl/testkit/sites"
)

// TestBinaryExportsTraces: with OTEL_EXPORTER_OTLP_ENDPOINT set, the binary
// sends its spans over OTLP/HTTP to a local receiver; they name the route
// and the operations, carry the request id, and never the page's path or
// query, nor the token.
func TestBinaryExportsTraces(t *testing.T) {
	var mu sync.Mutex
	var got bytes.Buffer
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if r.URL.Path == "/v1/traces" && r.Header.Get("Content-Type") == "application/x-protobuf" {
			mu.Lock()
			got.Write(body)
			mu.Unlock()
		}
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	defer recv.Close()
	site := sites.New(t, "fixture.test")
	article, err := os.ReadFile("../testdata/pages/article.html")
	if err != nil {
		t.Fatal(err)
	}
	site.Handle("/tide-pools", "text/html", string(article))
	s := startEnv(t, []string{"--data-dir", t.TempDir(), "--resolve", sites.ResolveFlags(site)[0]},
		[]string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.URL, "OTEL_SERVICE_NAME=trawl-e2e", "OTEL_BSP_SCHEDULE_DELAY=100"})
	token := tokenRE.FindString(s.stdout.String())
	req, _ := http.NewRequest("GET", s.base+"/v1/content?url=http://fixture.test/tide-pools?session=s3cr3t", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("X-Request-Id", "req-e2e-trace-1")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("content = %d", res.StatusCode)
	}
	s.stop(t) // flushes the spans still buffered
	mu.Lock()
	spans := got.String()
	mu.Unlock()
	for _, want := range []string{"trawl-e2e", "GET /v1/content", "req-e2e-trace-1", "fetch", "extract", "ledger.reserve", "ledger.settle", "fixture.test"} {
		if !strings.Contains(spans, want) {
			t.Errorf("no %q in the exported spans (%d bytes)", want, len(spans))
		}
	}
	for _, leak := range []string{"/tide-pools", "s3cr3t", token, "local@localhost"} {
		if strings.Contains(spans, leak) {
			t.Errorf("%q reached the spans", leak)
		}
	}
}
