package main

import (
	"context"
	"encoding/xml"
	"fmt"
	"log"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/trawlhq/trawl/adapters/fetch"
	"github.com/trawlhq/trawl/adapters/sitemapxml"
	"github.com/trawlhq/trawl/core/sitemap"
)

// mapFigure maps a local site whose sitemap index lists 20 sitemaps of 5,000
// URLs each (100,000 URLs) with limit 1000, alternating with its floor (the
// same sitemaps fetched and read by a streaming encoding/xml decoder), and
// reports the median wall times, their ratio, and the peak heap of the
// discovery and its dedup.
func mapFigure(pairs int) {
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
	d, _ := sitemapxml.New(f, sitemapxml.Limits{})

	defer srv.Close()
	var trawl, floor []time.Duration
	var found, returned int
	var peakHeap float64
	for range pairs {
		w, n, r, heap := mapOnce(d)
		trawl = append(trawl, w)
		found, returned, peakHeap = n, r, max(peakHeap, heap)
		fw, fn := mapFloor(ln.Addr().String())
		if fn != found {
			log.Fatalf("map floor found %d URLs, Trawl %d", fn, found)
		}
		floor = append(floor, fw)
	}
	slices.Sort(trawl)
	slices.Sort(floor)
	mt, mf := trawl[len(trawl)/2], floor[len(floor)/2]
	fmt.Printf("\n%-40s %10s %10s %6s\n", "Map (20 sitemaps x 5,000 URLs), wall", "Trawl", "floor", "ratio")
	fmt.Printf("%-40s %10s %10s %6.2f   %d URLs found, %d returned, peak heap %.1f MiB above idle\n", "  discovery + dedup vs encoding/xml",
		mt.Round(time.Millisecond), mf.Round(time.Millisecond), float64(mt)/float64(mf), found, returned, peakHeap)
}

// mapOnce runs one discovery and its dedup, and measures the peak heap.
func mapOnce(d *sitemapxml.Discoverer) (time.Duration, int, int, float64) {
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
	return elapsed, len(found), len(all), float64(peak.Load()-min(peak.Load(), base.HeapAlloc)) / (1 << 20)
}

// mapFloor fetches the index and each sitemap with a plain client and reads
// every <loc> with a streaming encoding/xml decoder.
func mapFloor(addr string) (time.Duration, int) {
	start := time.Now()
	read := func(path string) []string {
		res, err := http.Get("http://" + addr + path)
		if err != nil {
			log.Fatal(err)
		}
		defer res.Body.Close()
		var locs []string
		dec := xml.NewDecoder(res.Body)
		inLoc := false
		for {
			tok, err := dec.Token()
			if err != nil {
				break
			}
			switch t := tok.(type) {
			case xml.StartElement:
				inLoc = t.Name.Local == "loc"
			case xml.CharData:
				if inLoc {
					locs = append(locs, strings.TrimSpace(string(t)))
				}
			case xml.EndElement:
				inLoc = false
			}
		}
		return locs
	}
	n := 0
	for _, loc := range read("/sitemap-index.xml") {
		u, err := url.Parse(loc)
		if err != nil {
			log.Fatal(err)
		}
		n += len(read(u.Path))
	}
	return time.Since(start), n
}
