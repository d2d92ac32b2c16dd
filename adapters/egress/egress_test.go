package egress_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/trawlhq/trawl/adapters/egress"
	"github.com/trawlhq/trawl/adapters/fetch"
)

// TestProxyGuard: requests and tunnels to the overridden site go through;
// loopback, link-local and non-http schemes are refused without a
// connection to the canary.
func TestProxyGuard(t *testing.T) {
	var hits atomic.Int64
	canary := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer canary.Close()
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "site ok") }))
	defer site.Close()
	f := fetch.New(fetch.Options{Resolve: map[string]string{"site.test:80": site.Listener.Addr().String()}, Timeout: 3 * time.Second})
	p, err := egress.Start(egress.Options{Dial: f.DialContext})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	proxyURL, _ := url.Parse("http://" + p.Addr())
	client := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(proxyURL)}, Timeout: 5 * time.Second}

	res, err := client.Get("http://site.test/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if string(body) != "site ok" {
		t.Fatalf("site through the proxy: %d %q", res.StatusCode, body)
	}
	for _, u := range []string{canary.URL + "/", "http://169.254.169.254/", strings.Replace(canary.URL, "127.0.0.1", "localhost", 1)} {
		res, err := client.Get(u)
		if err == nil {
			res.Body.Close()
			if res.StatusCode != http.StatusBadGateway {
				t.Errorf("GET %s through the proxy: %d, want 502", u, res.StatusCode)
			}
		}
	}
	// CONNECT to loopback, and to the site (allowed).
	for target, want := range map[string]string{canary.Listener.Addr().String(): "502", "site.test:80": "200"} {
		c, err := net.Dial("tcp", p.Addr())
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", target, target)
		line, _ := bufio.NewReader(c).ReadString('\n')
		c.Close()
		if !strings.Contains(line, " "+want+" ") {
			t.Errorf("CONNECT %s: %q, want %s", target, line, want)
		}
	}
	// A non-http absolute URL is refused.
	c, _ := net.Dial("tcp", p.Addr())
	fmt.Fprint(c, "GET ftp://site.test/ HTTP/1.1\r\nHost: site.test\r\n\r\n")
	line, _ := bufio.NewReader(c).ReadString('\n')
	c.Close()
	if !strings.Contains(line, " 403 ") {
		t.Errorf("ftp through the proxy: %q", line)
	}
	if hits.Load() != 0 {
		t.Fatalf("the canary was reached %d times", hits.Load())
	}
}
