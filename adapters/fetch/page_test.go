package fetch_test

import (
	"context"
	"strings"
	"testing"

	"github.com/trawlhq/trawl/adapters/fetch"
	"github.com/trawlhq/trawl/ports"
	"github.com/trawlhq/trawl/testkit/browsersite"
	"github.com/trawlhq/trawl/testkit/sites"
)

// TestPageOptionsOverHTTP: the device's User-Agent, the locale, the
// caller's headers and cookies reach the target; a redirect to another
// host leaves the headers and cookies behind, one back to the target
// carries them again.
func TestPageOptionsOverHTTP(t *testing.T) {
	a, b := sites.New(t, "site.test"), sites.New(t, "other.test")
	a.Mux.Handle("/", browsersite.Handler())
	b.Mux.Handle("/", browsersite.Handler())
	c := client(fetch.Options{}, a, b)
	opts := ports.PageOptions{Device: "mobile", Locale: "fr-CA", Headers: map[string]string{"X-Trace": "tide-42"}, Cookies: []ports.Cookie{{Name: "session", Value: "s1"}, {Name: "b", Value: "2"}}}
	res, err := c.Fetch(context.Background(), ports.FetchRequest{URL: parseURL(a.URL("/echo")), Page: opts})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"header X-Trace = tide-42", "header Cookie = session=s1; b=2", "header Accept-Language = fr-CA,fr;q=0.9", "header User-Agent = " + fetch.MobileUserAgent} {
		if !strings.Contains(string(res.Body), want) {
			t.Errorf("the echo lacks %q", want)
		}
	}
	res, err = c.Fetch(context.Background(), ports.FetchRequest{URL: parseURL(a.URL("/hop?to=http://other.test/echo")), Page: opts})
	if err != nil {
		t.Fatal(err)
	}
	body := string(res.Body)
	if res.FinalURL != "http://other.test/echo" || strings.Contains(body, "tide-42") || strings.Contains(body, "session=s1") {
		t.Fatalf("headers or cookies followed the redirect to another host (%s):\n%s", res.FinalURL, body)
	}
	if !strings.Contains(body, "Accept-Language = fr-CA") {
		t.Error("the locale is not the caller's secret: it follows")
	}
	res, err = c.Fetch(context.Background(), ports.FetchRequest{URL: parseURL(a.URL("/hop?to=http://other.test/hop%3Fto%3Dhttp://site.test/echo")), Page: opts})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(res.Body), "tide-42") || !strings.Contains(string(res.Body), "host site.test") {
		t.Fatalf("back on the target host the headers are missing:\n%s", res.Body)
	}
}
