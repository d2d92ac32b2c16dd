package extract_test

import (
	"context"
	"sort"
	"testing"
	"time"

	"github.com/trawlhq/trawl/adapters/extract"
	"github.com/trawlhq/trawl/adapters/extract/extractbench"
	"github.com/trawlhq/trawl/ports"
)

// benchDir is the development split of the public article-extraction
// benchmark (see testdata/extraction/README.md).
const benchDir = "../../testdata/extraction/dev"

// TestQualityBar: the extractor must beat go-trafilatura's F1 of 0.965 on
// the development split. The same measure is taken on pages kept apart.
func TestQualityBar(t *testing.T) {
	pages, err := extractbench.Load(benchDir)
	if err != nil {
		t.Fatal(err)
	}
	x := extract.New()
	rows := make([]extractbench.PageScore, 0, len(pages))
	times := make([]time.Duration, 0, len(pages))
	for _, p := range pages {
		start := time.Now()
		out, err := x.Extract(context.Background(), ports.ExtractRequest{URL: "https://fake-url.com", HTML: p.HTML})
		times = append(times, time.Since(start))
		if err != nil {
			t.Logf("%s: %v", p.ID[:12], err)
		}
		rows = append(rows, extractbench.ScorePage(p.ID, p.Truth, out.Text))
	}
	s := extractbench.Aggregate(rows)
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	t.Logf("F1 %.4f precision %.4f recall %.4f empty %d/%d; median %v p95 %v",
		s.F1, s.Precision, s.Recall, s.Empty, s.Pages, times[len(times)/2], times[len(times)*95/100])
	if s.F1 < 0.965 {
		t.Fatalf("F1 %.4f is below the bar of 0.965", s.F1)
	}
	if s.Empty > 0 {
		t.Errorf("%d pages gave no text", s.Empty)
	}
}

func BenchmarkExtract(b *testing.B) {
	pages, err := extractbench.Load(benchDir)
	if err != nil {
		b.Fatal(err)
	}
	x := extract.New()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		p := pages[i%len(pages)]
		_, _ = x.Extract(context.Background(), ports.ExtractRequest{URL: "https://fake-url.com", HTML: p.HTML})
	}
}
