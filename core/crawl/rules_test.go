package crawl

import (
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/trawlhq/trawl/core/weburl"
	"github.com/trawlhq/trawl/ports"
)

func parse(t *testing.T, raw string) *url.URL {
	t.Helper()
	u, err := weburl.Parse(raw, weburl.Rules{})
	if err != nil {
		t.Fatalf("parse %q: %v", raw, err)
	}
	return u
}

func TestKeyVariants(t *testing.T) {
	n := NewNormalizer(nil)
	same := [][]string{
		{"https://example.com/a", "http://example.com/a", "https://www.example.com/a", "https://EXAMPLE.com:443/a", "http://example.com:80/a/", "https://example.com/a#top"},
		{"https://example.com/", "https://example.com", "https://www.example.com/index.html", "http://example.com/index.htm"},
		{"https://example.com/d/", "https://example.com/d/index.html"},
		{"https://example.com/p?b=2&a=1", "https://example.com/p?a=1&b=2", "https://example.com/p?a=1&utm_source=x&b=2", "https://example.com/p?gclid=1&a=1&b=2&fbclid=z&ref=hn", "https://example.com/p/?utm_medium=m&utm_campaign=c&a=1&b=2"},
	}
	for _, group := range same {
		want := n.Key(parse(t, group[0]))
		for _, raw := range group[1:] {
			if got := n.Key(parse(t, raw)); got != want {
				t.Errorf("Key(%s) = %q, want %q (as %s)", raw, got, want, group[0])
			}
		}
	}
	differ := [][2]string{
		{"https://example.com/a", "https://example.com/b"},
		{"https://example.com/a?x=1", "https://example.com/a?x=2"},
		{"https://example.com/a", "https://blog.example.com/a"},
		{"https://example.com/A", "https://example.com/a"},
		{"https://example.com/p?page=2", "https://example.com/p"},
		{"https://example.com/reference", "https://example.com/"},
	}
	for _, d := range differ {
		if a, b := n.Key(parse(t, d[0])), n.Key(parse(t, d[1])); a == b {
			t.Errorf("%s and %s share key %q", d[0], d[1], a)
		}
	}
	// A caller's own list replaces the defaults.
	own := NewNormalizer([]string{"session", "sort*"})
	if own.Key(parse(t, "https://e.com/p?session=1&sortby=x&utm_source=y")) != "e.com/p?utm_source=y" {
		t.Errorf("own list: %q", own.Key(parse(t, "https://e.com/p?session=1&sortby=x&utm_source=y")))
	}
	if got := n.Clean(parse(t, "https://e.com/p?utm_source=x&a=1")).String(); got != "https://e.com/p?a=1" {
		t.Errorf("Clean = %s", got)
	}
}

func TestPatterns(t *testing.T) {
	cases := []struct {
		pattern string
		match   []string
		miss    []string
	}{
		{"/blog/**", []string{"/blog/", "/blog/a", "/blog/2024/05/post", "/blog/a?page=2"}, []string{"/blog", "/docs/blog/a", "/about"}},
		{"/blog/*", []string{"/blog/a", "/blog/a?x=1"}, []string{"/blog/a/b"}},
		{"*.pdf", []string{"/a.pdf", "/docs/x/report.pdf"}, []string{"/a.pdf?dl=1", "/a.pdfx", "/pdf"}},
		{"/p?id=?", []string{"/p?id=1"}, []string{"/p?id=12"}},
		{"re:^/docs/v[0-9]+/", []string{"/docs/v2/intro", "/docs/v10/"}, []string{"/docs/latest/", "/x/docs/v2/"}},
		{"re:sessionid=", []string{"/a?sessionid=9", "/cart?x=1&sessionid=2"}, []string{"/a?session=9"}},
		{"/search?q=*", []string{"/search?q=go"}, []string{"/search"}},
	}
	for _, c := range cases {
		p, err := CompilePattern(c.pattern)
		if err != nil {
			t.Fatalf("%s: %v", c.pattern, err)
		}
		for _, s := range c.match {
			if !p.Match(s) {
				t.Errorf("%s should match %s", c.pattern, s)
			}
		}
		for _, s := range c.miss {
			if p.Match(s) {
				t.Errorf("%s should not match %s", c.pattern, s)
			}
		}
	}
	if _, err := CompilePattern("re:(unclosed"); err == nil {
		t.Error("a bad RE2 expression compiled")
	}
	inc, _ := CompilePattern("/blog/**")
	exc, _ := CompilePattern("/blog/drafts/**")
	q, _ := CompilePattern("re:[?&]print=1")
	f := Filter{Include: []Pattern{inc}, Exclude: []Pattern{exc, q}}
	for raw, want := range map[string]bool{
		"https://e.com/blog/a": true, "https://e.com/blog/drafts/x": false, "https://e.com/about": false,
		"https://e.com/blog/a?print=1": false, "https://e.com/blog/a?page=2": true,
	} {
		if got := f.Allows(parse(t, raw)); got != want {
			t.Errorf("Allows(%s) = %v, want %v", raw, got, want)
		}
	}
}

