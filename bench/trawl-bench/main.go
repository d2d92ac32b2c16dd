// Command trawl-bench (make bench) measures Trawl's figures on this machine,
// outside the product tree so the server links none of it:
// GET /v1/credits under concurrency over real TCP (SQLite and Postgres)
// beside a hello-world net/http handler measured in the same run, and ledger
// reserve+settle throughput on each store.
package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/url"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jmoiron/sqlx"
	_ "github.com/lib/pq"

	"github.com/trawlhq/trawl/adapters/clock"
	"github.com/trawlhq/trawl/adapters/limiter"
	"github.com/trawlhq/trawl/adapters/payment"
	"github.com/trawlhq/trawl/adapters/sqlstore"
	"github.com/trawlhq/trawl/app"
	"github.com/trawlhq/trawl/core/service"
	"github.com/trawlhq/trawl/ports"
	"github.com/trawlhq/trawl/testkit/pgtest"
)

func main() {
	duration := flag.Duration("duration", time.Second, "how long each load runs")
	pairs := flag.Int("pairs", 3, "Trawl and floor runs alternated this many times (medians reported)")
	conc := flag.Int("c", 16, "concurrent clients")
	pgURL := flag.String("postgres", pgtest.ServerURL(), "admin URL of a Postgres server (a scratch database is created)")
	only := flag.String("only", "", "run one part: http (the HTTP loads on each store), content (/v1/content CPU per page; -cpuprofile then profiles the server process), footprint (the binary's resident memory and first PDF), pdf (PDF conversion beside pdftotext), render (static and rendered reads of the front-end fixtures, then rendered pages a minute and memory beside a bare chromedp program, with the local Chromium), cache (page cache hits beside a static file server), limiters, crawl (a 10,000-page crawl beside colly), crawlmem (resident memory over 100,000 crawled pages) or frontier (the PostgreSQL frontier at -frontier-urls queued URLs)")
	storeName := flag.String("store", "", "run the store loads on this store only: sqlite or postgres (default both)")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the run (server and load) to this file, for go tool pprof")
	encodings := flag.String("encodings", "identity gzip", "the content figure's page encodings, of identity and gzip")
	blockProfile := flag.String("blockprofile", "", "write a profile of where goroutines waited (locks, channels, select) to this file")
	crawlPairs := flag.Int("crawlpairs", 1, "crawl figure: Trawl and colly runs alternated this many times (10,000 pages each)")
	flag.IntVar(&crawlPages, "crawl-pages", crawlPages, "crawl figures: pages per crawl (the figure is defined at 10,000)")
	crawlMemCrawls := flag.Int("crawlmem-crawls", 10, "crawl memory figure: crawls of 10,000 pages run one after another")
	frontierURLs := flag.Int("frontier-urls", 1_000_000, "frontier figure: URLs queued in the PostgreSQL frontier before the insert-and-claim rate is measured")
	renderRuns := flag.Int("render-pages", 60, "render figure: pages each side renders in each of -pairs alternated runs")
	flag.Parse()
	log.SetFlags(0)
	if addr := os.Getenv(renderFloorEnv); addr != "" {
		renderFloorChild(addr)
		return
	}
	if addr := os.Getenv(contentChildEnv); addr != "" {
		contentChild(addr)
		return
	}
	if *only == "footprint" {
		footprintFigure()
		return
	}
	if *only == "pdf" {
		pdfFigure()
		return
	}
	if *only == "cache" {
		cacheFigure(*pairs, *duration)
		return
	}
	if *only == "content" {
		contentFigure(*pairs, runtimeProcs(), *cpuProfile, strings.Fields(*encodings), true)
		return
	}
	if *blockProfile != "" {
		runtime.SetBlockProfileRate(int(10 * time.Microsecond))
		defer func() {
			f, err := os.Create(*blockProfile)
			if err != nil {
				log.Fatal(err)
			}
			defer f.Close()
			if err := pprof.Lookup("block").WriteTo(f, 0); err != nil {
				log.Fatal(err)
			}
		}()
	}
	if *cpuProfile != "" && *only != "content" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			log.Fatal(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			log.Fatal(err)
		}
		defer func() { pprof.StopCPUProfile(); f.Close() }()
	}
	if *only == "render" {
		renderFigure(*pairs, *renderRuns)
		return
	}
	if *only == "crawl" {
		crawlFigure(*crawlPairs)
		return
	}
	if *only == "crawlmem" {
		crawlMemoryFigure(*crawlMemCrawls)
		return
	}
	if *only == "frontier" {
		frontierFigure(*pgURL, *frontierURLs)
		return
	}
	if *only == "limiters" {
		limiterFigure(*pgURL, *conc, *duration)
		return
	}
	if *only != "" && *only != "http" {
		log.Fatalf("-only %q: want http, content, footprint, pdf, render, limiters, crawl, crawlmem or frontier", *only)
	}

	fmt.Printf("trawl-bench: %d clients, %s per load, %d alternated pairs (medians; the ratio is the median of the pairs' ratios), GOMAXPROCS=%d\n", *conc, *duration, *pairs, runtimeProcs())
	fmt.Printf("ratio: Trawl's requests/s over its floor's, measured in the same run\n\n")
	fmt.Printf("%-40s %10s %9s %9s   %10s %9s %9s   %6s\n", "HTTP load", "Trawl r/s", "p50", "p99", "floor r/s", "p50", "p99", "ratio")

	// Each store comes with the handle its floors use: on SQLite one of
	// their own on the file, as the store's pool only reads.
	stores := []struct {
		name string
		open func() (*sqlstore.Store, *sqlx.DB, func(), error)
	}{
		{"sqlite", func() (*sqlstore.Store, *sqlx.DB, func(), error) {
			dir, err := os.MkdirTemp("", "trawl-bench")
			if err != nil {
				return nil, nil, nil, err
			}
			s, err := sqlstore.Open(context.Background(), sqlstore.Options{DataDir: dir})
			if err != nil {
				return nil, nil, nil, err
			}
			// As the store's pool was before it only read: its settings and
			// its pool size.
			db, err := sqlx.Open("sqlite", "file:"+sqlstore.SQLitePath(dir)+"?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_pragma=foreign_keys(1)&_txlock=immediate")
			pool := sqlstore.DefaultPool(sqlstore.SQLite)
			db.SetMaxOpenConns(pool.MaxConns)
			db.SetMaxIdleConns(pool.MaxConns)
			return s, db, func() { db.Close(); s.Close(); os.RemoveAll(dir) }, err
		}},
		{"postgres", func() (*sqlstore.Store, *sqlx.DB, func(), error) {
			s, closeFn, err := openPostgres(*pgURL)
			if err != nil {
				return nil, nil, nil, err
			}
			return s, s.DB(), closeFn, nil
		}},
	}
	page := tinyPage()
	defer page.Close()
	type ledgerFig struct {
		name      string
		contended float64
		spread    float64
		err       error
	}
	var ledgers []ledgerFig
	for _, st := range stores {
		if *storeName != "" && *storeName != st.name {
			continue
		}
		s, floorDB, closeFn, err := st.open()
		if err != nil {
			fmt.Printf("%-40s skipped: %v\n", "GET /v1/credits ("+st.name+")", err)
			ledgers = append(ledgers, ledgerFig{name: st.name, err: err})
			continue
		}
		b, err := build(s, page.host, page.addr)
		if err != nil {
			log.Fatal(err)
		}
		floor, err := creditsFloor(floorDB)
		if err != nil {
			log.Fatal(err)
		}
		pairRow("GET /v1/credits ("+st.name+")", b.handler, floor, "/v1/credits", b.token, *conc, *duration, *pairs)
		sfloor, err := scrapeFloor(floorDB, b.floorAccount, "http://"+page.addr+"/")
		if err != nil {
			log.Fatal(err)
		}
		pairRow("GET /v1/scrape ("+st.name+")", b.handler, sfloor, "/v1/scrape?url="+url.QueryEscape("http://"+page.host+"/"), b.token, *conc, *duration, *pairs)
		if *only == "http" {
			closeFn()
			continue
		}
		contended := ledgerOps(s, b.svc, *conc, *duration, false)
		spread := ledgerOps(s, b.svc, *conc, *duration, true)
		ledgers = append(ledgers, ledgerFig{name: st.name, contended: contended, spread: spread})
		closeFn()
	}
	if *only == "http" {
		return
	}
	fmt.Printf("\n%-40s %16s %16s\n", "Ledger reserve+settle", "one account", fmt.Sprintf("%d accounts", *conc))
	for _, l := range ledgers {
		if l.err != nil {
			fmt.Printf("%-40s skipped\n", l.name)
			continue
		}
		fmt.Printf("%-40s %12.0f op/s %12.0f op/s\n", l.name, l.contended, l.spread)
	}
	mapFigure(*pairs)
	cacheFigure(*pairs, *duration)
	contentFigure(*pairs, runtimeProcs(), "", strings.Fields(*encodings), false)
	bulkFigure()
	crawlFigure(*crawlPairs)
	limiterFigure(*pgURL, *conc, *duration)
	pdfFigure()
	footprintFigure()
	renderFigure(*pairs, *renderRuns)
}

