package app

import (
	"context"
	"errors"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/trawlhq/trawl/adapters/mcpserver"
	"github.com/trawlhq/trawl/client"
)

// DefaultAPIURL is the API the client commands reach without TRAWL_API_URL.
const DefaultAPIURL = "http://127.0.0.1:8080"

// apiClient is the Go client for TRAWL_API_URL and TRAWL_API_KEY.
func (c CLI) apiClient(opts ...client.Option) (*client.Client, error) {
	key := strings.TrimSpace(c.Getenv("TRAWL_API_KEY"))
	if key == "" {
		return nil, usageError{errors.New("needs TRAWL_API_KEY (an API token) in the environment")}
	}
	base := strings.TrimSpace(c.Getenv("TRAWL_API_URL"))
	if base == "" {
		base = DefaultAPIURL
	}
	return client.New(base, key, opts...), nil
}

// mcp serves the MCP tools over stdin and stdout until the agent hangs up.
func (c CLI) mcp() error {
	api, err := c.apiClient(client.WithRetries(1))
	if err != nil {
		return err
	}
	ctx := c.Signals
	if ctx == nil {
		var stop context.CancelFunc
		ctx, stop = signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
	}
	in := c.Stdin
	if in == nil {
		in = os.Stdin
	}
	err = mcpserver.New(api, Version).Run(ctx, &mcp.IOTransport{Reader: io.NopCloser(in), Writer: nopCloser{c.Stdout}})
	if err == nil || errors.Is(err, io.EOF) || errors.Is(err, context.Canceled) || errors.Is(err, mcp.ErrConnectionClosed) {
		return nil
	}
	return err
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
