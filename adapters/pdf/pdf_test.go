package pdf

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/trawlhq/trawl/bench/extractbench"
	"github.com/trawlhq/trawl/core/content"
	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/ports"
)

const corpus = "../../testdata/documents"

var (
	shared, killable         *Converter
	sharedOnce, killableOnce sync.Once
	// cacheDir keeps PDFium's compiled code for the package's converters:
	// the first compiles it, the others load it.
	cacheDir string
)

// converter is one Converter for the package's tests, as deployed: PDFium
// in worker processes (this test binary started again).
func converter(t testing.TB) *Converter {
	sharedOnce.Do(func() { shared = New(Options{CacheDir: cacheDir, Exec: Executable()}) })
	return shared
}

// inProcess is one Converter running PDFium in this process, killable.
func inProcess(t testing.TB) *Converter {
	killableOnce.Do(func() { killable = New(Options{CacheDir: cacheDir}) })
	return killable
}

// warm has a converter ready to convert: PDFium compiled or loaded, in
// the process or in a worker.
func warm(t testing.TB, c *Converter) {
	t.Helper()
	if c.procs == nil {
		c.Warm()
		<-c.ready
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	if _, err := c.Convert(ctx, ports.DocumentRequest{Format: ports.DocumentPDF, Body: read(t, "languages.pdf")}); err != nil {
		t.Fatal(err)
	}
}

func TestMain(m *testing.M) {
	ServeIfWorker() // the converter's workers are this binary
	if Executable() == "" {
		panic("no worker executable")
	}
	dir, err := os.MkdirTemp("", "trawl-pdfium-cache-")
	if err != nil {
		panic(err)
	}
	cacheDir = dir
	code := m.Run()
	for _, c := range []*Converter{shared, killable} {
		if c != nil {
			_ = c.Close()
		}
	}
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

func read(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(corpus, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func convert(t testing.TB, name string, maxPages int) (ports.Extracted, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	return converter(t).Convert(ctx, ports.DocumentRequest{URL: "https://docs.test/" + name, Format: ports.DocumentPDF, Body: read(t, name), MaxPages: maxPages})
}

// TestCorpusF1 scores the text of each corpus PDF against the text it was
// generated from, with the article benchmark's shingle F1.
func TestCorpusF1(t *testing.T) {
	skipUnderRace(t)
	floors := map[string]float64{"report": 0.95, "two-columns": 0.95, "languages": 0.85, "owner-password": 0.95}
	for name, floor := range floors {
		t.Run(name, func(t *testing.T) {
			ex, err := convert(t, name+".pdf", 0)
			if err != nil {
				t.Fatal(err)
			}
			src := name
			if name == "owner-password" {
				src = "report"
			}
			truth := string(read(t, "source/"+src+".txt"))
			s := extractbench.ScorePage(name, truth, ex.Text)
			f1 := 0.0
			if s.Precision+s.Recall > 0 {
				f1 = 2 * s.Precision * s.Recall / (s.Precision + s.Recall)
			}
			t.Logf("%s: F1 %.3f (precision %.3f, recall %.3f)", name, f1, s.Precision, s.Recall)
			if f1 < floor {
				t.Errorf("F1 %.3f below %.2f; markdown:\n%s", f1, floor, ex.Markdown)
			}
		})
	}
}

func TestStructure(t *testing.T) {
	ex, err := convert(t, "report.pdf", 0)
	if err != nil {
		t.Fatal(err)
	}
	md := ex.Markdown
	for _, want := range []string{
		"# Nets and Archives\n",
		"\n## Introduction\n",
		"\n### What the converter must find\n",
		"- Headings from the size of their type\n",
		"1. Collect the harbour registers\n",
		"| Harbour | Vessels | Registers |\n| --- | --- | --- |\n| Northport | 42 | 118 |",
		"where every irrelevant navigation link", // de-hyphenated, re-flowed
		"<h2>Introduction</h2>",
	} {
		if !strings.Contains(md, want) && !strings.Contains(ex.HTML, want) {
			t.Errorf("missing %q in:\n%s", want, md)
		}
	}
	for _, gone := range []string{"a test report", "Page 1", "Page 2"} {
		if strings.Contains(md, gone) {
			t.Errorf("running header or footer %q left in", gone)
		}
	}
	m := ex.Metadata
	if m.Title != "Nets and Archives" || m.Author != "Ada Lovelace" || m.Keywords != "fishing, archives, corpus" || m.PageCount != 4 {
		t.Errorf("metadata %+v", m)
	}
	if ex.Warning != "" {
		t.Errorf("warning %q", ex.Warning)
	}
}

func TestEncryptedAndScanned(t *testing.T) {
	for name, want := range map[string]string{"encrypted.pdf": "encrypted", "scanned.pdf": "no text layer"} {
		_, err := convert(t, name, 0)
		fe, ok := failure.As(content.DocumentFailure(err))
		if !ok || fe.Kind != failure.Unavailable || !strings.Contains(fe.Message, want) {
			t.Errorf("%s: %v, want Unavailable saying %q", name, err, want)
		}
	}
}

func TestPageLimit(t *testing.T) {
	skipUnderRace(t)
	ex, err := convert(t, "large.pdf", 5)
	if err != nil {
		t.Fatal(err)
	}
	if ex.Metadata.PageCount != 300 || ex.Warning != "The document has 300 pages; only the first 5 were converted." {
		t.Errorf("page count %d, warning %q", ex.Metadata.PageCount, ex.Warning)
	}
	if !strings.Contains(ex.Markdown, "Register 5") || strings.Contains(ex.Markdown, "Register 6") {
		t.Errorf("want the first 5 pages:\n%s", ex.Markdown)
	}
}
