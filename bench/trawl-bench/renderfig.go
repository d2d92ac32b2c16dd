package main

import (
	"context"
	"fmt"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/trawlhq/trawl/adapters/sqlstore"
)

// renderDir finds the built front-end fixtures (make fixtures) from the
// module root or below it.
func renderDir() string {
	dir, _ := os.Getwd()
	for range 4 {
		p := filepath.Join(dir, "testdata", "render", "dist")
		if _, err := os.Stat(filepath.Join(p, "article.html")); err == nil {
			return p
		}
		dir = filepath.Dir(dir)
	}
	log.Fatal("testdata/render/dist not found: run from the repository")
	return ""
}

// renderFigure measures static and rendered reads of the front-end
// fixtures through the whole API in process, with the local Chromium:
// latency by mode, pages extracted, then 500 renders from four callers
// with the memory of this process and its browser.
func renderFigure() {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	site := &http.Server{Handler: http.FileServer(http.Dir(renderDir())), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = site.Serve(ln) }()
	defer site.Close()
	dir, err := os.MkdirTemp("", "trawl-bench-render")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	store, err := sqlstore.Open(context.Background(), sqlstore.Options{DataDir: dir})
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close()
	b, err := buildWith(store, "spa.test", ln.Addr().String(), false)
	if err != nil {
		log.Fatal(err)
	}
	get := func(path string) int {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodGet, path, nil)
		req.Header.Set("Authorization", "Bearer "+b.token)
		b.handler.ServeHTTP(rec, req)
		return rec.Code
	}
	pages := []string{"article.html", "xhr.html", "hash.html", "consent.html"}
	for _, mode := range []string{"never", "always"} {
		var d []time.Duration
		for i := range 40 {
			start := time.Now()
			get("/v1/scrape?render=" + mode + "&url=http://spa.test/" + pages[i%len(pages)])
			d = append(d, time.Since(start))
		}
		sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
		fmt.Printf("render %-6s median %s p95 %s\n", mode, d[len(d)/2].Round(time.Millisecond), d[len(d)*95/100].Round(time.Millisecond))
	}
	extracted := map[string]int{}
	for _, mode := range []string{"never", "always"} {
		for _, p := range []string{"article.html", "xhr.html", "hash.html", "consent.html", "never.html", "hog.html"} {
			if get("/v1/content?render="+mode+"&url=http://spa.test/"+p) == 200 {
				extracted[mode]++
			}
		}
	}
	fmt.Printf("fixture pages extracted of 6: http %d, browser %d\n", extracted["never"], extracted["always"])

	var done atomic.Int64
	work := make(chan int)
	finished := make(chan struct{})
	start := time.Now()
	for range 4 {
		go func() {
			for i := range work {
				if get("/v1/scrape?render=always&url=http://spa.test/"+pages[i%len(pages)]) == 200 {
					done.Add(1)
				}
			}
			finished <- struct{}{}
		}()
	}
	for i := 1; i <= 500; i++ {
		work <- i
		if i%100 == 0 {
			fmt.Printf("after %d renders: trawl and its browser use %d MiB\n", i, processTreeRSS(os.Getpid())>>20)
		}
	}
	close(work)
	for range 4 {
		<-finished
	}
	took := time.Since(start)
	fmt.Printf("%d of 500 renders in %s: %.0f pages a minute; memory at the end %d MiB\n", done.Load(), took.Round(time.Second), float64(done.Load())/took.Minutes(), processTreeRSS(os.Getpid())>>20)
}

// processTreeRSS sums the resident memory of pid and its descendants.
func processTreeRSS(pid int) int64 {
	entries, _ := os.ReadDir("/proc")
	parent, rss := map[int]int{}, map[int]int64{}
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) < 22 {
			continue
		}
		pp, _ := strconv.Atoi(f[1])
		pages, _ := strconv.ParseInt(f[21], 10, 64)
		parent[p], rss[p] = pp, pages*int64(os.Getpagesize())
	}
	var total int64
	for p := range rss {
		for q := p; q > 1; q = parent[q] {
			if q == pid {
				total += rss[p]
				break
			}
		}
	}
	return total
}
