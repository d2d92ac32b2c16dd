package main

import (
	"context"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/trawlhq/trawl/adapters/clock"
	"github.com/trawlhq/trawl/adapters/limiter"
	"github.com/trawlhq/trawl/adapters/payment"
	"github.com/trawlhq/trawl/adapters/sqlstore"
	"github.com/trawlhq/trawl/app"
	"github.com/trawlhq/trawl/core/bulk"
	"github.com/trawlhq/trawl/core/credits"
	"github.com/trawlhq/trawl/core/service"
	"github.com/trawlhq/trawl/ports"
)

// bulkFigure runs a bulk job of 100 URLs whose pages take 200 ms each to
// serve, through the real worker on SQLite, spread over 10 hosts and then on
// one host (where per-host politeness is the bound), and reports the wall
// time and the charges written.
func bulkFigure() {
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(200 * time.Millisecond)
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<html><body><article><p>Page %s. Tide pools warm quickly in summer, and the animals in them survive by hiding in shade and depth until the tide returns.</p></article></body></html>`, r.URL.Path)
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()

	fmt.Printf("\n%-34s %10s %14s %14s\n", "Bulk job, 100 URLs x 200 ms", "wall", "charges", "transactions")
	for _, hosts := range []int{10, 1} {
		dir, _ := os.MkdirTemp("", "trawl-bench-bulk")
		cfg := app.DefaultConfig()
		cfg.DataDir = dir
		for h := range hosts {
			cfg.Resolve = append(cfg.Resolve, fmt.Sprintf("site%d.test:80=%s", h, ln.Addr().String()))
		}
		store, err := sqlstore.Open(context.Background(), sqlstore.Options{DataDir: dir})
		if err != nil {
			log.Fatal(err)
		}
		clk := clock.System{}
		pay, _ := payment.NewLocal(store, clk, "http://127.0.0.1")
		out, err := app.NewOutbound(cfg, app.Observers{})
		if err != nil {
			log.Fatal(err)
		}
		lim, _ := limiter.NewMemory(clk)
		svc, err := service.New(app.SQLStore(store).Stores, out.With(clk, pay, lim), cfg.ServiceOptions())
		if err != nil {
			log.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		go svc.Worker.Run(ctx)
		acct, _ := svc.Auth.CreateAccount(ctx, "bulk@example.com", "Bulk", "business")
		var urls []string
		for i := range 100 {
			urls = append(urls, fmt.Sprintf("http://site%d.test/page-%d", i%hosts, i))
		}
		start := time.Now()
		ack, err := svc.Bulk.Submit(ctx, credits.Call{Principal: ports.Principal{Account: acct.Caller()}}, bulk.Request{URLs: urls, Email: true})
		if err != nil {
			log.Fatal(err)
		}
		var st bulk.Status
		for {
			st, err = svc.Bulk.Status(ctx, acct.ID, ack.JobID)
			if err == nil && (st.Job.Status == ports.JobCompleted || st.Job.Status == ports.JobFailed) {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		wall := time.Since(start)
		_, ok, _ := bulk.Counts(st.URLs)
		_, total, _ := store.Transactions(ctx, acct.ID, 1, 0)
		fmt.Printf("%-34s %10s %9d URLs %14d\n", fmt.Sprintf("  on %d host(s), %s", hosts, st.Job.Status), wall.Round(10*time.Millisecond), ok, total)
		cancel()
		store.Close()
		os.RemoveAll(dir)
	}
}
