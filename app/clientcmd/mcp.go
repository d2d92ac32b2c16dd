// Package clientcmd holds the trawl binary's commands that are clients of a
// Trawl API (trawl api ..., trawl mcp), built on the Go client. The server
// packages do not depend on the client; the binary joins them.
package clientcmd

import (
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/trawlhq/trawl/adapters/mcpserver"
	"github.com/trawlhq/trawl/app"
	"github.com/trawlhq/trawl/client"
	"github.com/trawlhq/trawl/core/service"
)

// DefaultAPIURL is the API the client commands reach without TRAWL_API_URL.
const DefaultAPIURL = app.DefaultAPIURL

// Commands implements app.ClientCommands.
type Commands struct{}

var _ app.ClientCommands = Commands{}

// MCP is the /mcp handler the server mounts (app.MCPMount).
func MCP(api http.Handler, s *service.Services) http.Handler {
	return mcpserver.Handler(api, s, app.Version)
}

var _ app.MCPMount = MCP

// Run implements app.ClientCommands.
func (Commands) Run(ctx context.Context, name string, a app.ClientArgs, io app.ClientIO) error {
	r := runner{a: a, io: io}
	if name == "mcp" {
		return r.mcp(ctx)
	}
	return r.api(ctx, name)
}

type runner struct {
	a  app.ClientArgs
	io app.ClientIO
}

// apiClient is the Go client for TRAWL_API_URL and TRAWL_API_KEY.
func (r runner) apiClient(opts ...client.Option) (*client.Client, error) {
	key := strings.TrimSpace(r.io.Getenv("TRAWL_API_KEY"))
	if key == "" {
		return nil, app.UsageError(errors.New("needs TRAWL_API_KEY (an API token) in the environment"))
	}
	base := strings.TrimSpace(r.io.Getenv("TRAWL_API_URL"))
	if base == "" {
		base = DefaultAPIURL
	}
	return client.New(base, key, opts...), nil
}

// mcp serves the MCP tools over stdin and stdout until the agent hangs up.
func (r runner) mcp(ctx context.Context) error {
	api, err := r.apiClient(client.WithAttempts(1))
	if err != nil {
		return err
	}
	in := r.io.Stdin
	if in == nil {
		in = os.Stdin
	}
	err = mcpserver.New(api, app.Version).Run(ctx, &mcp.IOTransport{Reader: io.NopCloser(in), Writer: nopCloser{r.io.Stdout}})
	if err == nil || errors.Is(err, io.EOF) || errors.Is(err, context.Canceled) || errors.Is(err, mcp.ErrConnectionClosed) {
		return nil
	}
	return err
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
