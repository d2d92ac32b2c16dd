package main

import (
	"context"
	"fmt"
	"log"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/trawlhq/trawl/adapters/sqlstore"
)

// The page cache figure: a cache hit of /v1/scrape and of /v1/content on a
// 100 KB page, one client at a time over real TCP (latency, not
// throughput), beside net/http's FileServer serving the same page from
// disk in the same run. The site's requests are counted: a hit must not
// reach it.

// cachePage is a 100 KB article page.
func cachePage() []byte {
	var b strings.Builder
	b.WriteString("<!doctype html><html><head><title>Tide pools</title></head><body><nav><a href=\"/\">Home</a></nav><article><h1>Tide pools</h1>")
	for i := 0; b.Len() < 100<<10-200; i++ {
		fmt.Fprintf(&b, "<p>Paragraph %d: a tide pool is a rocky pool on the seashore, filled with seawater when the tide goes out, home to anemones, crabs and snails.</p>\n", i)
	}
	b.WriteString("</article><footer>Footer</footer></body></html>")
	return []byte(b.String())
}

func cacheFigure(pairs int, d time.Duration) {
	page := cachePage()
	dir, err := os.MkdirTemp("", "trawl-bench-cache")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	static := filepath.Join(dir, "static")
	if err := os.MkdirAll(static, 0o700); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(static, "page.html"), page, 0o600); err != nil {
		log.Fatal(err)
	}
	// The site Trawl reads the page from, counting its requests.
	var siteHits atomic.Int64
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	site := &http.Server{ReadHeaderTimeout: 5 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		siteHits.Add(1)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write(page)
	})}
	go func() { _ = site.Serve(ln) }()
	defer site.Close()

	s, err := sqlstore.Open(context.Background(), sqlstore.Options{DataDir: filepath.Join(dir, "db")})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	b, err := buildWith(s, "cached.test", ln.Addr().String(), true)
	if err != nil {
		log.Fatal(err)
	}
	floor := http.FileServer(http.Dir(static))
	pageURL := url.QueryEscape("http://cached.test/")
	scrape := "/v1/scrape?max_age=86400&url=" + pageURL
	content := "/v1/content?max_age=86400&url=" + pageURL
	// Warm: the one miss that fills the cache.
	if r := load(b.handler, scrape, b.token, 1, 50*time.Millisecond); r.errors > 0 {
		log.Fatalf("cache figure: warming the cache failed (%d errors)", r.errors)
	}
	warm := siteHits.Load()

	fmt.Printf("\n%-40s %9s %9s   %9s %9s   %6s   (1 client, %d alternated pairs, %d KB page)\n", "Page cache hit (sqlite, local files)", "p50", "p99", "floor p50", "p99", "ratio", pairs, len(page)>>10)
	for _, c := range []struct{ name, path string }{{"GET /v1/scrape hit", scrape}, {"GET /v1/content hit", content}} {
		var tr, fl []result
		for range pairs {
			tr = append(tr, load(b.handler, c.path, b.token, 1, d))
			fl = append(fl, load(floor, "/page.html", "", 1, d))
		}
		ratios := make([]float64, 0, pairs)
		for i := range tr {
			if fl[i].p50 > 0 {
				ratios = append(ratios, float64(tr[i].p50)/float64(fl[i].p50))
			}
		}
		slices.Sort(ratios)
		t, f := median(tr), median(fl)
		errs := ""
		if n := sumErrors(tr) + sumErrors(fl); n > 0 {
			errs = fmt.Sprintf("  %d errors", n)
		}
		fmt.Printf("%-40s %9s %9s   %9s %9s   %6.1f%s\n", c.name, t.p50.Round(time.Microsecond), t.p99.Round(time.Microsecond),
			f.p50.Round(time.Microsecond), f.p99.Round(time.Microsecond), ratios[len(ratios)/2], errs)
	}
	fmt.Printf("%-40s %d (the warming miss: %d)\n", "site requests during the run", siteHits.Load(), warm)
}
