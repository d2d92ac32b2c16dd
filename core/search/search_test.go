package search_test

import (
	"testing"
	"time"

	"github.com/trawlhq/trawl/core/search"
	"github.com/trawlhq/trawl/ports"
)

func TestSecondsTaken(t *testing.T) {
	for _, c := range []struct {
		took time.Duration
		want float64
	}{
		{0, 0},
		{4 * time.Millisecond, 0},
		{6 * time.Millisecond, 0.01},
		{1234 * time.Millisecond, 1.23},
		{1236 * time.Millisecond, 1.24},
		{12 * time.Second, 12},
	} {
		r := search.Results{Results: ports.SearchResults{TimeTaken: c.took}}
		if got := r.SecondsTaken(); got != c.want {
			t.Errorf("SecondsTaken(%v) = %v, want %v", c.took, got, c.want)
		}
	}
}
