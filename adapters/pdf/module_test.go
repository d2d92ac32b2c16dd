package pdf

import (
	"context"
	"testing"

	"github.com/klippa-app/go-pdfium/requests"
)

// Both ways of reading a page's text, a rectangle at a time and a
// character at a time, give what go-pdfium's structured text gives: the
// same rectangles with the same text and the same font size.
func TestRunsMatchStructuredText(t *testing.T) {
	skipUnderRace(t)
	c := inProcess(t)
	warm(t, c)
	defer func(v int) { perCharRects = v }(perCharRects)
	for _, name := range []string{"languages.pdf", "report.pdf", "two-columns.pdf", "real/libtasn1.pdf"} {
		body := read(t, name)
		for _, way := range []struct {
			name  string
			rects int
		}{{"per rectangle", 1 << 30}, {"per character", 0}} {
			perCharRects = way.rects
			inst, err := c.pool.GetInstanceWithContext(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			d, err := inst.OpenDocument(&requests.OpenDocument{File: &body})
			if err != nil {
				t.Fatal(err)
			}
			m, err := openModule(context.Background(), inst)
			if err != nil {
				t.Fatal(err)
			}
			doc, _, err := m.open(body)
			if err != nil {
				t.Fatal(err)
			}
			runs := 0
			for i := range doc.pageCount() {
				want, err := inst.GetPageTextStructured(&requests.GetPageTextStructured{
					Page: requests.Page{ByIndex: &requests.PageByIndex{Document: d.Document, Index: i}},
					Mode: requests.GetPageTextStructuredModeRects, CollectFontInformation: true,
				})
				if err != nil {
					t.Fatal(err)
				}
				got, err := doc.text(i)
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != len(want.Rects) {
					t.Fatalf("%s, %s, page %d: %d runs, want %d", name, way.name, i, len(got), len(want.Rects))
				}
				for j, w := range want.Rects {
					g := got[j]
					p := w.PointPosition
					if g.Text != w.Text || g.Size != w.FontInformation.Size || g.Left != p.Left || g.Right != p.Right || g.Top != p.Top || g.Bot != p.Bottom {
						t.Errorf("%s, %s, page %d, run %d: %+v, want %q %v %+v", name, way.name, i, j, g, w.Text, w.FontInformation.Size, p)
					}
				}
				runs += len(got)
			}
			doc.close()
			if m.err != nil {
				t.Fatal(m.err)
			}
			_ = inst.Close()
			if runs == 0 {
				t.Fatalf("%s: no text", name)
			}
		}
	}
}

// BenchmarkReadPages reads every page's text of a corpus document both
// ways, in PDFium compiled without context checks (as in a worker
// process), so the crossover between them (perCharRects) can be checked:
// go test -run X -bench ReadPages ./adapters/pdf/
func BenchmarkReadPages(b *testing.B) {
	c := New(Options{CacheDir: cacheDir})
	c.unkillable = true
	defer c.Close()
	warm(b, c)
	defer func(v int) { perCharRects = v }(perCharRects)
	for _, name := range []string{"report.pdf", "two-columns.pdf", "languages.pdf", "large.pdf", "real/libtasn1.pdf"} {
		body := read(b, name)
		for _, way := range []struct {
			name  string
			rects int
		}{{"per-rect", 1 << 30}, {"per-char", 0}} {
			b.Run(name+"/"+way.name, func(b *testing.B) {
				perCharRects = way.rects
				inst, err := c.pool.GetInstanceWithContext(context.Background())
				if err != nil {
					b.Fatal(err)
				}
				defer inst.Close()
				m, err := openModule(context.Background(), inst)
				if err != nil {
					b.Fatal(err)
				}
				doc, _, err := m.open(body)
				if err != nil {
					b.Fatal(err)
				}
				defer doc.close()
				b.ResetTimer()
				for range b.N {
					for i := range doc.pageCount() {
						if _, err := doc.text(i); err != nil {
							b.Fatal(err)
						}
					}
				}
			})
		}
	}
}
