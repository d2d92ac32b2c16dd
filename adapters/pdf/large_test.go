package pdf

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/trawlhq/trawl/bench/extractbench"
	"github.com/trawlhq/trawl/ports"
)

// TestLargeDocument converts the 300-page corpus PDF in full and reports
// time, memory and accuracy; the reader's memory cap is well below the
// default, so the default has room.
func TestLargeDocument(t *testing.T) {
	if testing.Short() {
		t.Skip("300 pages")
	}
	skipUnderRace(t)
	c := New(Options{MemoryLimitBytes: 64 << 20, Workers: 1, CacheDir: cacheDir, Exec: Executable()})
	defer c.Close()
	warm(t, c)
	body := read(t, "large.pdf")
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	ex, err := c.Convert(context.Background(), ports.DocumentRequest{Format: ports.DocumentPDF, Body: body})
	took := time.Since(start)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	s := extractbench.ScorePage("large", string(read(t, "source/large.txt")), ex.Text)
	f1 := 2 * s.Precision * s.Recall / (s.Precision + s.Recall)
	t.Logf("large.pdf: %d pages in %v (%.1f ms/page), Go allocations %d MiB, F1 %.3f", ex.Metadata.PageCount, took.Round(time.Millisecond),
		float64(took.Milliseconds())/300, (after.TotalAlloc-before.TotalAlloc)>>20, f1)
	if ex.Metadata.PageCount != 300 || ex.Warning != "" || f1 < 0.97 || !strings.Contains(ex.Markdown, "# Register 300\n") {
		t.Fatalf("pages %d, warning %q, F1 %.3f", ex.Metadata.PageCount, ex.Warning, f1)
	}
}
