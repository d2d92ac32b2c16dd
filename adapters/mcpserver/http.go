package mcpserver

import (
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/trawlhq/trawl/client"
	"github.com/trawlhq/trawl/core/service"
)

// Handler serves MCP over streamable HTTP. A request without a valid Bearer
// token is a 401; a valid one is the token of every tool call the request
// makes, and those calls reach api in process, through the same handler as
// any API request: its limits, billing and answers. The token is checked
// by the application's own authentication (s.Auth).
func Handler(api http.Handler, s *service.Services, version string) http.Handler {
	mcpHandler := mcp.NewStreamableHTTPHandler(func(r *http.Request) *mcp.Server {
		token := strings.TrimSpace(strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
		c := client.New("http://trawl.internal", token, client.WithAttempts(1),
			client.WithHTTPClient(&http.Client{Transport: inProcess{api}}))
		return New(c, version)
	}, &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := s.Auth.Authenticate(r.Context(), r.Header.Get("Authorization")); err != nil {
			w.Header().Set("WWW-Authenticate", `Bearer realm="trawl"`)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(`{"message":"Unauthenticated."}` + "\n"))
			return
		}
		mcpHandler.ServeHTTP(w, r)
	})
}

// inProcess sends a client's requests straight to a handler.
type inProcess struct{ h http.Handler }

func (p inProcess) RoundTrip(r *http.Request) (*http.Response, error) {
	rec := httptest.NewRecorder()
	r.RequestURI = r.URL.RequestURI()
	p.h.ServeHTTP(rec, r)
	return rec.Result(), nil
}
