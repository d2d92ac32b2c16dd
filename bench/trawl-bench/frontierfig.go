package main

import (
	"context"
	"fmt"
	"log"
	"sync"
	"sync/atomic"
	"time"

	"github.com/trawlhq/trawl/adapters/clock"
	"github.com/trawlhq/trawl/core/auth"
	"github.com/trawlhq/trawl/core/billing"
	"github.com/trawlhq/trawl/ports"
)

// frontierFigure measures the PostgreSQL frontier (crawl_urls): how fast
// it takes a batch insert while it fills to queued URLs, then the steady
// insert-and-claim rate with that many URLs queued (workers each adding 10
// new URLs, claiming 10 and finishing them, as a crawl does), beside the
// same loop on a frontier of 10,000 queued URLs measured in the same run.
func frontierFigure(pgURL string, queued int) {
	fmt.Printf("\nFrontier on PostgreSQL: one crawl, 100 hosts, 8 workers each adding 10 URLs, claiming 10 and finishing them, for 10 s\n")
	s, closeFn, err := openPostgres(pgURL)
	if err != nil {
		fmt.Printf("%-44s skipped: %v\n", "frontier", err)
		return
	}
	defer closeFn()
	ctx := context.Background()
	a, err := auth.NewService(s, s, clock.System{}, billing.DefaultPlans())
	if err != nil {
		log.Fatal(err)
	}
	acct, err := a.CreateAccount(ctx, "frontier@example.com", "Frontier", "business")
	if err != nil {
		log.Fatal(err)
	}
	newCrawl := func(id string) {
		job := ports.BulkJob{ID: id, AccountID: acct.ID, Status: ports.JobProcessing, URLSource: "crawl", QueuedAt: time.Now(), Kind: ports.KindCrawl}
		if err := s.CreateCrawl(ctx, job, ports.Crawl{URL: "http://h0.test/", Limit: 1 << 30, MaxDepth: 20, Params: []byte(`{}`)}); err != nil {
			log.Fatal(err)
		}
	}
	// fill queues n URLs through the store's AddCrawlURLs, in batches of
	// 5,000 as a crawl's pages add them.
	fill := func(id string, n int) time.Duration {
		start := time.Now()
		const batch = 5000
		for i := 0; i < n; i += batch {
			urls := make([]ports.CrawlURL, 0, batch)
			for j := i; j < min(i+batch, n); j++ {
				u := fmt.Sprintf("http://h%d.test/p/%d", j%100, j)
				urls = append(urls, ports.CrawlURL{URL: u, Key: u, Host: fmt.Sprintf("h%d.test", j%100), Depth: 1 + j%5, State: ports.CrawlQueued})
			}
			if _, err := s.AddCrawlURLs(ctx, id, urls, 1<<30); err != nil {
				log.Fatal(err)
			}
		}
		return time.Since(start)
	}
	// bulkFill queues n URLs in one statement: only the state the
	// measure starts from, not a rate.
	bulkFill := func(id string, n int) {
		if _, err := s.DB().ExecContext(ctx, `INSERT INTO crawl_urls (crawl_id, url_key, url, host, depth, state)
			SELECT $1, 'http://h' || (g % 100) || '.test/p/' || g, 'http://h' || (g % 100) || '.test/p/' || g, 'h' || (g % 100) || '.test', 1 + g % 5, 'queued'
			FROM generate_series(1, $2) AS g`, id, n); err != nil {
			log.Fatal(err)
		}
		if _, err := s.DB().ExecContext(ctx, `ANALYZE crawl_urls`); err != nil {
			log.Fatal(err)
		}
	}
	steady := func(id string) (float64, float64) {
		var added, claimed atomic.Int64
		var next atomic.Int64
		next.Store(1 << 40)
		deadline := time.Now().Add(10 * time.Second)
		var wg sync.WaitGroup
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for time.Now().Before(deadline) {
					urls := make([]ports.CrawlURL, 10)
					for k := range urls {
						j := next.Add(1)
						u := fmt.Sprintf("http://h%d.test/n/%d", j%100, j)
						urls[k] = ports.CrawlURL{URL: u, Key: u, Host: fmt.Sprintf("h%d.test", j%100), Depth: 2, State: ports.CrawlQueued}
					}
					// As a crawl far from a host's cap adds them: no count.
					n, err := s.AddCrawlURLs(ctx, id, urls, 0)
					if err != nil {
						log.Fatal(err)
					}
					added.Add(int64(n))
					got, err := s.ClaimCrawlURLs(ctx, id, 10, 1<<30, time.Now(), time.Minute)
					if err != nil {
						log.Fatal(err)
					}
					for _, u := range got {
						u.State, u.Content = ports.CrawlSucceeded, []byte(`{}`)
						if err := s.FinishCrawlURL(ctx, u, time.Now()); err != nil {
							log.Fatal(err)
						}
					}
					claimed.Add(int64(len(got)))
				}
			}()
		}
		wg.Wait()
		return float64(added.Load()) / 10, float64(claimed.Load()) / 10
	}
	newCrawl("crawl_frontier_small")
	took := fill("crawl_frontier_small", 10_000)
	fmt.Printf("%-44s %10.0f URLs/s   (AddCrawlURLs, batches of 5,000, into an empty frontier)\n", "  queueing 10,000 URLs", 10_000/took.Seconds())
	sAdd, sClaim := steady("crawl_frontier_small")
	newCrawl("crawl_frontier_large")
	start := time.Now()
	bulkFill("crawl_frontier_large", queued)
	fmt.Printf("%-44s %10s   (one INSERT ... SELECT, to reach the state measured)\n", fmt.Sprintf("  %d URLs queued in", queued), time.Since(start).Round(time.Second))
	lAdd, lClaim := steady("crawl_frontier_large")
	fmt.Printf("%-44s %14s %14s %8s\n", "", fmt.Sprintf("at %d", queued), "at 10,000", "ratio")
	fmt.Printf("%-44s %14.0f %14.0f %8.2f\n", "  URLs inserted/s", lAdd, sAdd, lAdd/sAdd)
	fmt.Printf("%-44s %14.0f %14.0f %8.2f\n", "  URLs claimed and finished/s", lClaim, sClaim, lClaim/sClaim)
	var size string
	_ = s.DB().QueryRowContext(ctx, `SELECT pg_size_pretty(pg_total_relation_size('crawl_urls'))`).Scan(&size)
	fmt.Printf("%-44s %12s\n", "  crawl_urls with its indexes", size)
}