func TestScope(t *testing.T) {
	cases := []struct {
		scope Scope
		start string
		in    []string
		out   []string
	}{
		{ScopeHost, "www.example.co.uk", []string{"example.co.uk", "www.example.co.uk"}, []string{"blog.example.co.uk", "other.co.uk"}},
		{ScopeSubdomains, "docs.example.com", []string{"docs.example.com", "v2.docs.example.com"}, []string{"example.com", "blog.example.com"}},
		{ScopeDomain, "docs.example.com", []string{"example.com", "blog.example.com", "a.b.example.com"}, []string{"example.org", "notexample.com"}},
		{ScopeDomain, "alice.github.io", []string{"alice.github.io", "x.alice.github.io"}, []string{"bob.github.io"}},
	}
	for _, c := range cases {
		s := NewScoper(c.scope, c.start)
		for _, h := range c.in {
			if !s.In(h) {
				t.Errorf("%s from %s: %s should be in", c.scope, c.start, h)
			}
		}
		for _, h := range c.out {
			if s.In(h) {
				t.Errorf("%s from %s: %s should be out", c.scope, c.start, h)
			}
		}
	}
}

func TestJudge(t *testing.T) {
	exc, _ := CompilePattern("/private/**")
	r := Rules{Norm: NewNormalizer(nil), Filter: Filter{Exclude: []Pattern{exc}}, Scope: NewScoper(ScopeHost, "example.com"), MaxDepth: 2}
	long := "https://example.com/" + strings.Repeat("a", 1100)
	cases := []struct {
		raw   string
		depth int
		skip  string
		ok    bool
	}{
		{"https://example.com/a", 1, "", true},
		{"https://www.example.com/a?utm_source=x", 2, "", true},
		{"https://other.com/a", 1, SkipScope, true},
		{"https://example.com/private/x", 1, SkipFilter, true},
		{"https://example.com/deep", 3, SkipDepth, true},
		{long, 1, SkipFilter, true},
		{"mailto:a@example.com", 1, "", false},
		{"https://127.0.0.1/x", 1, "", false},
	}
	for _, c := range cases {
		v, ok := r.Judge(c.raw, c.depth)
		if ok != c.ok || (ok && v.Skip != c.skip) {
			t.Errorf("Judge(%.60s, %d) = %q, %v; want %q, %v", c.raw, c.depth, v.Skip, ok, c.skip, c.ok)
		}
	}
	if v, _ := r.Judge("https://www.example.com/a?utm_source=x#f", 1); v.URL.String() != "https://www.example.com/a" || v.Key != "example.com/a" {
		t.Errorf("judged URL %s key %s", v.URL, v.Key)
	}
	if HostCap(1) != 1000 || HostCap(500) != 5000 || HostCap(10_000) != 100_000 {
		t.Error("HostCap bounds")
	}
}

func TestExtractLinks(t *testing.T) {
	doc := `<html><head>
<base href="/docs/">
<link rel="canonical" href="https://example.com/docs/guide">
<link rel="next" href="page2">
<link rel="stylesheet" href="/s.css">
<meta name="robots" content="noindex">
</head><body>
<a href="intro">Intro</a>
<a href="/about#team">About</a>
<a href="/about">About again</a>
<a rel="nofollow noopener" href="/login">Login</a>
<a href="mailto:x@example.com">Mail</a>
<a href="javascript:void(0)">JS</a>
<a href="#top">Top</a>
<a href="https://other.org/x">Out</a>
</body></html>`
	got := ExtractLinks("https://example.com/docs/guide?x=1", []byte(doc))
	want := []string{"https://example.com/docs/page2", "https://example.com/docs/intro", "https://example.com/about", "https://other.org/x"}
	if !reflect.DeepEqual(got.URLs, want) {
		t.Errorf("URLs = %v, want %v", got.URLs, want)
	}
	if got.Canonical != "https://example.com/docs/guide" || !got.NoIndex || got.NoFollow {
		t.Errorf("links = %+v", got)
	}
	nf := ExtractLinks("https://e.com/", []byte(`<meta name="ROBOTS" content="NOFOLLOW, noarchive"><a href="/a">a</a>`))
	if !nf.NoFollow || nf.NoIndex || len(nf.URLs) != 1 {
		t.Errorf("nofollow page = %+v", nf)
	}
	if none := ExtractLinks("https://e.com/", []byte(`<meta name="robots" content="none">`)); !none.NoFollow || !none.NoIndex {
		t.Errorf("none = %+v", none)
	}
}

