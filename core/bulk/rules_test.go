package bulk_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/trawlhq/trawl/core/bulk"
	"github.com/trawlhq/trawl/core/failure"
)

func TestArchivePaths(t *testing.T) {
	for _, c := range []struct{ url, html, md string }{
		{"https://example.com/blog/post", "html/example.com/blog/post.html", "markdown/example.com/blog/post.md"},
		{"https://example.com/", "html/example.com/index.html", "markdown/example.com/index.md"},
		{"https://example.com", "html/example.com/index.html", "markdown/example.com/index.md"},
		{"https://example.com/docs/", "html/example.com/docs/index.html", "markdown/example.com/docs/index.md"},
		{"https://Example.COM/a/page.html", "html/example.com/a/page.html", "markdown/example.com/a/page.md"},
		{"https://example.com/../../etc/passwd", "html/example.com/_/_/etc/passwd.html", "markdown/example.com/_/_/etc/passwd.md"},
		{"https://example.com/a/%2e%2e/%2e%2e/x", "html/example.com/a/_/_/x.html", "markdown/example.com/a/_/_/x.md"},
		{"https://example.com/a%2Fb", "html/example.com/a_b.html", "markdown/example.com/a_b.md"},
		{"https://example.com/café/été", "html/example.com/café/été.html", "markdown/example.com/café/été.md"},
		{"https://example.com/s p a c e", "html/example.com/s_p_a_c_e.html", "markdown/example.com/s_p_a_c_e.md"},
	} {
		h, m := bulk.ArchivePaths(c.url)
		if h != c.html || m != c.md {
			t.Errorf("ArchivePaths(%q) = %q, %q; want %q, %q", c.url, h, m, c.html, c.md)
		}
	}
	h1, _ := bulk.ArchivePaths("https://example.com/search?q=a&page=2")
	h2, _ := bulk.ArchivePaths("https://example.com/search?q=a&page=3")
	if h1 == h2 || !strings.HasPrefix(h1, "html/example.com/search_q-a_page-2_") {
		t.Errorf("queries: %q %q", h1, h2)
	}
	for _, u := range []string{"https://example.com/" + strings.Repeat("a/../", 50), "https://example.com/%00/x", "https://example.com/" + strings.Repeat("x", 5000)} {
		h, m := bulk.ArchivePaths(u)
		for _, p := range []string{h, m} {
			if strings.Contains(p, "..") || strings.HasPrefix(p, "/") || strings.Contains(p, "\x00") || len(p) > 400 {
				t.Errorf("ArchivePaths(%.60q) = %q", u, p)
			}
		}
	}
}

func TestValidate(t *testing.T) {
	ok := []string{"https://a.test/1"}
	for _, c := range []struct {
		name   string
		r      bulk.Request
		fields []string
	}{
		{"urls and email", bulk.Request{URLs: ok, Email: true}, nil},
		{"urls and webhook on a port", bulk.Request{URLs: ok, CallbackURL: "https://hooks.example:8443/x"}, nil},
		{"public raw IP webhook", bulk.Request{URLs: ok, CallbackURL: "http://93.184.216.34/h"}, nil},
		{"nothing to fetch", bulk.Request{Email: true}, []string{"urls"}},
		{"no delivery", bulk.Request{URLs: ok}, []string{"callback_url"}},
		{"private raw IP webhook", bulk.Request{URLs: ok, CallbackURL: "http://10.0.0.1/h"}, []string{"callback_url"}},
		{"decimal IP webhook", bulk.Request{URLs: ok, CallbackURL: "http://2130706433/h"}, []string{"callback_url"}},
		{"localhost webhook", bulk.Request{URLs: ok, CallbackURL: "http://api.localhost/h"}, []string{"callback_url"}},
		{"ftp webhook", bulk.Request{URLs: ok, CallbackURL: "ftp://h.example/"}, []string{"callback_url"}},
		{"bad urls named", bulk.Request{URLs: []string{"https://a.test/", "nope", "https://a.test:99/"}, Email: true}, []string{"urls.1", "urls.2"}},
		{"too many", bulk.Request{URLs: make([]string, 101), Email: true}, []string{"urls"}},
		{"bad sitemap", bulk.Request{Sitemap: "http://127.0.0.1/s.xml", Email: true}, []string{"sitemap"}},
	} {
		_, err := bulk.Validate(c.r)
		got := failure.FieldNames(err)
		if fmt.Sprint(got) != fmt.Sprint(c.fields) && !(len(got) == 0 && len(c.fields) == 0) {
			t.Errorf("%s: fields %v, want %v (%v)", c.name, got, c.fields, err)
		}
	}
	c, _ := bulk.Validate(bulk.Request{URLs: []string{"https://a.test/x", "https://A.test/x/", "https://a.test/y"}, Email: true})
	if len(c.URLs) != 2 || c.Source != "urls" {
		t.Errorf("dedup = %v", c.URLs)
	}
	c, _ = bulk.Validate(bulk.Request{URLs: ok, Sitemap: "https://a.test/s.xml", Email: true})
	if c.Source != "urls" || c.Sitemap != "" {
		t.Errorf("urls must win over sitemap: %+v", c)
	}
}

func TestSignVerifiesWithPlainHMAC(t *testing.T) {
	body := []byte(`{"job_id":"job_1"}`)
	at := time.Unix(1764000000, 0)
	got := bulk.Sign("whsec_x", at, body)
	mac := hmac.New(sha256.New, []byte("whsec_x"))
	mac.Write([]byte("1764000000." + string(body)))
	if got != "t=1764000000,v1="+hex.EncodeToString(mac.Sum(nil)) {
		t.Fatalf("Sign = %q", got)
	}
	if bulk.Sign("other", at, body) == got || bulk.Sign("whsec_x", at.Add(time.Second), body) == got {
		t.Fatal("the signature ignores the secret or the time")
	}
}

func TestEstimate(t *testing.T) {
	for _, c := range []struct {
		ahead, n int
		want     string
	}{{0, 1, "about 10 seconds"}, {0, 100, "about 30 seconds"}, {400, 100, "about 3 minutes"}, {20000, 100, "about 2 hours"}} {
		if got := bulk.Estimate(c.ahead, c.n, 4); got != c.want {
			t.Errorf("Estimate(%d, %d) = %q, want %q", c.ahead, c.n, got, c.want)
		}
	}
	if bulk.DeliveryMethod(true, "https://h") != "email,webhook" || bulk.DeliveryMethod(false, "x") != "webhook" || bulk.DeliveryMethod(true, "") != "email" {
		t.Error("delivery method")
	}
}
