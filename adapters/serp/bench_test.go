package serp

import (
	"bytes"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/trawlhq/trawl/ports"
)

// BenchmarkParse measures the parse time of each saved result page.
func BenchmarkParse(b *testing.B) {
	for engine, parse := range parsers {
		files, _ := filepath.Glob(filepath.Join("../../testdata/serp", engine, "*.html"))
		var pages [][]byte
		for _, f := range files {
			p, err := os.ReadFile(f)
			if err != nil {
				b.Fatal(err)
			}
			pages = append(pages, p)
		}
		b.Run(engine, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				_, _ = parse(pages[i%len(pages)])
			}
		})
	}
}

// BenchmarkGoogle parses every saved Google page (one op is the whole set:
// desktop, mobile, basic and no-JS layouts, a challenge, no results); its
// floor, BenchmarkGoogleFloor, is html.Parse of the same bytes, the least
// any reading of the pages does. Bing and DuckDuckGo likewise. make bench
// prints the ratio of each pair.
func BenchmarkGoogle(b *testing.B)          { benchEngine(b, "google", ParseGoogle) }
func BenchmarkGoogleFloor(b *testing.B)     { benchFloor(b, "google") }
func BenchmarkBing(b *testing.B)            { benchEngine(b, "bing", ParseBing) }
func BenchmarkBingFloor(b *testing.B)       { benchFloor(b, "bing") }
func BenchmarkDuckDuckGo(b *testing.B)      { benchEngine(b, "duckduckgo", ParseDuckDuckGo) }
func BenchmarkDuckDuckGoFloor(b *testing.B) { benchFloor(b, "duckduckgo") }

func benchEngine(b *testing.B, engine string, parse func([]byte) (ports.SearchResults, error)) {
	pages := enginePages(b, engine)
	b.ReportAllocs()
	defer reportCPU(b)()
	for b.Loop() {
		for _, p := range pages {
			_, _ = parse(p)
		}
	}
}

func benchFloor(b *testing.B, engine string) {
	pages := enginePages(b, engine)
	b.ReportAllocs()
	defer reportCPU(b)()
	for b.Loop() {
		for _, p := range pages {
			if _, err := html.Parse(bytes.NewReader(p)); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func enginePages(b *testing.B, engine string) [][]byte {
	b.Helper()
	files, err := filepath.Glob(filepath.Join("../../testdata/serp", engine, "*.html"))
	if err != nil || len(files) == 0 {
		b.Fatalf("no saved %s pages (%v)", engine, err)
	}
	var pages [][]byte
	var n int64
	for _, f := range files {
		p, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		pages = append(pages, p)
		n += int64(len(p))
	}
	b.SetBytes(n)
	return pages
}

// reportCPU adds cpu-ns/op: the process's CPU time (user and system, the
// collector's included) per op. On a shared machine it moves far less than
// the wall time when other work takes the cores.
func reportCPU(b *testing.B) func() {
	start := cpuTime()
	return func() {
		if b.N > 0 {
			b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
		}
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
