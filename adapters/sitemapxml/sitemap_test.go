package sitemapxml_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/trawlhq/trawl/adapters/fetch"
	"github.com/trawlhq/trawl/adapters/sitemapxml"
	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/core/sitemap"
	"github.com/trawlhq/trawl/testkit/sites"
)

func urlset(urls ...string) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
	for _, u := range urls {
		fmt.Fprintf(&b, "<url><loc>%s</loc><lastmod>2026-01-01</lastmod></url>", u)
	}
	b.WriteString("</urlset>")
	return b.String()
}

func index(locs ...string) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
	for _, u := range locs {
		fmt.Fprintf(&b, "<sitemap><loc>%s</loc></sitemap>", u)
	}
	b.WriteString("</sitemapindex>")
	return b.String()
}

func gz(s string) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write([]byte(s))
	zw.Close()
	return buf.Bytes()
}

func discoverer(t *testing.T, l sitemapxml.Limits, ss ...*sites.Site) *sitemapxml.Discoverer {
	noDNS := func(_ context.Context, host string) ([]netip.Addr, error) {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	d, err := sitemapxml.New(fetch.New(fetch.Options{Resolve: sites.Resolve(ss...), LookupIP: noDNS}), l)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestRobotsIndexesGzipAndOrder(t *testing.T) {
	s := sites.New(t, "shop.test")
	s.Handle("/robots.txt", "text/plain", "User-agent: *\nDisallow: /cart\nSitemap: http://shop.test/sm/index.xml\nSitemap: http://shop.test/sm/extra.xml\n")
	s.Handle("/sm/index.xml", "application/xml", index("http://shop.test/sm/slow.xml", "http://shop.test/sm/products.xml.gz", "http://shop.test/sm/nested.xml"))
	s.Mux.HandleFunc("/sm/slow.xml", func(w http.ResponseWriter, _ *http.Request) {
		time.Sleep(150 * time.Millisecond) // finishes last, must still come first
		w.Header().Set("Content-Type", "application/xml")
		w.Write([]byte(urlset("http://shop.test/a", "http://shop.test/b")))
	})
	s.Mux.HandleFunc("/sm/products.xml.gz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/x-gzip")
		w.Write(gz(urlset("http://shop.test/p/1", "http://shop.test/p/2")))
	})
	s.Handle("/sm/nested.xml", "application/xml", index("http://shop.test/sm/deep.xml", "http://shop.test/sm/index.xml"))
	s.Handle("/sm/deep.xml", "text/xml", urlset("http://shop.test/deep/1"))
	s.Handle("/sm/extra.xml", "application/xml", urlset("http://shop.test/z", "  http://shop.test/A  ", "javascript:alert(1)", "/relative"))
	got, err := discoverer(t, sitemapxml.Limits{}, s).Discover(context.Background(), "http://shop.test")
	if err != nil {
		t.Fatal(err)
	}
	want := "http://shop.test/a http://shop.test/b http://shop.test/p/1 http://shop.test/p/2 http://shop.test/deep/1 http://shop.test/z http://shop.test/A"
	if strings.Join(got, " ") != want {
		t.Fatalf("got  %v\nwant %v", got, want)
	}
}

func TestFallbacks(t *testing.T) {
	s := sites.New(t, "plain.test")
	s.Handle("/robots.txt", "text/plain", "User-agent: *\nDisallow:\n")
	s.Handle("/sitemap.xml", "application/xml", urlset("http://plain.test/one"))
	got, err := discoverer(t, sitemapxml.Limits{}, s).Discover(context.Background(), "http://plain.test")
	if err != nil || len(got) != 1 {
		t.Fatalf("/sitemap.xml fallback: %v %v", got, err)
	}
	idx := sites.New(t, "idx.test") // no robots.txt at all
	idx.Handle("/sitemap_index.xml", "application/xml", index("http://idx.test/s1.xml"))
	idx.Handle("/s1.xml", "application/xml", urlset("http://idx.test/x"))
	got, err = discoverer(t, sitemapxml.Limits{}, idx).Discover(context.Background(), "http://idx.test")
	if err != nil || strings.Join(got, " ") != "http://idx.test/x" {
		t.Fatalf("/sitemap_index.xml fallback: %v %v", got, err)
	}
	broken := sites.New(t, "broken.test") // robots names a dead sitemap: the fallbacks still run
	broken.Handle("/robots.txt", "text/plain", "Sitemap: http://broken.test/missing.xml\n")
	broken.Handle("/sitemap.xml", "application/xml", urlset("http://broken.test/ok"))
	got, err = discoverer(t, sitemapxml.Limits{}, broken).Discover(context.Background(), "http://broken.test")
	if err != nil || strings.Join(got, " ") != "http://broken.test/ok" {
		t.Fatalf("dead declared sitemap: %v %v", got, err)
	}
	text := sites.New(t, "text.test")
	text.Handle("/sitemap.xml", "text/plain", "http://text.test/1\nhttp://text.test/2\n\nnot a url\n")
	got, err = discoverer(t, sitemapxml.Limits{}, text).Discover(context.Background(), "http://text.test")
	if err != nil || len(got) != 2 {
		t.Fatalf("text sitemap: %v %v", got, err)
	}
}

