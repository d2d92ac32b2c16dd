package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gocolly/colly/v2"

	"github.com/trawlhq/trawl/adapters/clock"
	"github.com/trawlhq/trawl/adapters/extract"
	"github.com/trawlhq/trawl/adapters/limiter"
	"github.com/trawlhq/trawl/adapters/payment"
	"github.com/trawlhq/trawl/adapters/sqlstore"
	"github.com/trawlhq/trawl/app"
	"github.com/trawlhq/trawl/core/crawl"
	"github.com/trawlhq/trawl/core/credits"
	"github.com/trawlhq/trawl/core/service"
	"github.com/trawlhq/trawl/ports"
	"github.com/trawlhq/trawl/testkit/crawlsite"
)

// crawlPages is the crawl figures' budget: pages per crawl (-crawl-pages).
var crawlPages = 10_000

// crawlProfile, when set, is where the crawl figure writes a CPU profile of
// each side's crawls, from its start to its last page: PREFIX.trawl.N.pprof
// and PREFIX.colly.N.pprof for pair N (the generated site is served from
// this process too, so each holds its site's share).
var crawlProfile = flag.String("crawlprofile", "", "crawl figure: write a CPU profile of each crawl, Trawl's and colly's, to PREFIX.trawl.N.pprof and PREFIX.colly.N.pprof (not with -cpuprofile)")

