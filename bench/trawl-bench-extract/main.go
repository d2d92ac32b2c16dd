// Command trawl-bench-extract measures main-content extraction on a
// benchmark split: F1, precision, recall and per-page time of Trawl's
// extractor beside go-trafilatura (with its fallback extractors on, the
// setting the public benchmarks use) and go-readability, in one run.
//
// A split is a directory with html/<id>.html.gz and ground-truth.json
// (the article-extraction benchmark's layout). When it also has meta.json
// (WCXB: a page type per id) the figures are given per page type; when it
// has snippets.json (WCXB and Trafilatura's evaluation corpus: passages the
// main content must and must not contain) the snippet figures are given too.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"hash/fnv"
	"log"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	readability "github.com/go-shiori/go-readability"
	trafilatura "github.com/markusmobius/go-trafilatura"

	"github.com/trawlhq/trawl/adapters/extract"
	"github.com/trawlhq/trawl/bench/extractbench"
	"github.com/trawlhq/trawl/ports"
)

type extractor struct {
	name string
	// run returns the text, and the Markdown when the extractor writes it.
	run   func(html []byte) (text, markdown string, err error)
	saved string // a directory of predictions to score instead of running
}

type result struct {
	rows     []extractbench.PageScore
	snippets []extractbench.SnippetCounts
	shapes   []extractbench.Structure // per page, for an extractor that writes Markdown
	times    [][]time.Duration        // per page, one per timed pass
	failures map[string]int           // trawl's refusals by message
}