// row prints one load's figures, and its share of a reference load's rate
// when one is given.
func row(name string, r, ref result) {
	ratio := ""
	if ref.rps > 0 && r.rps != ref.rps {
		ratio = fmt.Sprintf("  (%.0f%% of the reference)", 100*r.rps/ref.rps)
	}
	errs := ""
	if r.errors > 0 {
		errs = fmt.Sprintf("  %d errors", r.errors)
	}
	fmt.Printf("%-34s %12.0f %10s %10s%s%s\n", name, r.rps, r.p50.Round(time.Microsecond), r.p99.Round(time.Microsecond), ratio, errs)
}

// pairRow loads Trawl and its floor in turn, pairs times each, and prints
// the medians and the ratio of requests per second.
func pairRow(name string, trawl, floor http.Handler, path, token string, c int, d time.Duration, pairs int) {
	var tr, fl []result
	for range pairs {
		tr = append(tr, load(trawl, path, token, c, d))
		fl = append(fl, load(floor, path, token, c, d))
	}
	t, f := median(tr), median(fl)
	errs := ""
	if n := sumErrors(tr) + sumErrors(fl); n > 0 {
		errs = fmt.Sprintf("  %d errors", n)
	}
	// The ratio is the median of each pair's own ratio: a pair's two runs
	// are seconds apart, so what else the machine does weighs on both.
	ratios := make([]float64, 0, pairs)
	for i := range tr {
		if fl[i].rps > 0 {
			ratios = append(ratios, tr[i].rps/fl[i].rps)
		}
	}
	ratio := 0.0
	if len(ratios) > 0 {
		slices.Sort(ratios)
		ratio = ratios[len(ratios)/2]
	}
	fmt.Printf("%-40s %10.0f %9s %9s   %10.0f %9s %9s   %6.2f%s\n", name,
		t.rps, t.p50.Round(time.Microsecond), t.p99.Round(time.Microsecond),
		f.rps, f.p50.Round(time.Microsecond), f.p99.Round(time.Microsecond), ratio, errs)
}