func TestNoSitemap(t *testing.T) {
	s := sites.New(t, "bare.test")
	s.Handle("/", "text/html", "<p>home</p>")
	s.Handle("/sitemap.xml", "text/html", "<html><body>Not found, but 200</body></html>")
	_, err := discoverer(t, sitemapxml.Limits{}, s).Discover(context.Background(), "http://bare.test")
	err = sitemap.DiscoverFailure(err, "http://bare.test") // as core words it
	if fe, ok := failure.As(err); !ok || fe.Kind != failure.Unavailable || !strings.Contains(fe.Message, "No sitemap could be discovered for bare.test") {
		t.Fatalf("no sitemap: %v", err)
	}
	_, err = discoverer(t, sitemapxml.Limits{}).Discover(context.Background(), "http://nowhere.invalid")
	err = sitemap.DiscoverFailure(err, "http://nowhere.invalid")
	if fe, ok := failure.As(err); !ok || fe.Kind != failure.Unavailable || !strings.Contains(fe.Message, "not found") {
		t.Fatalf("unreachable host: %v", err)
	}
}

func TestCaps(t *testing.T) {
	s := sites.New(t, "big.test")
	var many []string
	for i := range 120 {
		many = append(many, fmt.Sprintf("http://big.test/p/%d", i))
	}
	s.Handle("/sitemap.xml", "application/xml", urlset(many...))
	got, err := discoverer(t, sitemapxml.Limits{MaxURLsPerFile: 100}, s).Discover(context.Background(), "http://big.test")
	if err != nil || len(got) != 100 {
		t.Fatalf("per-file cap: %d %v", len(got), err)
	}
	s.Handle("/huge.xml", "application/xml", urlset(many...))
	deep := sites.New(t, "deep.test")
	for i := range 10 {
		deep.Handle(fmt.Sprintf("/i%d.xml", i), "application/xml", index(fmt.Sprintf("http://deep.test/i%d.xml", i+1), fmt.Sprintf("http://deep.test/u%d.xml", i)))
		deep.Handle(fmt.Sprintf("/u%d.xml", i), "application/xml", urlset(fmt.Sprintf("http://deep.test/page%d", i)))
	}
	deep.Handle("/robots.txt", "text/plain", "Sitemap: http://deep.test/i0.xml\n")
	got, err = discoverer(t, sitemapxml.Limits{MaxDepth: 3}, deep).Discover(context.Background(), "http://deep.test")
	if err != nil || len(got) != 3 {
		t.Fatalf("depth cap: %v %v", got, err)
	}
	bloated := sites.New(t, "bloat.test")
	bloated.Handle("/sitemap.xml", "application/xml", urlset(many...))
	if _, err := discoverer(t, sitemapxml.Limits{MaxFileBytes: 1000}, bloated).Discover(context.Background(), "http://bloat.test"); !failure.Is(sitemap.DiscoverFailure(err, "http://bloat.test"), failure.Unavailable) {
		t.Fatalf("a file over the byte cap is unreadable: %v", err)
	}
}

// hugeSitemap serves a urlset of n URLs written as it goes, counting the
// bytes the server managed to send before the reader hung up.
func hugeSitemap(s *sites.Site, path string, n int, gzipped bool, served *atomic.Int64, done chan<- struct{}) {
	s.Mux.HandleFunc(path, func(w http.ResponseWriter, _ *http.Request) {
		defer func() { done <- struct{}{} }()
		w.Header().Set("Content-Type", "application/xml")
		var out io.Writer = countingWriter{w, served}
		if gzipped {
			zw := gzip.NewWriter(out)
			defer zw.Close()
			out = zw
		}
		if _, err := io.WriteString(out, `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`); err != nil {
			return
		}
		for i := range n {
			if _, err := fmt.Fprintf(out, "<url><loc>http://%s/p/%d</loc><lastmod>2026-01-01</lastmod></url>\n", s.Host, i); err != nil {
				return // the reader stopped
			}
		}
		io.WriteString(out, "</urlset>")
	})
}