func main() {
	dir := flag.String("dir", "testdata/extraction/dev", "benchmark split directory")
	rounds := flag.Int("rounds", 1, "timed passes over the split after the scoring pass (the median is over every page of every pass)")
	out := flag.String("out", "", "write each extractor's predictions to <out>/<name>/<id>.txt (for score.py and score_snippets.py)")
	only := flag.String("only", "", "comma-separated extractors to run (trawl, go-trafilatura, go-readability); all when empty")
	sample := flag.Int("sample", 0, "score a deterministic sample of about N pages (stratified by page type) instead of the whole split")
	fold := flag.String("fold", "auto", "case-fold snippets before matching: yes, no, or auto (yes when the split has page types, as WCXB scores)")
	worst := flag.Int("worst", 0, "list trawl's N worst pages by F1")
	cached := flag.String("cached", "", "score the extractors left out by -only from predictions saved earlier with -out in this directory (untimed)")
	half := flag.Int("half", 0, "keep only the pages whose domain falls in half 1 or 2 (a hash of the URL's host): tune on one, check on the other")
	kind := flag.String("type", "", "keep only the pages of this page type")
	flag.Parse()
	log.SetFlags(0)
	pages, err := extractbench.Load(*dir)
	if err != nil {
		log.Fatalf("load %s: %v", *dir, err)
	}
	if *half > 0 || *kind != "" {
		pages = filterPages(pages, *half, *kind)
	}
	if *sample > 0 {
		pages = sampleOf(pages, *sample)
	}
	typed, snipped, truthful := false, false, false
	for _, p := range pages {
		truthful = truthful || strings.TrimSpace(p.Truth) != ""
		typed = typed || p.Type != ""
		snipped = snipped || len(p.With)+len(p.Without) > 0
	}
	foldCase := *fold == "yes" || (*fold == "auto" && typed)

	fake, _ := url.Parse("https://fake-url.com")
	trawl := extract.New()
	all := []extractor{
		{name: "trawl", run: func(h []byte) (string, string, error) {
			r, err := trawl.Extract(context.Background(), ports.ExtractRequest{URL: fake.String(), HTML: h})
			return r.Text, r.Markdown, err
		}},
		{name: "go-trafilatura", run: func(h []byte) (string, string, error) {
			r, err := trafilatura.Extract(bytes.NewReader(h), trafilatura.Options{OriginalURL: fake, EnableFallback: true})
			if err != nil || r == nil {
				return "", "", err
			}
			return r.ContentText, "", nil
		}},
		{name: "go-readability", run: func(h []byte) (string, string, error) {
			a, err := readability.FromReader(bytes.NewReader(h), fake)
			if err != nil {
				return "", "", err
			}
			return a.TextContent, "", nil
		}},
	}
	var extractors []extractor
	for _, x := range all {
		if *only == "" || strings.Contains(","+*only+",", ","+x.name+",") {
			extractors = append(extractors, x)
		} else if *cached != "" {
			name := x.name
			extractors = append(extractors, extractor{name: name + " (saved)", run: func(h []byte) (string, string, error) {
				return "", "", nil
			}, saved: filepath.Join(*cached, name)})
		}
	}

	results := make([]result, len(extractors))
	for xi, x := range extractors {
		res := result{
			rows:     make([]extractbench.PageScore, len(pages)),
			snippets: make([]extractbench.SnippetCounts, len(pages)),
			shapes:   make([]extractbench.Structure, len(pages)),
			times:    make([][]time.Duration, len(pages)),
			failures: map[string]int{},
		}
		if x.saved != "" {
			for i, p := range pages {
				b, err := os.ReadFile(filepath.Join(x.saved, p.ID+".txt"))
				if err != nil {
					log.Fatalf("%s: %v", x.name, err)
				}
				res.rows[i] = extractbench.ScorePage(p.ID, p.Truth, string(b))
				res.snippets[i] = extractbench.ScoreSnippets(p, string(b), foldCase)
			}
		}
		results[xi] = res
	}
	// The extractors take turns on each page, so that a change in the
	// machine's load during the run weighs on each of them alike.
	for round := 0; round <= *rounds; round++ { // round 0 warms up and scores
		for i, p := range pages {
			for xi, x := range extractors {
				if x.saved != "" {
					continue
				}
				res := &results[xi]
				start := time.Now()
				text, markdown, err := x.run(p.HTML)
				d := time.Since(start)
				if round > 0 || *rounds == 0 {
					res.times[i] = append(res.times[i], d)
				}
				if round != 0 {
					continue
				}
				if err != nil && x.name == "trawl" {
					res.failures[failureClass(err)]++
				}
				res.rows[i] = extractbench.ScorePage(p.ID, p.Truth, text)
				res.snippets[i] = extractbench.ScoreSnippets(p, text, foldCase)
				if markdown != "" && truthful {
					res.shapes[i] = extractbench.CheckStructure(p.HTML, p.Truth, markdown)
				}
				if *out != "" {
					d := filepath.Join(*out, x.name)
					_ = os.MkdirAll(d, 0o755)
					_ = os.WriteFile(filepath.Join(d, p.ID+".txt"), []byte(text), 0o644)
				}
			}
		}
	}

	fmt.Printf("%d pages from %s, %d timed pass(es); go-trafilatura with EnableFallback: true\n", len(pages), *dir, *rounds)
	if truthful {
		fmt.Println("F1/precision/recall: 4-token shingles against the full-text truth, macro-averaged (score.py)")
	} else {
		fmt.Println("no full-text truth in this split: F1/precision/recall are not measured (-)")
	}
	if snipped {
		fmt.Printf("snippet F1/precision/recall: with/without passages, pooled (score_snippets.py%s)\n", map[bool]string{true: " --lower", false: ""}[foldCase])
	}
	fmt.Println()
	printTable("all pages", pages, extractors, results, func(extractbench.Page) bool { return true }, snipped, truthful)
	if typed {
		for _, t := range typesOf(pages) {
			printTable(t, pages, extractors, results, func(p extractbench.Page) bool { return p.Type == t }, snipped, truthful)
		}
		printSummary(pages, extractors, results)
	}
	if truthful {
		for xi, x := range extractors {
			if x.name == "trawl" {
				printStructure(pages, results[xi].shapes, typed)
			}
		}
	}
	for xi, x := range extractors {
		if len(results[xi].failures) > 0 {
			fmt.Printf("%s refusals:", x.name)
			for k, v := range results[xi].failures {
				fmt.Printf(" %s %d;", k, v)
			}
			fmt.Println()
		}
		if x.name == "trawl" && *worst > 0 {
			idx := make([]int, len(pages))
			for i := range idx {
				idx[i] = i
			}
			f1 := func(r extractbench.PageScore) float64 {
				if r.Precision+r.Recall == 0 {
					return 0
				}
				return 2 * r.Precision * r.Recall / (r.Precision + r.Recall)
			}
			rows := results[xi].rows
			sort.SliceStable(idx, func(a, b int) bool { return f1(rows[idx[a]]) < f1(rows[idx[b]]) })
			fmt.Println("trawl's worst pages (F1 precision recall type id):")
			for _, i := range idx[:min(*worst, len(idx))] {
				fmt.Printf("  %.3f %.3f %.3f %-13s %s\n", f1(rows[i]), rows[i].Precision, rows[i].Recall, pages[i].Type, pages[i].ID)
			}
		}
	}
	fmt.Println("\ntrawl's time covers its whole output: clean HTML, Markdown, text, metadata and language.")
}