func median(rs []result) result {
	by := func(key func(result) float64) float64 {
		v := make([]float64, len(rs))
		for i, r := range rs {
			v[i] = key(r)
		}
		slices.Sort(v)
		return v[len(v)/2]
	}
	return result{
		rps: by(func(r result) float64 { return r.rps }),
		p50: time.Duration(by(func(r result) float64 { return float64(r.p50) })),
		p99: time.Duration(by(func(r result) float64 { return float64(r.p99) })),
	}
}

func sumErrors(rs []result) (n int64) {
	for _, r := range rs {
		n += r.errors
	}
	return n
}

type pageServer struct {
	srv        *http.Server
	host, addr string
}

func (p pageServer) Close() { p.srv.Close() }

// tinyPage serves a small HTML page on loopback, reached as page.test.
func tinyPage() pageServer {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	srv := &http.Server{ReadHeaderTimeout: 5 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = io.WriteString(w, `<!doctype html><html><head><title>Tiny</title></head><body><p>A tiny page.</p></body></html>`)
	})}
	go func() { _ = srv.Serve(ln) }()
	return pageServer{srv: srv, host: "page.test", addr: ln.Addr().String()}
}

func runtimeProcs() int { return runtimeGOMAXPROCS() }

type result struct {
	rps      float64
	p50, p99 time.Duration
	errors   int64
}

// load serves h on a loopback listener and hammers it with c clients, all
// sending token ("" sends none).
func load(h http.Handler, path, token string, c int, d time.Duration) result {
	tokens := make([]string, c)
	for i := range tokens {
		tokens[i] = token
	}
	return loadTokens(h, path, tokens, d)
}

type built struct {
	handler      http.Handler
	token        string
	svc          *service.Services
	floorAccount int64
}