func TestRobots(t *testing.T) {
	now := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	file := `
User-agent: *
Disallow: /private/
Disallow: /*.pdf$
Crawl-delay: 2

User-agent: Trawl
Disallow: /no-trawl/
Allow: /no-trawl/yes
Disallow: /*?session=
Disallow: /exact$
Crawl-delay: 30

User-agent: OtherBot
Disallow: /
`
	ok := func(body string, status int) Robots {
		return RobotsFrom(RobotsRecordOf("https://e.com", ports.FetchResponse{StatusCode: status, Body: []byte(body)}, nil, now))
	}
	r := ok(file, 200)
	cases := map[string]bool{
		"https://e.com/":                 true,
		"https://e.com/private/x":        true, // the Trawl group replaces *, which disallowed it
		"https://e.com/no-trawl/":        false,
		"https://e.com/no-trawl/yes":     true, // the longer rule wins
		"https://e.com/a?session=1":      false,
		"https://e.com/a?page=1":         true,
		"https://e.com/exact":            false,
		"https://e.com/exact/more":       true, // $ anchors the end
		"https://e.com/report.pdf":       true, // that rule is in the * group
		"https://e.com/no-trawl/yes/sub": true,
	}
	for raw, want := range cases {
		if got := r.Allowed(parse(t, raw)); got != want {
			t.Errorf("Allowed(%s) = %v, want %v", raw, got, want)
		}
	}
	if d := r.CrawlDelay(10 * time.Second); d != 10*time.Second {
		t.Errorf("Crawl-delay capped = %v", d)
	}
	if d := r.CrawlDelay(time.Minute); d != 30*time.Second {
		t.Errorf("Crawl-delay = %v", d)
	}
	star := ok("User-agent: *\nDisallow: /*.pdf$\nDisallow: /tmp\n", 200)
	for raw, want := range map[string]bool{"https://e.com/a.pdf": false, "https://e.com/a.pdf?x": true, "https://e.com/tmp/x": false, "https://e.com/tmpfile": false, "https://e.com/t": true} {
		if got := star.Allowed(parse(t, raw)); got != want {
			t.Errorf("* group: Allowed(%s) = %v, want %v", raw, got, want)
		}
	}
	for _, status := range []int{400, 401, 403, 404, 410, 451} {
		if r := ok("User-agent: *\nDisallow: /", status); !r.Allowed(parse(t, "https://e.com/x")) || r.Unreachable {
			t.Errorf("%d should allow everything", status)
		}
	}
	for _, status := range []int{500, 502, 503, 599} {
		rec := RobotsRecordOf("https://e.com", ports.FetchResponse{StatusCode: status}, nil, now)
		if r := RobotsFrom(rec); r.Allowed(parse(t, "https://e.com/x")) || !r.Unreachable || !rec.ExpiresAt.Equal(now.Add(RobotsErrorTTL)) {
			t.Errorf("%d should disallow the host for a while: %+v", status, rec)
		}
	}
	if r := RobotsFrom(RobotsRecordOf("https://e.com", ports.FetchResponse{}, errFake{}, now)); r.Allowed(parse(t, "https://e.com/")) {
		t.Error("an unreachable robots.txt should disallow the host")
	}
	// Redirects: up to RobotsMaxRedirects are followed, more is unreachable.
	if r := RobotsFrom(RobotsRecordOf("https://e.com", ports.FetchResponse{StatusCode: 200, Redirects: 5, Body: []byte("User-agent: *\nDisallow: /x")}, nil, now)); r.Allowed(parse(t, "https://e.com/x")) || !r.Allowed(parse(t, "https://e.com/y")) {
		t.Error("a robots.txt after 5 redirects should be obeyed")
	}
	if r := RobotsFrom(RobotsRecordOf("https://e.com", ports.FetchResponse{StatusCode: 200, Redirects: 6}, nil, now)); !r.Unreachable {
		t.Error("6 redirects should be unreachable")
	}
	// Only the first 500 KiB is read: a rule past it does not apply.
	big := "User-agent: *\nDisallow: /a\n" + strings.Repeat("# padding\n", RobotsMaxBytes/10) + "Disallow: /b\n"
	rec := RobotsRecordOf("https://e.com", ports.FetchResponse{StatusCode: 200, Body: []byte(big)}, nil, now)
	if r := RobotsFrom(rec); r.Allowed(parse(t, "https://e.com/a")) || !r.Allowed(parse(t, "https://e.com/b")) || len(rec.Body) != RobotsMaxBytes {
		t.Error("the 500 KiB cap")
	}
	if !rec.ExpiresAt.Equal(now.Add(RobotsTTL)) {
		t.Error("a fetched robots.txt is kept 24 hours")
	}
}

type errFake struct{}

func (errFake) Error() string { return "no answer" }