// failureClass names a refusal without the page-specific part.
func failureClass(err error) string {
	m := err.Error()
	switch {
	case strings.Contains(m, "instead of the page"):
		return "block-verdict"
	case strings.Contains(m, "no main content"):
		return "no-main-content"
	}
	return "other"
}

func printTable(label string, pages []extractbench.Page, xs []extractor, rs []result, keep func(extractbench.Page) bool, snipped, truthful bool) {
	n := 0
	for _, p := range pages {
		if keep(p) {
			n++
		}
	}
	if n == 0 {
		return
	}
	fmt.Printf("== %s (%d pages)\n", label, n)
	fmt.Printf("%-16s %7s %9s %7s %6s %9s %8s", "extractor", "F1", "precision", "recall", "empty", "median ms", "p95 ms")
	if snipped {
		fmt.Printf(" %8s %8s %8s", "snip F1", "snip P", "snip R")
	}
	fmt.Println()
	for xi, x := range xs {
		var rows []extractbench.PageScore
		var sn extractbench.SnippetCounts
		var times []time.Duration
		for i, p := range pages {
			if !keep(p) {
				continue
			}
			rows = append(rows, rs[xi].rows[i])
			sn = sn.Add(rs[xi].snippets[i])
			times = append(times, rs[xi].times[i]...)
		}
		s := extractbench.Aggregate(rows)
		med, p95 := quantiles(times)
		if truthful {
			fmt.Printf("%-16s %7.4f %9.4f %7.4f %6d %9.2f %8.2f", x.name, s.F1, s.Precision, s.Recall, s.Empty, med, p95)
		} else {
			fmt.Printf("%-16s %7s %9s %7s %6d %9.2f %8.2f", x.name, "-", "-", "-", s.Empty, med, p95)
		}
		if snipped {
			fmt.Printf(" %8.4f %8.4f %8.4f", sn.F1(), sn.Precision(), sn.Recall())
		}
		fmt.Println()
	}
	fmt.Println()
}

// printSummary is one line per page type: each extractor's F1.
func printSummary(pages []extractbench.Page, xs []extractor, rs []result) {
	fmt.Printf("%-14s %5s", "F1 by type", "pages")
	for _, x := range xs {
		fmt.Printf(" %15s", x.name)
	}
	fmt.Println()
	for _, t := range append(typesOf(pages), "all") {
		var n int
		fmt.Printf("%-14s", t)
		line := ""
		for xi := range xs {
			var rows []extractbench.PageScore
			for i, p := range pages {
				if t == "all" || p.Type == t {
					rows = append(rows, rs[xi].rows[i])
				}
			}
			n = len(rows)
			line += fmt.Sprintf(" %15.4f", extractbench.Aggregate(rows).F1)
		}
		fmt.Printf(" %5d%s\n", n, line)
	}
	fmt.Println()
}

