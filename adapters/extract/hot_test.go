package extract

import (
	"bytes"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/trawlhq/trawl/bench/extractbench"
)

// The hot steps of an extraction, each over the pages of the article
// split (run with -benchmem): parsing is the floor they are measured
// against.

func benchPages(b *testing.B) []extractbench.Page {
	b.Helper()
	pages, err := extractbench.Load("../../testdata/extraction/dev")
	if err != nil {
		b.Fatal(err)
	}
	return pages
}

func parsePage(b *testing.B, p []byte) *html.Node {
	doc, err := html.ParseWithOptions(bytes.NewReader(p), html.ParseOptionEnableScripting(false))
	if err != nil {
		b.Fatal(err)
	}
	return doc
}

func BenchmarkParse(b *testing.B) {
	pages := benchPages(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		parsePage(b, pages[i%len(pages)].HTML)
	}
}

func BenchmarkMainContent(b *testing.B) {
	pages := benchPages(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		doc := parsePage(b, pages[i%len(pages)].HTML)
		b.StartTimer()
		mainContentOf(doc, "", false)
	}
}

func BenchmarkMeasures(b *testing.B) {
	pages := benchPages(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		doc := parsePage(b, pages[i%len(pages)].HTML)
		b.StartTimer()
		statsOf(doc)
		proseChars(doc)
	}
}

func BenchmarkCleanConditionally(b *testing.B) {
	pages := benchPages(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		doc := parsePage(b, pages[i%len(pages)].HTML)
		prepare(doc, false)
		b.StartTimer()
		cleanConditionally(doc)
	}
}

func BenchmarkCountText(b *testing.B) {
	text := strings.Repeat("The tide tables, printed each spring, are read twice — à l'aube. ", 64)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		countText(text)
	}
}
