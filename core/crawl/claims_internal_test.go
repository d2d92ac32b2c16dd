package crawl

import (
	"slices"
	"testing"
	"time"

	"github.com/trawlhq/trawl/ports"
)

func ids(us []ports.CrawlURL) []int64 {
	out := []int64{}
	for _, u := range us {
		out = append(out, u.ID)
	}
	return out
}

func urls(from, to int64) []ports.CrawlURL {
	var out []ports.CrawlURL
	for id := from; id <= to; id++ {
		out = append(out, ports.CrawlURL{ID: id})
	}
	return out
}

// URLs claimed ahead keep their own claim's time: those claimed first go
// back first, and a claim made later does not keep an older one waiting
// past its lease, nor send back a newer one with it.
func TestClaimQueue(t *testing.T) {
	t0 := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	var q claimQueue
	if !q.low(8) {
		t.Fatal("an empty queue does not ask for a claim")
	}
	q.add(urls(1, 8), t0)
	if q.low(8) {
		t.Fatal("eight URLs waiting ask for a claim")
	}
	if got := ids(q.take(3)); !slices.Equal(got, []int64{1, 2, 3}) {
		t.Fatalf("take(3) = %v", got)
	}
	if q.low(8) || ids(q.take(1))[0] != 4 || !q.low(8) {
		t.Fatal("a claim is asked for once at most half the concurrency waits (4 of 8)")
	}
	q.add(urls(9, 16), t0.Add(40*time.Second))
	if got := ids(q.expired(t0.Add(59*time.Second), time.Minute)); len(got) != 0 {
		t.Fatalf("expired before their time: %v", got)
	}
	if got := ids(q.expired(t0.Add(time.Minute), time.Minute)); !slices.Equal(got, []int64{5, 6, 7, 8}) {
		t.Fatalf("expired at the first claim's age = %v, want the first claim's four left", got)
	}
	if q.len() != 8 || ids(q.take(1))[0] != 9 {
		t.Fatalf("left %d, the second claim's kept", q.len())
	}
	if got := ids(q.take(20)); len(got) != 7 || q.len() != 0 {
		t.Fatalf("take(20) = %v, left %d", got, q.len())
	}
}
