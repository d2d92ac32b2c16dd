package main

import (
	"context"
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

	"github.com/trawlhq/trawl/adapters/clock"
	"github.com/trawlhq/trawl/adapters/limiter"
	"github.com/trawlhq/trawl/adapters/payment"
	"github.com/trawlhq/trawl/adapters/sqlstore"
	"github.com/trawlhq/trawl/app"
	"github.com/trawlhq/trawl/core/ratelimit"
	"github.com/trawlhq/trawl/core/service"
	"github.com/trawlhq/trawl/ports"
	"github.com/trawlhq/trawl/testkit/redistest"
)

// limiterFigure drives GET /v1/scrape (limited, fetched from a loopback
// page, charged on Postgres) through one node with each rate limiter in
// turn, in the same run: every call is counted by the limiter and allowed
// (limits raised so the figure measures decisions, not refusals), c clients
// on c accounts.
func limiterFigure(pgURL string, c int, d time.Duration) {
	fmt.Printf("\n%-34s %12s %10s %10s\n", "GET /v1/scrape, Postgres store", "requests/s", "p50", "p99")
	s, closeFn, err := openPostgres(pgURL)
	if err != nil {
		fmt.Printf("%-34s skipped: %v\n", "limiters", err)
		return
	}
	defer closeFn()
	page := http.NewServeMux()
	page.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = io.WriteString(w, "<html><head><title>Bench</title></head><body><p>A page.</p></body></html>")
	})
	pln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	psrv := &http.Server{Handler: page, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = psrv.Serve(pln) }()
	defer psrv.Close()

	clk := clock.System{}
	cfg := app.DefaultConfig()
	cfg.DataDir, _ = os.MkdirTemp("", "trawl-bench-data")
	defer os.RemoveAll(cfg.DataDir)
	cfg.Resolve = []string{"bench.test:80=" + pln.Addr().String()}
	out, err := app.NewOutbound(cfg, app.Observers{})
	if err != nil {
		log.Fatal(err)
	}
	pay, _ := payment.NewLocal(s, clk, "http://127.0.0.1")
	accounts, err := service.New(app.SQLStore(s).Stores, service.Outbound{Clock: clk, Payments: pay}, cfg.ServiceOptions())
	if err != nil {
		log.Fatal(err)
	}
	auth := accounts.Auth
	ctx := context.Background()
	tokens := make([]string, c)
	for i := range tokens {
		acct, err := auth.CreateAccount(ctx, fmt.Sprintf("lim-%d-%d@example.com", i, time.Now().UnixNano()), "Bench", "business")
		if err != nil {
			log.Fatal(err)
		}
		tok, err := auth.CreateToken(ctx, acct.ID, "bench")
		if err != nil {
			log.Fatal(err)
		}
		tokens[i] = tok.Secret
	}

	mem, _ := limiter.NewMemory(clk)
	limiters := []struct {
		name string
		lim  ports.RateLimiter
	}{{"memory", mem}}
	rc, err := limiter.NewRedisClient(redistest.ServerURL())
	if err == nil && rc.Ping(ctx).Err() == nil {
		prefix := fmt.Sprintf("trawl-bench:%d:", time.Now().UnixNano())
		defer func() {
			iter := rc.Scan(ctx, 0, prefix+"*", 100).Iterator()
			for iter.Next(ctx) {
				rc.Del(ctx, iter.Val())
			}
			rc.Close()
		}()
		red, _ := limiter.NewRedis(rc, clk, limiter.RedisOptions{Prefix: prefix})
		limiters = append(limiters, struct {
			name string
			lim  ports.RateLimiter
		}{"redis", red})
	} else {
		fmt.Printf("%-34s skipped: redis unreachable at %s\n", "redis", redistest.ServerURL())
	}
	pg, _ := sqlstore.NewRateLimiter(s, clk)
	limiters = append(limiters, struct {
		name string
		lim  ports.RateLimiter
	}{"postgres", pg}, struct {
		name string
		lim  ports.RateLimiter
	}{"memory (again)", mem})
	opts := cfg.ServiceOptions()
	opts.Plans = liftedPlans(string(ratelimit.Scrape))
	for _, l := range limiters {
		svc, err := service.New(app.SQLStore(s).Stores, out.With(clk, pay, l.lim), opts)
		if err != nil {
			log.Fatal(err)
		}
		api, _, err := app.NewHandler(svc, app.HandlerOptions{Ready: s.Ping, MaxBody: cfg.MaxBody, Files: out.Files})
		if err != nil {
			log.Fatal(err)
		}
		row("limiter "+l.name, loadTokens(api.Handler(), "/v1/scrape?url=http://bench.test/", tokens, d), result{})
	}
}

// loadTokens serves h on loopback and hammers path with one client per
// token ("" sends no Authorization header).
func loadTokens(h http.Handler, path string, tokens []string, d time.Duration) result {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	url := "http://" + ln.Addr().String() + path
	client := &http.Client{Transport: &http.Transport{MaxIdleConns: len(tokens) * 2, MaxIdleConnsPerHost: len(tokens) * 2}, Timeout: 10 * time.Second}
	var mu sync.Mutex
	var lat []time.Duration
	var errs atomic.Int64
	deadline := time.Now().Add(d)
	var wg sync.WaitGroup
	for _, tok := range tokens {
		wg.Add(1)
		go func() {
			defer wg.Done()
			local := make([]time.Duration, 0, 4096)
			for time.Now().Before(deadline) {
				req, _ := http.NewRequest("GET", url, nil)
				if tok != "" {
					req.Header.Set("Authorization", "Bearer "+tok)
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
	if len(lat) == 0 {
		return result{errors: errs.Load()}
	}
	slices.Sort(lat)
	return result{rps: float64(len(lat)) / elapsed.Seconds(), p50: lat[len(lat)/2], p99: lat[len(lat)*99/100], errors: errs.Load()}
}
