package weburl_test

import (
	"net/netip"
	"strings"
	"testing"

	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/core/weburl"
)

func TestParse(t *testing.T) {
	for _, c := range []struct {
		in, want, errHas string
	}{
		{"https://example.com", "https://example.com/", ""},
		{"HTTP://Example.COM/Path?q=1#frag", "http://example.com/Path?q=1", ""},
		{"http://example.com:80/a", "http://example.com/a", ""},
		{"https://example.com:443/", "https://example.com/", ""},
		{"https://bücher.example/x", "https://xn--bcher-kva.example/x", ""},
		{"https://sub.example.co.uk./a", "https://sub.example.co.uk/a", ""},
		{"", "", "required"},
		{"   ", "", "required"},
		{"https://example.com/" + strings.Repeat("a", 161), "", "greater than 180"},
		{"ftp://example.com/", "", "http or https"},
		{"javascript:alert(1)", "", "valid URL"},
		{"example.com", "", "valid URL"},
		{"//example.com/x", "", "valid URL"},
		{"https://", "", "valid URL"},
		{"https://exa mple.com", "", "valid URL"},
		{"http://127.0.0.1/", "", "raw IP"},
		{"http://[::1]/", "", "raw IP"},
		{"http://[2606:4700::1111]/", "", "raw IP"},
		{"http://2130706433/", "", "raw IP"},
		{"http://0177.0.0.1/", "", "raw IP"},
		{"http://0x7f.0.0.1/", "", "raw IP"},
		{"http://0x7f000001/", "", "raw IP"},
		{"http://127.1/", "", "raw IP"},
		{"http://8.8.8.8:80/", "", "raw IP"},
		{"https://example.com:8443/", "", "default port"},
		{"http://example.com:443/", "", "default port"},
		{"https://example.com:80/", "", "default port"},
		{"http://example.com:/", "", "valid URL"},
		{"https://user:pw@example.com/", "", "credentials"},
		{"http://localhost/", "", "non-public"},
		{"http://LOCALHOST./", "", "non-public"},
		{"http://api.localhost/", "", "non-public"},
		{"http://printer.local/", "", "non-public"},
		{"http://metadata.google.internal/computeMetadata/v1/", "", "non-public"},
		{"http://-bad-.example/", "", "valid host"},
		{"http://a..b/", "", "valid host"},
	} {
		u, err := weburl.Parse(c.in, weburl.Rules{})
		if c.errHas == "" {
			if err != nil || u.String() != c.want {
				t.Errorf("Parse(%q) = %v, %v; want %q", c.in, u, err, c.want)
			}
			continue
		}
		fe, ok := failure.As(err)
		if !ok || fe.Kind != failure.Invalid || len(fe.Fields["url"]) == 0 || !strings.Contains(fe.Message, c.errHas) {
			t.Errorf("Parse(%q) err = %v; want a url error containing %q", c.in, err, c.errHas)
		}
	}
}

func TestParseFieldAndLength(t *testing.T) {
	long := "https://example.com/" + strings.Repeat("a", 300)
	if _, err := weburl.Parse(long, weburl.Rules{Field: "sitemap", MaxLen: 500}); err != nil {
		t.Fatalf("a 320-char sitemap is within 500: %v", err)
	}
	_, err := weburl.Parse(long+strings.Repeat("b", 200), weburl.Rules{Field: "sitemap", MaxLen: 500})
	if names := failure.FieldNames(err); len(names) != 1 || names[0] != "sitemap" {
		t.Fatalf("error names %v, want sitemap", names)
	}
}

func TestIsPublicIP(t *testing.T) {
	for s, want := range map[string]bool{
		"8.8.8.8": true, "1.1.1.1": true, "93.184.216.34": true, "2606:4700:4700::1111": true, "2a00:1450:4001:82b::200e": true,
		"127.0.0.1": false, "127.9.9.9": false, "10.1.2.3": false, "172.16.0.1": false, "172.31.255.255": false, "192.168.1.1": false,
		"169.254.169.254": false, "100.64.0.1": false, "100.127.255.254": false, "0.0.0.0": false, "0.1.2.3": false,
		"224.0.0.1": false, "239.255.255.250": false, "240.0.0.1": false, "255.255.255.255": false, "198.18.0.1": false,
		"192.0.2.10": false, "203.0.113.5": false, "::1": false, "::": false, "fe80::1": false, "fc00::1": false, "fd12:3456::1": false,
		"ff02::1": false, "::ffff:127.0.0.1": false, "::ffff:10.0.0.1": false, "::ffff:8.8.8.8": true,
		"64:ff9b::a9fe:a9fe": false, "64:ff9b::7f00:1": false, "64:ff9b::808:808": true, "2001:db8::1": false, "2002:7f00:1::": false,
	} {
		if got := weburl.IsPublicIP(netip.MustParseAddr(s)); got != want {
			t.Errorf("IsPublicIP(%s) = %v, want %v", s, got, want)
		}
	}
	if weburl.IsPublicIP(netip.Addr{}) {
		t.Error("the zero address is not public")
	}
}

func TestDedupKey(t *testing.T) {
	if weburl.DedupKey("https://Example.com/A/") != weburl.DedupKey("https://example.com/a") {
		t.Error("case and trailing slash must not matter")
	}
	if weburl.DedupKey("https://example.com/a") == weburl.DedupKey("https://example.com/b") {
		t.Error("different paths collide")
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"https://example.com/", "http://127.0.0.1/", "http://[::1]:80/", "http://0x7f.1/", "https://bücher.example/",
		"http://a.b:8080/", "https://user@host/", "http://%zz/", "http://example.com:/", "HTTP://X.Y/..%2f"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u, err := weburl.Parse(s, weburl.Rules{})
		if err != nil {
			if !failure.Is(err, failure.Invalid) {
				t.Fatalf("Parse(%q) failed with a non-validation error: %v", s, err)
			}
			return
		}
		// Whatever is accepted obeys every rule, and stays accepted.
		if u.Scheme != "http" && u.Scheme != "https" {
			t.Fatalf("accepted scheme %q", u.Scheme)
		}
		if weburl.IsRawIP(u.Hostname()) || weburl.IsLocalName(u.Hostname()) {
			t.Fatalf("accepted host %q", u.Hostname())
		}
		if p := u.Port(); p != "" && p != weburl.DefaultPort(u.Scheme) {
			t.Fatalf("accepted port %q", p)
		}
		if u.User != nil {
			t.Fatal("accepted credentials")
		}
		if len([]rune(u.String())) > 4*weburl.MaxURLLength {
			t.Fatalf("normalised URL grew unreasonably: %q", u)
		}
		if _, err := weburl.Parse(u.String(), weburl.Rules{MaxLen: 4 * weburl.MaxURLLength}); err != nil {
			t.Fatalf("normalised %q from %q is rejected: %v", u, s, err)
		}
	})
}
