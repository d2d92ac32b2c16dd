// Command trawl-bench measures the foundation's figures on this machine:
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
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	_ "github.com/lib/pq"

	"github.com/trawlhq/trawl/adapters/clock"
	"github.com/trawlhq/trawl/adapters/payment"
	"github.com/trawlhq/trawl/adapters/ratelimit"
	"github.com/trawlhq/trawl/adapters/sqlstore"
	"github.com/trawlhq/trawl/app"
	"github.com/trawlhq/trawl/ports"
	"github.com/trawlhq/trawl/testkit/pgtest"
)

func main() {
	duration := flag.Duration("duration", 5*time.Second, "how long each load runs")
	conc := flag.Int("c", 32, "concurrent clients")
	pgURL := flag.String("postgres", pgtest.ServerURL(), "admin URL of a Postgres server (a scratch database is created)")
	only := flag.String("only", "", "run one figure: limiters")
	flag.Parse()
	log.SetFlags(0)
	if *only == "limiters" {
		limiterFigure(*pgURL, *conc, *duration)
		return
	}

	fmt.Printf("trawl-bench: %d clients, %s per load, GOMAXPROCS=%d\n\n", *conc, *duration, runtimeProcs())
	fmt.Printf("%-34s %12s %10s %10s\n", "HTTP load", "requests/s", "p50", "p99")

	hello := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "hello\n") })
	helloRes := load(hello, "", *conc, *duration)
	row("hello-world net/http", helloRes, helloRes)

	stores := []struct {
		name string
		open func() (*sqlstore.Store, func(), error)
	}{
		{"sqlite", func() (*sqlstore.Store, func(), error) {
			dir, err := os.MkdirTemp("", "trawl-bench")
			if err != nil {
				return nil, nil, err
			}
			s, err := sqlstore.Open(context.Background(), sqlstore.Options{DataDir: dir})
			return s, func() { s.Close(); os.RemoveAll(dir) }, err
		}},
		{"postgres", func() (*sqlstore.Store, func(), error) { return openPostgres(*pgURL) }},
	}
	type ledgerFig struct {
		name      string
		contended float64
		spread    float64
		err       error
	}
	var ledgers []ledgerFig
	for _, st := range stores {
		s, closeFn, err := st.open()
		if err != nil {
			fmt.Printf("%-34s skipped: %v\n", "GET /v1/credits ("+st.name+")", err)
			ledgers = append(ledgers, ledgerFig{name: st.name, err: err})
			continue
		}
		handler, token, svc, err := build(s)
		if err != nil {
			log.Fatal(err)
		}
		res := load(handler, token, *conc, *duration)
		row("GET /v1/credits ("+st.name+")", res, helloRes)
		contended := ledgerOps(s, svc, *conc, *duration, false)
		spread := ledgerOps(s, svc, *conc, *duration, true)
		ledgers = append(ledgers, ledgerFig{name: st.name, contended: contended, spread: spread})
		closeFn()
	}
	fmt.Printf("\n%-34s %16s %16s\n", "Ledger reserve+settle", "one account", fmt.Sprintf("%d accounts", *conc))
	for _, l := range ledgers {
		if l.err != nil {
			fmt.Printf("%-34s skipped\n", l.name)
			continue
		}
		fmt.Printf("%-34s %12.0f op/s %12.0f op/s\n", l.name, l.contended, l.spread)
	}
	mapFigure()
	bulkFigure()
	limiterFigure(*pgURL, *conc, *duration)
}

func runtimeProcs() int { return runtimeGOMAXPROCS() }

type result struct {
	rps      float64
	p50, p99 time.Duration
	errors   int64
}

func row(name string, r, hello result) {
	ratio := ""
	if hello.rps > 0 && r.rps != hello.rps {
		ratio = fmt.Sprintf("  (%.0f%% of hello-world)", 100*r.rps/hello.rps)
	}
	errs := ""
	if r.errors > 0 {
		errs = fmt.Sprintf("  %d errors", r.errors)
	}
	fmt.Printf("%-34s %12.0f %10s %10s%s%s\n", name, r.rps, r.p50.Round(time.Microsecond), r.p99.Round(time.Microsecond), ratio, errs)
}

// load serves h on a loopback listener and hammers it with c clients.
func load(h http.Handler, token string, c int, d time.Duration) result {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	url := "http://" + ln.Addr().String() + "/v1/credits"
	client := &http.Client{Transport: &http.Transport{MaxIdleConns: c * 2, MaxIdleConnsPerHost: c * 2}, Timeout: 10 * time.Second}

	var mu sync.Mutex
	var lat []time.Duration
	var errs atomic.Int64
	deadline := time.Now().Add(d)
	var wg sync.WaitGroup
	for range c {
		wg.Add(1)
		go func() {
			defer wg.Done()
			local := make([]time.Duration, 0, 4096)
			for time.Now().Before(deadline) {
				req, _ := http.NewRequest("GET", url, nil)
				if token != "" {
					req.Header.Set("Authorization", "Bearer "+token)
				}
				t0 := time.Now()
				res, err := client.Do(req)
				if err != nil {
					errs.Add(1)
					continue
				}
				_, _ = io.Copy(io.Discard, res.Body)
				res.Body.Close()
				if res.StatusCode != 200 {
					errs.Add(1)
				}
				local = append(local, time.Since(t0))
			}
			mu.Lock()
			lat = append(lat, local...)
			mu.Unlock()
		}()
	}
	start := time.Now()
	wg.Wait()
	elapsed := time.Since(start)
	slices.Sort(lat)
	if len(lat) == 0 {
		return result{errors: errs.Load()}
	}
	return result{rps: float64(len(lat)) / elapsed.Seconds(), p50: lat[len(lat)/2], p99: lat[len(lat)*99/100], errors: errs.Load()}
}

// build wires the real API over a store and returns a token of a Business account.
func build(s *sqlstore.Store) (http.Handler, string, app.Services, error) {
	clk := clock.System{}
	pay, _ := payment.NewLocal(s, clk, "http://127.0.0.1")
	cfg := app.DefaultConfig()
	cfg.DataDir, _ = os.MkdirTemp("", "trawl-bench-data")
	out, err := app.NewOutbound(cfg)
	if err != nil {
		return nil, "", app.Services{}, err
	}
	lim, _ := ratelimit.NewMemory(clk)
	svc, err := app.NewServices(app.SQLStores(s), clk, pay, lim, out, cfg.ServiceOptions(), nil)
	if err != nil {
		return nil, "", svc, err
	}
	api, _, err := app.NewHandler(svc, out, app.HandlerOptions{Ready: s.Ping, MaxBody: cfg.MaxBody})
	if err != nil {
		return nil, "", svc, err
	}
	ctx := context.Background()
	acct, err := svc.Auth.CreateAccount(ctx, fmt.Sprintf("bench-%d@example.com", time.Now().UnixNano()), "Bench", "business")
	if err != nil {
		return nil, "", svc, err
	}
	tok, err := svc.Auth.CreateToken(ctx, acct.ID, "bench")
	if err != nil {
		return nil, "", svc, err
	}
	return api.Handler(), tok.Secret, svc, nil
}

// ledgerOps runs reserve+settle of 1 credit from c workers for d, on one
// account (every operation contends for one row lock) or one account each.
func ledgerOps(s *sqlstore.Store, svc app.Services, c int, d time.Duration, spread bool) float64 {
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