// printStructure is the structure check of an extractor's Markdown: per
// structure, the elements of the pages' main content (their text in the
// truth), how many of them the Markdown shows, and how many it keeps as
// the same structure; per page type when the split has types.
func printStructure(pages []extractbench.Page, shapes []extractbench.Structure, typed bool) {
	fmt.Println("structure check of trawl's Markdown (main content: text in the truth; kept: as the same structure)")
	fmt.Printf("%-14s %-15s %6s %6s %6s %8s %8s\n", "type", "structure", "main", "shown", "kept", "kept/main", "kept/shown")
	groups := []string{"all"}
	if typed {
		groups = append(groups, typesOf(pages)...)
	}
	for _, g := range groups {
		var sum extractbench.Structure
		for i, p := range pages {
			if g == "all" || p.Type == g {
				sum = sum.Add(shapes[i])
			}
		}
		names, kinds := sum.Kinds()
		for k, c := range kinds {
			if c.Main == 0 {
				continue
			}
			fmt.Printf("%-14s %-15s %6d %6d %6d %8.3f %8.3f\n", g, names[k], c.Main, c.Shown, c.Kept,
				float64(c.Kept)/float64(c.Main), float64(c.Kept)/float64(max(c.Shown, 1)))
		}
		if g == "all" {
			fmt.Printf("%-14s %-15s %6d links, %d not absolute\n", g, "links", sum.Links, sum.Relative)
		}
	}
	fmt.Println()
}

// filterPages keeps the pages of one half of the domains (half 1 or 2, by
// a hash of the URL's host; 0 keeps all) and of one page type ("" keeps
// all).
func filterPages(pages []extractbench.Page, half int, kind string) []extractbench.Page {
	var out []extractbench.Page
	for _, p := range pages {
		if kind != "" && p.Type != kind {
			continue
		}
		if half > 0 {
			host := p.URL
			if u, err := url.Parse(p.URL); err == nil {
				host = strings.TrimPrefix(u.Hostname(), "www.")
			}
			h := fnv.New32a()
			h.Write([]byte(host))
			if int(h.Sum32()%2)+1 != half {
				continue
			}
		}
		out = append(out, p)
	}
	return out
}

func typesOf(pages []extractbench.Page) []string {
	count := map[string]int{}
	for _, p := range pages {
		if p.Type != "" {
			count[p.Type]++
		}
	}
	var ts []string
	for t := range count {
		ts = append(ts, t)
	}
	sort.Slice(ts, func(i, j int) bool {
		return count[ts[i]] > count[ts[j]] || count[ts[i]] == count[ts[j]] && ts[i] < ts[j]
	})
	return ts
}

// sampleOf keeps about n pages, the same ones on every run, in the split's
// proportions of page types: pages are ranked by a hash of their id within
// their type.
func sampleOf(pages []extractbench.Page, n int) []extractbench.Page {
	if n >= len(pages) {
		return pages
	}
	byType := map[string][]extractbench.Page{}
	for _, p := range pages {
		byType[p.Type] = append(byType[p.Type], p)
	}
	hash := func(s string) uint32 { h := fnv.New32a(); h.Write([]byte(s)); return h.Sum32() }
	var out []extractbench.Page
	for _, ps := range byType {
		sort.Slice(ps, func(i, j int) bool { return hash(ps[i].ID) < hash(ps[j].ID) })
		k := max(1, (len(ps)*n+len(pages)/2)/len(pages))
		out = append(out, ps[:min(k, len(ps))]...)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

func quantiles(ts []time.Duration) (med, p95 float64) {
	if len(ts) == 0 {
		return 0, 0
	}
	s := append([]time.Duration(nil), ts...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return ms(s[len(s)/2]), ms(s[len(s)*95/100])
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