// profileCrawl starts the CPU profile of one crawl, named side and pair; the
// function it returns stops it. Without -crawlprofile it does nothing.
func profileCrawl(side string, pair int) func() {
	if *crawlProfile == "" {
		return func() {}
	}
	f, err := os.Create(fmt.Sprintf("%s.%s.%d.pprof", *crawlProfile, side, pair))
	if err != nil {
		log.Fatal(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		log.Fatalf("-crawlprofile: %v (not with -cpuprofile)", err)
	}
	return func() { pprof.StopCPUProfile(); f.Close() }
}

// The crawl figure's concurrency and depth.
const (
	crawlConcurrency = 8
	crawlDepth       = 5
)

// serveCrawlSite serves a generated site (testkit/crawlsite: pages linked
// ten to a page, duplicate spellings, canonical duplicates, a calendar
// trap, robots.txt rules) on a local port.
func serveCrawlSite(pages int) (*crawlsite.Site, string, func()) {
	cs := crawlsite.New(pages)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	srv := &http.Server{Handler: cs, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	return cs, ln.Addr().String(), func() { srv.Close() }
}

// crawlFigure crawls a generated site of 10,000 linked pages with Trawl
// (the crawl service on SQLite, extraction on, politeness off for the
// bench host: no delay and as many requests per host as pages at once)
// and with its floor, gocolly/colly at the same concurrency calling Trawl's
// extractor in process, and prints pages per second and their ratio.
func crawlFigure(pairs int) {
	fmt.Printf("\n%-44s %12s %12s %6s\n", fmt.Sprintf("Crawl, %d pages, concurrency %d", crawlPages, crawlConcurrency), "Trawl p/s", "colly p/s", "ratio")
	var ratios []float64
	var tr, fl []float64
	for pair := range max(1, pairs) {
		f, fn := crawlFloor(pair + 1)
		t, tn := crawlTrawl(pair + 1)
		if tn != crawlPages || fn != crawlPages {
			log.Printf("crawl figure: Trawl extracted %d pages, colly %d (want %d each)", tn, fn, crawlPages)
		}
		tr, fl, ratios = append(tr, t), append(fl, f), append(ratios, t/f)
		if pairs > 1 {
			fmt.Printf("%-44s %12.0f %12.0f %6.2f\n", fmt.Sprintf("  pair %d", len(ratios)), t, f, t/f)
		}
	}
	fmt.Printf("%-44s %12.0f %12.0f %6.2f   (goal >= 0.70; both skip robots.txt-disallowed, nofollow and duplicate URLs)\n", "  crawl with extraction vs colly + extractor", medianFloat(tr), medianFloat(fl), medianFloat(ratios))
}

func medianFloat(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

// crawlTrawl runs one crawl of the site through the crawl service and
// returns its pages per second and its pages; pair names its profile.
func crawlTrawl(pair int) (float64, int) {
	_, addr, stop := serveCrawlSite(crawlPages)
	defer stop()
	dir, _ := os.MkdirTemp("", "trawl-bench-crawl")
	defer os.RemoveAll(dir)
	cfg := app.DefaultConfig()
	cfg.DataDir = dir
	cfg.Resolve = []string{"bench.test:80=" + addr}
	cfg.Crawl.Concurrency, cfg.Crawl.PerHost, cfg.Crawl.Delay = crawlConcurrency, crawlConcurrency, 0
	store, err := sqlstore.Open(context.Background(), sqlstore.Options{DataDir: dir})
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close()
	clk := clock.System{}
	pay, _ := payment.NewLocal(store, clk, "http://127.0.0.1")
	out, err := app.NewOutbound(cfg, app.Observers{})
	if err != nil {
		log.Fatal(err)
	}
	defer out.Close()
	lim, _ := limiter.NewMemory(clk)
	svc, err := service.New(app.SQLStore(store).Stores, out.With(clk, pay, lim), cfg.ServiceOptions())
	if err != nil {
		log.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go svc.Worker.Run(ctx)
	acct, _ := svc.Auth.CreateAccount(ctx, "crawl@example.com", "Crawl", "business")
	limit, depth := crawlPages, crawlDepth
	stopProfile := profileCrawl("trawl", pair)
	defer stopProfile()
	start := time.Now()
	ack, err := svc.Crawl.Submit(ctx, credits.Call{Principal: ports.Principal{Account: acct.Caller()}},
		crawl.Request{URL: "http://bench.test/", Limit: &limit, MaxDepth: &depth, Exclude: []string{"/slow/**"}, Render: "never"})
	if err != nil {
		log.Fatal(err)
	}
	for {
		st, err := svc.Crawl.Status(ctx, acct.ID, ack.CrawlID)
		if err == nil && (st.Status == "completed" || st.Status == "failed" || st.Status == "cancelled") {
			// The crawl's own end, not the poll that saw it: a poll every
			// 250 ms would round a 4 s crawl up by 3 % on average.
			end := time.Now()
			if st.CompletedAt != nil && st.CompletedAt.Before(end) {
				end = *st.CompletedAt
			}
			return float64(st.Counts.Succeeded) / end.Sub(start).Seconds(), st.Counts.Succeeded
		}
		// The status counts the whole frontier: asked rarely, so that the
		// figure is the crawl's and not the polling's.
		time.Sleep(250 * time.Millisecond)
	}
}

// crawlFloor crawls the site with colly at the same concurrency and depth,
// obeying robots.txt, skipping nofollow links, duplicate spellings (Trawl's
// URL keys) and pages that name another as canonical, and extracting each
// page with Trawl's extractor in process, up to the same number of pages;
// pair names its profile.
func crawlFloor(pair int) (float64, int) {
	_, addr, stop := serveCrawlSite(crawlPages)
	defer stop()
	dialer := &net.Dialer{Timeout: 5 * time.Second}
	tr := &http.Transport{
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return dialer.DialContext(ctx, network, addr)
		},
		MaxIdleConnsPerHost: crawlConcurrency * 2,
	}
	defer tr.CloseIdleConnections()
	c := colly.NewCollector(colly.Async(true), colly.MaxDepth(crawlDepth+1), colly.AllowedDomains("bench.test"))
	c.IgnoreRobotsTxt = false
	c.DisallowedURLFilters = []*regexp.Regexp{regexp.MustCompile(`^http://bench\.test/slow/`)}
	c.WithTransport(tr)
	if err := c.Limit(&colly.LimitRule{DomainGlob: "*", Parallelism: crawlConcurrency}); err != nil {
		log.Fatal(err)
	}
	ex := extract.New()
	norm := crawl.NewNormalizer(crawl.DefaultIgnoreParams)
	var (
		mu        sync.Mutex
		seen      = map[string]bool{}
		extracted atomic.Int64
	)
	first := func(raw string) bool {
		u, err := url.Parse(raw)
		if err != nil {
			return false
		}
		k := norm.Key(norm.Clean(u))
		mu.Lock()
		defer mu.Unlock()
		if seen[k] {
			return false
		}
		seen[k] = true
		return true
	}
	c.OnRequest(func(r *colly.Request) {
		if extracted.Load() >= int64(crawlPages) {
			r.Abort()
		}
	})
	c.OnHTML("html", func(e *colly.HTMLElement) {
		if canon, ok := e.DOM.Find(`link[rel="canonical"]`).Attr("href"); ok && e.Request.AbsoluteURL(canon) != e.Request.URL.String() {
			first(e.Request.AbsoluteURL(canon))
			return // a duplicate: not extracted
		}
		if robots, _ := e.DOM.Find(`meta[name="robots"]`).Attr("content"); strings.Contains(robots, "noindex") {
			return
		}
		if extracted.Load() >= int64(crawlPages) {
			return
		}
		if _, err := ex.Extract(context.Background(), ports.ExtractRequest{URL: e.Request.URL.String(), HTML: e.Response.Body}); err == nil {
			extracted.Add(1)
		}
	})
	c.OnHTML("a[href]", func(e *colly.HTMLElement) {
		if strings.Contains(e.Attr("rel"), "nofollow") {
			return
		}
		abs := e.Request.AbsoluteURL(e.Attr("href"))
		if abs == "" || extracted.Load() >= int64(crawlPages) || !first(abs) {
			return
		}
		_ = e.Request.Visit(abs)
	})
	stopProfile := profileCrawl("colly", pair)
	defer stopProfile()
	start := time.Now()
	first("http://bench.test/")
	if err := c.Visit("http://bench.test/"); err != nil {
		log.Fatal(err)
	}
	c.Wait()
	n := int(min(extracted.Load(), int64(crawlPages)))
	return float64(n) / time.Since(start).Seconds(), n
}

// crawlMemoryFigure runs the trawl binary crawling sitesN x 10,000 pages
// (100,000 by default): crawls of 10,000 pages, one after another, of
// generated sites, and prints the resident memory of its process every
// 10,000 pages.
func crawlMemoryFigure(sitesN int) {
	fmt.Printf("\nCrawl memory: the trawl binary (SQLite) crawling %d x %d pages, resident memory of its process from /proc\n", sitesN, crawlPages)
	work, bin := buildTrawl("trawl-bench-crawlmem")
	defer os.RemoveAll(work)
	_, addr, stop := serveCrawlSite(crawlPages)
	defer stop()
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	listen := ln.Addr().String()
	ln.Close()
	args := []string{"serve", "--addr", listen, "--data-dir", filepath.Join(work, "data")}
	for i := range sitesN {
		args = append(args, "--resolve", fmt.Sprintf("site%d.test:80=%s", i, addr))
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "TRAWL_CRAWL_DELAY=0", fmt.Sprintf("TRAWL_CRAWL_PER_HOST=%d", crawlConcurrency), fmt.Sprintf("TRAWL_CRAWL_CONCURRENCY=%d", crawlConcurrency), "TRAWL_BULK_JOBS=1")
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		log.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	tokens := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if t, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "T="); ok {
				tokens <- t
			}
		}
	}()
	var token string
	select {
	case token = <-tokens:
	case <-time.After(2 * time.Minute):
		log.Fatal("the node printed no token")
	}
	base := "http://" + listen
	for deadline := time.Now().Add(time.Minute); ; {
		if r, err := http.Get(base + "/healthz"); err == nil && r.StatusCode == 200 {
			r.Body.Close()
			break
		} else if time.Now().After(deadline) {
			log.Fatal("the node did not start")
		}
		time.Sleep(50 * time.Millisecond)
	}
	call := func(method, path string, body any) map[string]any {
		var rd io.Reader
		if body != nil {
			b, _ := json.Marshal(body)
			rd = strings.NewReader(string(b))
		}
		req, _ := http.NewRequest(method, base+path, rd)
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			log.Fatal(err)
		}
		defer res.Body.Close()
		var m map[string]any
		_ = json.NewDecoder(res.Body).Decode(&m)
		return m
	}
	// Ten crawls charge 200,000 credits: more than a plan's allowance.
	if out, err := exec.Command(bin, "credits", "grant", "--email", "local@localhost", "--credits", "250000", "--data-dir", filepath.Join(work, "data")).CombinedOutput(); err != nil {
		log.Fatalf("credits grant: %v\n%s", err, out)
	}
	idle := settledRSS(cmd.Process.Pid)
	fmt.Printf("%-28s %10s %10s %12s\n", "pages crawled", "RSS MB", "peak MB", "pages/s")
	fmt.Printf("%-28d %10.1f %10s %12s\n", 0, mb(idle), "", "")
	total := 0
	for i := range sitesN {
		start := time.Now()
		ack := call("POST", "/v1/crawl", map[string]any{"url": fmt.Sprintf("http://site%d.test/", i), "limit": crawlPages, "max_depth": crawlDepth, "exclude": []string{"/slow/**"}, "render": "never"})
		id, _ := ack["crawl_id"].(string)
		if id == "" {
			log.Fatalf("crawl %d: %v", i, ack)
		}
		var peak int64
		var st map[string]any
		for {
			if r := treeRSS(cmd.Process.Pid); r > peak {
				peak = r
			}
			st = call("GET", "/v1/crawl/"+id, nil)
			if s := st["status"]; s == "completed" || s == "failed" || s == "cancelled" {
				break
			}
			time.Sleep(200 * time.Millisecond)
		}
		n, _ := st["succeeded"].(float64)
		total += int(n)
		fmt.Printf("%-28d %10.1f %10.1f %12.0f\n", total, mb(treeRSS(cmd.Process.Pid)), mb(peak), n/time.Since(start).Seconds())
	}
}
