// Command trawl-bench-extract measures main-content extraction on a split of
// the article-extraction benchmark (a directory with html/<id>.html.gz and
// ground-truth.json): F1, precision, recall and per-page time of Trawl's
// extractor beside go-trafilatura and go-readability, in one run.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"log"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"time"

	readability "github.com/go-shiori/go-readability"
	trafilatura "github.com/markusmobius/go-trafilatura"

	"github.com/trawlhq/trawl/adapters/extract"
	"github.com/trawlhq/trawl/adapters/extract/extractbench"
	"github.com/trawlhq/trawl/ports"
)

type extractor struct {
	name string
	run  func(html []byte) string
}

func main() {
	dir := flag.String("dir", "testdata/extraction/dev", "benchmark split directory")
	rounds := flag.Int("rounds", 3, "timed passes over the split (the median is over every page of every pass)")
	out := flag.String("out", "", "write each extractor's predictions to <out>/<name>/<id>.txt (for score.py)")
	flag.Parse()
	log.SetFlags(0)
	pages, err := extractbench.Load(*dir)
	if err != nil {
		log.Fatalf("load %s: %v", *dir, err)
	}
	fake, _ := url.Parse("https://fake-url.com")
	trawl := extract.New()
	extractors := []extractor{
		{"trawl", func(h []byte) string {
			r, err := trawl.Extract(context.Background(), ports.ExtractRequest{URL: fake.String(), HTML: h})
			if err != nil {
				return ""
			}
			return r.Text
		}},
		{"go-trafilatura", func(h []byte) string {
			r, err := trafilatura.Extract(bytes.NewReader(h), trafilatura.Options{OriginalURL: fake})
			if err != nil || r == nil {
				return ""
			}
			return r.ContentText
		}},
		{"go-readability", func(h []byte) string {
			a, err := readability.FromReader(bytes.NewReader(h), fake)
			if err != nil {
				return ""
			}
			return a.TextContent
		}},
	}
	fmt.Printf("%d pages from %s, %d timed rounds\n\n", len(pages), *dir, *rounds)
	fmt.Printf("%-16s %7s %10s %8s %6s %12s %12s\n", "extractor", "F1", "precision", "recall", "empty", "median ms", "p95 ms")
	for _, x := range extractors {
		rows := make([]extractbench.PageScore, len(pages))
		var times []time.Duration
		for round := 0; round <= *rounds; round++ { // round 0 warms up and scores
			for i, p := range pages {
				start := time.Now()
				text := x.run(p.HTML)
				d := time.Since(start)
				if round == 0 {
					rows[i] = extractbench.ScorePage(p.ID, p.Truth, text)
					if *out != "" {
						d := filepath.Join(*out, x.name)
						_ = os.MkdirAll(d, 0o755)
						_ = os.WriteFile(filepath.Join(d, p.ID+".txt"), []byte(text), 0o644)
					}
					continue
				}
				times = append(times, d)
			}
		}
		s := extractbench.Aggregate(rows)
		sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
		med, p95 := 0.0, 0.0
		if len(times) > 0 {
			med, p95 = ms(times[len(times)/2]), ms(times[len(times)*95/100])
		}
		fmt.Printf("%-16s %7.4f %10.4f %8.4f %6d %12.2f %12.2f\n", x.name, s.F1, s.Precision, s.Recall, s.Empty, med, p95)
	}
	fmt.Println("\ntrawl's time covers its whole output: clean HTML, Markdown, text, metadata and language.")
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
