package crawl

import (
	"time"

	"github.com/trawlhq/trawl/ports"
)

// claimQueue holds the URLs a run claimed and has not started, each with
// the time of its claim, oldest first.
type claimQueue struct {
	urls []ports.CrawlURL
	at   []time.Time
}

func (q *claimQueue) len() int { return len(q.urls) }

// low reports whether the run should claim again: at most half its
// concurrency of claimed URLs waits, so a worker that frees up finds one
// waiting rather than wait for a claim (a write, which waits for the
// store's writer).
func (q *claimQueue) low(concurrency int) bool { return len(q.urls) <= concurrency/2 }

// add queues URLs claimed at at.
func (q *claimQueue) add(urls []ports.CrawlURL, at time.Time) {
	q.urls = append(q.urls, urls...)
	for range urls {
		q.at = append(q.at, at)
	}
}

// take removes up to n URLs, the oldest claims first.
func (q *claimQueue) take(n int) []ports.CrawlURL {
	n = min(n, len(q.urls))
	out := q.urls[:n:n]
	q.urls, q.at = q.urls[n:], q.at[n:]
	return out
}

// expired removes the URLs claimed age or more before now: a URL whose
// lease ran out while it waits would be claimed again and counted out of
// the limit, so it goes back to the queue first.
func (q *claimQueue) expired(now time.Time, age time.Duration) []ports.CrawlURL {
	n := 0
	for n < len(q.at) && now.Sub(q.at[n]) >= age {
		n++
	}
	return q.take(n)
}
