package e2e

import (
	"context"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/trawlhq/trawl/testkit/sites"
)

type bearerTransport struct{ token string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// TestBinaryMCP: trawl serve answers MCP at /mcp with the API's token, and
// trawl mcp serves the same tools over stdio against that server.
func TestBinaryMCP(t *testing.T) {
	site := sites.New(t, "fixture.test")
	article, err := os.ReadFile("../testdata/pages/article.html")
	if err != nil {
		t.Fatal(err)
	}
	site.Handle("/tide-pools", "text/html", string(article))
	s := start(t, []string{"--data-dir", t.TempDir(), "--resolve", sites.ResolveFlags(site)[0]})
	token := tokenRE.FindString(s.stdout.String())
	ctx := context.Background()
	call := func(tr mcp.Transport) {
		t.Helper()
		session, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil).Connect(ctx, tr, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer session.Close()
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "content", Arguments: map[string]any{"url": "http://fixture.test/tide-pools"}})
		if err != nil || res.IsError {
			t.Fatalf("content: %v %+v", err, res)
		}
		var text strings.Builder
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				text.WriteString(tc.Text)
			}
		}
		if !strings.Contains(text.String(), "Three ways to keep cool") {
			t.Fatalf("content: %s", text.String())
		}
	}
	call(&mcp.StreamableClientTransport{Endpoint: s.base + "/mcp", HTTPClient: &http.Client{Transport: bearerTransport{token}}, DisableStandaloneSSE: true})
	stdio := trawl(t, "mcp")
	stdio.Env = append(os.Environ(), "TRAWL_API_URL="+s.base, "TRAWL_API_KEY="+token)
	call(&mcp.CommandTransport{Command: stdio})
	res, err := http.Post(s.base+"/mcp", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	if err != nil || res.StatusCode != 401 {
		t.Fatalf("no token: %v %v", err, res)
	}
	res.Body.Close()
	s.stop(t)
}
