package crawl

import (
	"net/http/httptest"
	"reflect"
	"testing"

	"github.com/trawlhq/trawl/testkit/crawlsite"
)

// TestExtractLinksAttributes: of a tag's attributes the first of each name
// counts, rel values are read in any case, and a tag without the attribute
// it needs gives nothing.
func TestExtractLinksAttributes(t *testing.T) {
	doc := `<html><head>
<base target="_blank"><base href="#frag"><base href="/docs/" href="/other/">
<link rel="CANONICAL next" href="first" href="second">
<link rel="canonical" href="/not-this">
<link rel="Next" href="more"><link rel="next">
<meta name="description" content="nofollow"><meta content="noindex" name="Robots " name="other">
</head><body>
<a href="a" href="b">A</a>
<a rel="external NoFollow" href="/login">Login</a>
<a rel="nofollow" rel="me" href="/me">Me</a>
<a rel="me" rel="nofollow" href="/me2">Me 2</a>
<a name="x">anchor</a>
<area href="/map" alt="Map">
<svg><a xlink:href="/svg">svg</a></svg>
</body></html>`
	got := ExtractLinks("https://example.com/start", []byte(doc))
	want := Links{
		URLs:      []string{"https://example.com/docs/more", "https://example.com/docs/a", "https://example.com/me2", "https://example.com/map"},
		Canonical: "https://example.com/docs/first",
		NoIndex:   true,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ExtractLinks =\n%+v\nwant\n%+v", got, want)
	}
	// A canonical that resolves to nothing leaves the next one its place.
	got = ExtractLinks("https://example.com/", []byte(`<link rel="canonical" href="mailto:x@example.com"><link rel="canonical" href="/real">`))
	if got.Canonical != "https://example.com/real" {
		t.Errorf("canonical = %q", got.Canonical)
	}
	if got := ExtractLinks("::not a url", []byte(`<a href="/a">a</a>`)); !reflect.DeepEqual(got, Links{}) {
		t.Errorf("bad page URL = %+v", got)
	}
}

// BenchmarkExtractLinks reads the links of a page of the generated crawl
// site, as a crawl does for every page it reads.
func BenchmarkExtractLinks(b *testing.B) {
	var page []byte
	{
		rec := httptest.NewRecorder()
		crawlsite.New(10_000).ServeHTTP(rec, httptest.NewRequest("GET", "http://bench.test/p/57", nil))
		page = rec.Body.Bytes()
	}
	b.ReportAllocs()
	for b.Loop() {
		ExtractLinks("http://bench.test/p/57", page)
	}
}