type countingWriter struct {
	w io.Writer
	n *atomic.Int64
}

func (c countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n.Add(int64(n))
	return n, err
}

// A bulk job reads a sitemap only to its 101st URL: a sitemap of a million
// URLs (about 70 MB) is not downloaded, nor parsed, to answer "too many".
func TestReadStopsAtTheLimit(t *testing.T) {
	const n = 1_000_000
	full := int64(len(urlset())) + int64(n)*int64(len("<url><loc>http://huge.test/p/999999</loc><lastmod>2026-01-01</lastmod></url>\n"))
	for _, gzipped := range []bool{false, true} {
		s := sites.New(t, "huge.test")
		var served atomic.Int64
		done := make(chan struct{}, 1)
		hugeSitemap(s, "/sitemap.xml", n, gzipped, &served, done)
		got, err := discoverer(t, sitemapxml.Limits{}, s).Read(context.Background(), "http://huge.test/sitemap.xml", 100)
		if err != nil || len(got) != 101 || got[100] != "http://huge.test/p/100" {
			t.Fatalf("gzip %v: read %d URLs (%v), want the first 101", gzipped, len(got), err)
		}
		select {
		case <-done: // the handler saw the reader hang up
		case <-time.After(10 * time.Second):
			t.Fatal("the server is still sending the sitemap")
		}
		// What was sent is what the sockets buffered, a small part of the file.
		if b := served.Load(); b > full/10 {
			t.Fatalf("gzip %v: %d of about %d bytes were served to read 101 URLs", gzipped, b, full)
		} else {
			t.Logf("gzip %v: %d bytes served of about %d", gzipped, b, full)
		}
	}
}

// An index of many large files stops the same way: the budget is shared.
func TestReadStopsAtTheLimitAcrossAnIndex(t *testing.T) {
	s := sites.New(t, "index.test")
	var served atomic.Int64
	var requests atomic.Int64
	done := make(chan struct{}, 40)
	var subs []string
	for i := range 20 {
		path := fmt.Sprintf("/part-%d.xml", i)
		subs = append(subs, "http://index.test"+path)
		hugeSitemap(s, path+"-data", 50_000, false, &served, done)
		s.Mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			requests.Add(1)
			http.Redirect(w, r, path+"-data", http.StatusFound)
		})
	}
	s.Handle("/index.xml", "application/xml", index(subs...))
	got, err := discoverer(t, sitemapxml.Limits{Concurrency: 2}, s).Read(context.Background(), "http://index.test/index.xml", 100)
	if err != nil || len(got) != 101 {
		t.Fatalf("read %d URLs (%v), want 101", len(got), err)
	}
	full := int64(20 * 50_000 * 70)
	if b := served.Load(); b > full/10 {
		t.Fatalf("%d of about %d bytes were served to read 101 URLs (%d files asked for)", b, full, requests.Load())
	} else {
		t.Logf("%d bytes served of about %d; %d of 20 files asked for", b, full, requests.Load())
	}
}

// Reading as a stream keeps the encodings: the server's charset, else the
// XML declaration.
func TestReadEncodings(t *testing.T) {
	s := sites.New(t, "enc.test")
	latin1 := "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><urlset><url><loc>http://enc.test/caf\xe9</loc></url></urlset>"
	s.Handle("/declared.xml", "application/xml", latin1)
	s.Mux.HandleFunc("/header.xml", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/xml; charset=iso-8859-1")
		w.Write([]byte("<urlset><url><loc>http://enc.test/cr\xe8me</loc></url></urlset>"))
	})
	s.Mux.HandleFunc("/both.xml", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/xml; charset=iso-8859-1")
		w.Write([]byte(latin1))
	})
	d := discoverer(t, sitemapxml.Limits{}, s)
	for path, want := range map[string]string{"/declared.xml": "http://enc.test/café", "/header.xml": "http://enc.test/crème", "/both.xml": "http://enc.test/café"} {
		got, err := d.Read(context.Background(), "http://enc.test"+path, 100)
		if err != nil || len(got) != 1 || got[0] != want {
			t.Errorf("%s: %q %v; want %q", path, got, err, want)
		}
	}
}
