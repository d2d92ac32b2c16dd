// Package sites serves fixture web sites on loopback under made-up host
// names (shop.test, blog.test, ...). A resolve override "host:80=127.0.0.1:port"
// sends Trawl's fetcher to them, while the URL rules and the private-address
// guard stay on for every other host.
package sites

import (
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// Site is one fixture host.
type Site struct {
	Host   string
	Mux    *http.ServeMux
	Server *httptest.Server
	// Conns counts TCP connections accepted, to check keep-alive reuse.
	Conns atomic.Int64
	// Hits counts requests.
	Hits atomic.Int64
}

// New starts a site for host ("blog.test").
func New(t testing.TB, host string) *Site {
	t.Helper()
	s := &Site{Host: host, Mux: http.NewServeMux()}
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.Hits.Add(1)
		s.Mux.ServeHTTP(w, r)
	}))
	s.Server.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			s.Conns.Add(1)
		}
	}
	s.Server.Start()
	t.Cleanup(s.Server.Close)
	return s
}

// Addr is the loopback ip:port the site listens on.
func (s *Site) Addr() string { return strings.TrimPrefix(s.Server.URL, "http://") }

// URL is an http URL on the site's host name.
func (s *Site) URL(path string) string { return "http://" + s.Host + path }

// Handle serves a fixed body with a content type.
func (s *Site) Handle(path, contentType, body string) {
	s.Mux.HandleFunc(path, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", contentType)
		_, _ = w.Write([]byte(body))
	})
}

// Resolve returns the override map for sites: "host:80" -> "127.0.0.1:port".
func Resolve(sites ...*Site) map[string]string {
	m := map[string]string{}
	for _, s := range sites {
		m[s.Host+":80"] = s.Addr()
	}
	return m
}

// ResolveFlags renders overrides as --resolve values.
func ResolveFlags(sites ...*Site) []string {
	var out []string
	for _, s := range sites {
		out = append(out, s.Host+":80="+s.Addr())
	}
	return out
}
