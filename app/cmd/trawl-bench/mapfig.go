package main

import (
	"context"
	"fmt"
	"log"
	"net"
	"net/http"
	"net/netip"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/trawlhq/trawl/adapters/fetch"
	sitemapadapter "github.com/trawlhq/trawl/adapters/sitemap"
	"github.com/trawlhq/trawl/core/sitemap"
)

// mapFigure maps a local site whose sitemap index lists 20 sitemaps of 5,000
// URLs each (100,000 URLs) with limit 1000, and reports the wall time and the
// peak heap of the discovery and its dedup.
func mapFigure() {
	const files, perFile = 20, 5000
	mux := http.NewServeMux()
	var idx strings.Builder
	idx.WriteString(`<?xml version="1.0" encoding="UTF-8"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
	bodies := make([][]byte, files)
	for f := range files {
		fmt.Fprintf(&idx, "<sitemap><loc>http://bigsite.test/sitemap-%d.xml</loc></sitemap>", f)
		var b strings.Builder
		b.WriteString(`<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
		for i := range perFile {
			fmt.Fprintf(&b, "<url><loc>http://bigsite.test/section-%d/article-%d</loc><lastmod>2026-11-01</lastmod></url>", f, i)
		}
		b.WriteString("</urlset>")
		bodies[f] = []byte(b.String())
		mux.HandleFunc(fmt.Sprintf("/sitemap-%d.xml", f), func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/xml")
			_, _ = w.Write(bodies[f])
		})
	}
	idx.WriteString("</sitemapindex>")
	mux.HandleFunc("/robots.txt", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte("User-agent: *\nSitemap: http://bigsite.test/sitemap-index.xml\n"))
	})
	mux.HandleFunc("/sitemap-index.xml", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/xml")
		_, _ = w.Write([]byte(idx.String()))
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()

	f := fetch.New(fetch.Options{Resolve: map[string]string{"bigsite.test:80": ln.Addr().String()},
		LookupIP: func(context.Context, string) ([]netip.Addr, error) { return nil, fmt.Errorf("no DNS in the benchmark") }})
	d, _ := sitemapadapter.New(f, sitemapadapter.Limits{})

	runtime.GC()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)
	var peak atomic.Uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > peak.Load() {
				peak.Store(ms.HeapAlloc)
			}
			select {
			case <-stop:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	}()
	start := time.Now()
	found, err := d.Discover(context.Background(), "http://bigsite.test")
	all := sitemap.Dedup(found)
	if len(all) > 1000 {
		all = all[:1000]
	}
	elapsed := time.Since(start)
	close(stop)
	wg.Wait()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("\n%-34s %d URLs found, %d returned, %s wall, peak heap %.1f MiB above idle\n",
		"Map (20 sitemaps x 5,000 URLs)", len(found), len(all), elapsed.Round(time.Millisecond),
		float64(peak.Load()-min(peak.Load(), base.HeapAlloc))/(1<<20))
}
