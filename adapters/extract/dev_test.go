package extract

import (
	"fmt"
	"os"
	"sort"
	"testing"
	"time"

	"github.com/trawlhq/trawl/adapters/extract/extractbench"
)

func TestDevScore(t *testing.T) {
	pages, err := extractbench.Load("../../testdata/extraction/dev")
	if err != nil {
		t.Fatal(err)
	}
	var rows []extractbench.PageScore
	var times []time.Duration
	dump := os.Getenv("DUMP")
	for _, p := range pages {
		t0 := time.Now()
		c, _, err := mainContent(p.HTML)
		text := ""
		if err == nil && c != nil {
			text = renderText(c)
		}
		times = append(times, time.Since(t0))
		rows = append(rows, extractbench.ScorePage(p.ID, p.Truth, text))
		if dump != "" {
			os.MkdirAll(dump, 0o755)
			os.WriteFile(dump+"/"+p.ID+".txt", []byte(text), 0o644)
		}
	}
	s := extractbench.Aggregate(rows)
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	t.Logf("F1 %.4f P %.4f R %.4f empty %d median %v p95 %v", s.F1, s.Precision, s.Recall, s.Empty, times[len(times)/2], times[len(times)*95/100])
	sort.Slice(rows, func(i, j int) bool {
		return rows[i].Precision*rows[i].Recall < rows[j].Precision*rows[j].Recall
	})
	for _, r := range rows[:12] {
		t.Log(fmt.Sprintf("%s P %.3f R %.3f", r.ID[:12], r.Precision, r.Recall))
	}
}
