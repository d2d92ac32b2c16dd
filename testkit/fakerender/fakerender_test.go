package fakerender_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"

	"github.com/trawlhq/trawl/adapters/fetch"
	"github.com/trawlhq/trawl/ports"
	"github.com/trawlhq/trawl/testkit/fakerender"
	"github.com/trawlhq/trawl/testkit/rendertest"
)

// TestContract runs the renderer contract on the fake, with the fetcher's
// address guard, as chromium_test runs it on Chromium.
func TestContract(t *testing.T) {
	rendertest.Run(t, func(t *testing.T, h http.Handler) ports.Renderer {
		site := httptest.NewServer(h)
		t.Cleanup(site.Close)
		guard := fetch.New(fetch.Options{
			Resolve: map[string]string{"site.test:80": site.Listener.Addr().String()},
			LookupIP: func(_ context.Context, host string) ([]netip.Addr, error) {
				if host == "private.test" {
					return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
				}
				return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
			},
		})
		return fakerender.New(h, fakerender.Options{Guard: guard})
	})
}
