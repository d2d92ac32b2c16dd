package serp

import (
	"os"
	"path/filepath"
	"testing"
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
