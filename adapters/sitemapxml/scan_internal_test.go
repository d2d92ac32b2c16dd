package sitemapxml

import (
	"bufio"
	"bytes"
	"encoding/xml"
	"io"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

func identityCharset(_ string, in io.Reader) (io.Reader, error) { return in, nil }

// wellFormed reports whether a strict encoding/xml decoder reads all of b.
func wellFormed(b []byte) bool {
	if !utf8.Valid(b) {
		return false
	}
	dec := xml.NewDecoder(bytes.NewReader(b))
	dec.CharsetReader = identityCharset
	for {
		_, err := dec.Token()
		if err == io.EOF {
			return true
		}
		if err != nil {
			return false
		}
	}
}

func both(t *testing.T, doc []byte, maxURLs int) {
	t.Helper()
	take := func(string) bool { return true }
	br := bufio.NewReaderSize(bytes.NewReader(doc), 16) // small reads cut tokens and references
	skipBOMAndSpace(br)
	if !scannable(br) {
		return
	}
	k1, l1, e1 := scanLocs(br, maxURLs, take)
	br = bufio.NewReader(bytes.NewReader(doc))
	skipBOMAndSpace(br)
	k2, l2, e2 := parseXML(br, maxURLs, identityCharset, take)
	if k1 != k2 || !reflect.DeepEqual(l1, l2) || (e1 == nil) != (e2 == nil) {
		t.Fatalf("scanner %q %q %v\nencoding/xml %q %q %v\ninput %q", k1, l1, e1, k2, l2, e2, doc)
	}
}

var scanSeeds = []string{
	`<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>http://a.test/1</loc><lastmod>2026-01-01</lastmod></url><url><loc> http://a.test/2?x=1&amp;y=2 </loc></url></urlset>`,
	`<sitemapindex><sitemap><loc>https://a.test/s1.xml</loc></sitemap><!-- <sitemap><loc>http://a.test/hidden</loc></sitemap> --><sitemap><loc><![CDATA[https://a.test/s2.xml?a=1&b=2]]></loc></sitemap></sitemapindex>`,
	`<sm:urlset xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9"><sm:url><sm:loc>http://a.test/&#x63;af&#233;</sm:loc></sm:url><sm:URL><sm:LOC>http://a.test/upper</sm:LOC></sm:URL></sm:urlset>`,
	"<urlset>\r\n<url a=\"x>y\" b='&lt;'><loc>http://a.test/3</loc><image:image><image:loc>http://a.test/img.png</image:loc></image:image></url><url><loc/></url><loc>http://a.test/outside</loc></urlset>",
	`<?xml version="1.0"?><?xml-stylesheet type="text/xsl" href="s.xsl"?><urlset><url><loc>http://a.test/&lt;&gt;&quot;&apos;</loc></url><url><loc>ftp://a.test/no</loc></url></urlset>`,
	`<rss><url><loc>http://a.test/not-a-sitemap</loc></url></rss>`,
	`<a-namespace-prefix-longer-than-thirty-two-bytes:urlset xmlns:a-namespace-prefix-longer-than-thirty-two-bytes="http://www.sitemaps.org/schemas/sitemap/0.9"><a-namespace-prefix-longer-than-thirty-two-bytes:url><a-namespace-prefix-longer-than-thirty-two-bytes:loc>http://a.test/long</a-namespace-prefix-longer-than-thirty-two-bytes:loc></a-namespace-prefix-longer-than-thirty-two-bytes:url></a-namespace-prefix-longer-than-thirty-two-bytes:urlset>`,
}

// FuzzScanLocs: on every well-formed input the scanner finds what the
// encoding/xml reader finds, in the same order, with the same stops.
func FuzzScanLocs(f *testing.F) {
	for _, s := range scanSeeds {
		f.Add([]byte(s), 1000)
		f.Add([]byte(s), 1)
	}
	f.Fuzz(func(t *testing.T, doc []byte, maxURLs int) {
		if maxURLs < 1 || maxURLs > 1000 || !wellFormed(doc) {
			return
		}
		both(t, doc, maxURLs)
	})
}

// FuzzScanLocsBuilt builds a well-formed sitemap around fuzzed URLs and
// text, so the fuzzer spends its time on content, not on syntax.
func FuzzScanLocsBuilt(f *testing.F) {
	f.Add("http://a.test/x?a=1&b=<2>", "note", true, false, "sm")
	f.Add("https://a.test/\r\ny", "]]", false, true, "")
	f.Fuzz(func(t *testing.T, u, text string, cdata, index bool, prefix string) {
		if !utf8.ValidString(u) || !utf8.ValidString(text) || strings.ContainsAny(prefix, " <>&\"'/:=!?\t\r\n") {
			return
		}
		var esc bytes.Buffer
		_ = xml.EscapeText(&esc, []byte(u))
		loc := esc.String()
		if cdata && !strings.Contains(u, "]]>") {
			loc = "<![CDATA[" + u + "]]>"
		}
		var comment bytes.Buffer
		_ = xml.EscapeText(&comment, []byte(text))
		p := ""
		if prefix != "" {
			p = prefix + ":"
		}
		root, entry := "urlset", "url"
		if index {
			root, entry = "sitemapindex", "sitemap"
		}
		doc := `<?xml version="1.0" encoding="utf-8"?><` + p + root + ` xmlns` + strings.TrimSuffix(":"+prefix, ":") + `="http://www.sitemaps.org/schemas/sitemap/0.9">` +
			`<` + p + entry + `><` + p + `loc>` + loc + `</` + p + `loc><note>` + comment.String() + `</note></` + p + entry + `>` +
			`<` + p + entry + `><` + p + `loc>http://a.test/second</` + p + `loc></` + p + entry + `></` + p + root + `>`
		if !wellFormed([]byte(doc)) {
			return
		}
		both(t, []byte(doc), 1000)
	})
}

func TestScanLocsSeeds(t *testing.T) {
	for _, s := range scanSeeds {
		if !wellFormed([]byte(s)) {
			t.Fatalf("seed not well-formed: %s", s)
		}
		for _, max := range []int{1, 2, 1000} {
			both(t, []byte(s), max)
		}
	}
	br := bufio.NewReader(strings.NewReader(scanSeeds[0]))
	kind, locs, err := scanLocs(br, 1000, func(string) bool { return true })
	if err != nil || kind != "urlset" || !reflect.DeepEqual(locs, []string{"http://a.test/1", "http://a.test/2?x=1&y=2"}) {
		t.Fatalf("scanLocs = %q %q %v", kind, locs, err)
	}
}

func benchSitemap() []byte {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
	for i := range 5000 {
		b.WriteString("<url><loc>http://bigsite.test/section/article-")
		b.WriteString(strings.Repeat("x", i%7))
		b.WriteString("</loc><lastmod>2026-11-01</lastmod></url>")
	}
	b.WriteString("</urlset>")
	return []byte(b.String())
}

// BenchmarkParse reads a sitemap of 5,000 URLs: the scanner the reader uses,
// and encoding/xml beside it.
func BenchmarkParse(b *testing.B) {
	doc := benchSitemap()
	take := func(string) bool { return true }
	b.Run("scan", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(doc)))
		for b.Loop() {
			if _, locs, err := parse(bufio.NewReader(bytes.NewReader(doc)), 50000, identityCharset, take); err != nil || len(locs) != 5000 {
				b.Fatal(len(locs), err)
			}
		}
	})
	b.Run("encoding-xml", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(doc)))
		for b.Loop() {
			if _, locs, err := parseXML(bufio.NewReader(bytes.NewReader(doc)), 50000, identityCharset, take); err != nil || len(locs) != 5000 {
				b.Fatal(len(locs), err)
			}
		}
	})
}