// build wires the real API over a store, with the per-minute limits lifted
// and page.test resolved to the tiny page, and returns a token of a Business
// account with credits for the whole run, and a second account the floor
// charges.
func build(s *sqlstore.Store, pageHost, pageAddr string) (built, error) {
	return buildWith(s, pageHost, pageAddr, false)
}

// buildWith is build, with the browser off when browserOff is set (every
// page is then read over HTTP, as the content figure measures).
func buildWith(s *sqlstore.Store, pageHost, pageAddr string, browserOff bool) (built, error) {
	clk := clock.System{}
	pay, _ := payment.NewLocal(s, clk, "http://127.0.0.1")
	cfg := app.DefaultConfig()
	cfg.BrowserOff = browserOff
	cfg.DataDir, _ = os.MkdirTemp("", "trawl-bench-data")
	cfg.Resolve = []string{pageHost + ":80=" + pageAddr}
	out, err := app.NewOutbound(cfg, app.Observers{})
	if err != nil {
		return built{}, err
	}
	lim, _ := limiter.NewMemory(clk)
	opts := cfg.ServiceOptions()
	opts.Plans = liftedPlans()
	svc, err := service.New(app.SQLStore(s).Stores, out.With(clk, pay, lim), opts)
	if err != nil {
		return built{}, err
	}
	api, _, err := app.NewHandler(svc, app.HandlerOptions{Ready: s.Ping, MaxBody: cfg.MaxBody, Files: out.Files})
	if err != nil {
		return built{}, err
	}
	ctx := context.Background()
	var ids [2]int64
	for i := range ids {
		acct, err := svc.Auth.CreateAccount(ctx, fmt.Sprintf("bench-%d-%d@example.com", time.Now().UnixNano(), i), "Bench", "business")
		if err != nil {
			return built{}, err
		}
		if err := svc.Credits.Grant(ctx, acct.ID, 100_000_000); err != nil {
			return built{}, err
		}
		ids[i] = acct.ID
	}
	tok, err := svc.Auth.CreateToken(ctx, ids[0], "bench")
	if err != nil {
		return built{}, err
	}
	return built{handler: api.Handler(), token: tok.Secret, svc: svc, floorAccount: ids[1]}, nil
}

// ledgerOps runs reserve+settle of 1 credit from c workers for d, on one
// account (every operation contends for one row lock) or one account each.
func ledgerOps(s *sqlstore.Store, svc *service.Services, c int, d time.Duration, spread bool) float64 {
	ctx := context.Background()
	accounts := make([]int64, c)
	for i := range accounts {
		if i > 0 && !spread {
			accounts[i] = accounts[0]
			continue
		}
		a, err := svc.Auth.CreateAccount(ctx, fmt.Sprintf("ledger-%d-%d@example.com", time.Now().UnixNano(), i), "L", "business")
		if err != nil {
			log.Fatal(err)
		}
		if err := svc.Credits.Grant(ctx, a.ID, 10_000_000); err != nil {
			log.Fatal(err)
		}
		accounts[i] = a.ID
	}
	var ops atomic.Int64
	deadline := time.Now().Add(d)
	var wg sync.WaitGroup
	start := time.Now()
	for i := range c {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(deadline) {
				h, err := svc.Ledger.Reserve(ctx, ports.ReserveRequest{AccountID: accounts[i], Amount: 1})
				if err != nil {
					log.Fatal(err)
				}
				if _, err := svc.Ledger.Settle(ctx, h, ports.Charge{Credits: 1, ServiceType: "content", ServiceName: "Content Extraction"}); err != nil {
					log.Fatal(err)
				}
				ops.Add(1)
			}
		}()
	}
	wg.Wait()
	return float64(ops.Load()) / time.Since(start).Seconds()
}

func openPostgres(admin string) (*sqlstore.Store, func(), error) {
	db, err := sql.Open("postgres", admin)
	if err != nil {
		return nil, nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, nil, fmt.Errorf("postgres unreachable at %s", admin)
	}
	name := fmt.Sprintf("trawl_bench_%d", time.Now().UnixNano())
	if _, err := db.Exec("CREATE DATABASE " + name); err != nil {
		db.Close()
		return nil, nil, err
	}
	u := replaceDB(admin, name)
	s, err := sqlstore.Open(context.Background(), sqlstore.Options{DatabaseURL: u})
	if err != nil {
		db.Close()
		return nil, nil, err
	}
	return s, func() {
		s.Close()
		_, _ = db.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)")
		db.Close()
	}, nil
}
