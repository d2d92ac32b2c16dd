package fetch_test

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/trawlhq/trawl/adapters/fetch"
	"github.com/trawlhq/trawl/ports"
	"github.com/trawlhq/trawl/testkit/countryproxy"
	"github.com/trawlhq/trawl/testkit/sites"
)

func TestParseProxies(t *testing.T) {
	ps, err := fetch.ParseProxies(" de=http://u:p@de1.example:3128, DE=http://de2.example:3128\nUS=http://us1.example:8080 ")
	if err != nil || len(ps) != 3 || ps[0].Country != "DE" || ps[0].URL.User.Username() != "u" || ps[2].Country != "US" {
		t.Fatalf("ParseProxies = %+v %v", ps, err)
	}
	for _, bad := range []string{"DEU=http://x:1", "http://x:1", "DE=socks5://x:1", "DE=", "1A=http://x:1"} {
		if _, err := fetch.ParseProxies(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// TestCountryProxies: a request naming a country goes through a proxy of
// that country, the one PickProxy names, and on a retry the other one;
// one without a country goes direct. The address guard is the same: a
// private target is refused before any proxy is asked.
func TestCountryProxies(t *testing.T) {
	s := sites.New(t, "site.test")
	s.Handle("/page", "text/html", "<html><body><p>page</p></body></html>")
	de1, de2, us := countryproxy.Start(t, "DE", "de1", false), countryproxy.Start(t, "DE", "de2", false), countryproxy.Start(t, "US", "us1", false)
	var pool []fetch.Proxy
	for _, p := range []*countryproxy.Proxy{de1, de2, us} {
		u, _ := url.Parse(p.URL())
		pool = append(pool, fetch.Proxy{Country: p.Country, URL: u})
	}
	c := client(fetch.Options{Proxies: pool}, s)
	if got := c.Countries(); fmt.Sprint(got) != "[DE US]" {
		t.Fatalf("countries = %v", got)
	}
	get := func(country string, retry int) string {
		t.Helper()
		res, err := c.Fetch(context.Background(), ports.FetchRequest{URL: parseURL(s.URL("/page")), Page: ports.PageOptions{Country: country, Retry: retry}})
		if err != nil {
			t.Fatal(err)
		}
		return string(res.Body)
	}
	first := []*countryproxy.Proxy{de1, de2}[fetch.PickProxy(2, "http://site.test/page", 0)]
	second := []*countryproxy.Proxy{de1, de2}[fetch.PickProxy(2, "http://site.test/page", 1)]
	if first == second {
		t.Fatal("a retry picked the same proxy")
	}
	if b := get("DE", 0); !strings.Contains(b, countryproxy.Stamp("DE", first.Name)) {
		t.Errorf("DE: %s", b)
	}
	if b := get("DE", 1); !strings.Contains(b, countryproxy.Stamp("DE", second.Name)) {
		t.Errorf("DE retry: %s", b)
	}
	if b := get("US", 0); !strings.Contains(b, countryproxy.Stamp("US", "us1")) {
		t.Errorf("US: %s", b)
	}
	if b := get("", 0); strings.Contains(b, "Served through") {
		t.Errorf("no country went through a proxy: %s", b)
	}
	for _, target := range []string{"http://metadata.test/", "http://intranet.local/", "http://mixed.test/"} {
		_, err := c.Fetch(context.Background(), ports.FetchRequest{URL: parseURL(target), Page: ports.PageOptions{Country: "DE"}})
		var fe *ports.FetchError
		if !errors.As(err, &fe) || fe.Reason != ports.FetchNonPublic {
			t.Errorf("%s through DE: %v, want the non-public reason", target, err)
		}
	}
	for _, p := range []*countryproxy.Proxy{de1, de2, us} {
		for _, tg := range p.Targets() {
			if !strings.HasPrefix(tg, "127.0.0.1:") || tg != s.Server.Listener.Addr().String() {
				t.Errorf("proxy %s was asked for %s", p.Name, tg)
			}
		}
	}
}
