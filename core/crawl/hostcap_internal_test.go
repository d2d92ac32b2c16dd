package crawl

import (
	"testing"

	"github.com/trawlhq/trawl/ports"
)

// The store counts a host's URLs (the cap) only once this run has sent it
// half the cap: below that, no host in a batch can be at the cap unless
// another node's run added to it.
func TestHostCapCheckedNearTheCap(t *testing.T) {
	cr := &run{c: ports.Crawl{Limit: 100}} // cap 1,000
	batch := func(host string, n int) []ports.CrawlURL {
		out := make([]ports.CrawlURL, n)
		for i := range out {
			out[i].Host = host
		}
		return out
	}
	for i, c := range []struct {
		add  []ports.CrawlURL
		want int
	}{
		{batch("a.test", 400), 0},
		{batch("b.test", 499), 0},
		{batch("a.test", 99), 0},
		{batch("a.test", 1), 1000},
		{append(batch("b.test", 1), batch("c.test", 1)...), 1000},
		{batch("c.test", 10), 0},
	} {
		if got := cr.hostCap(c.add); got != c.want {
			t.Errorf("batch %d: cap %d, want %d", i, got, c.want)
		}
	}
}
