package docx

import (
	"archive/zip"
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/trawlhq/trawl/bench/extractbench"
	"github.com/trawlhq/trawl/core/content"
	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/ports"
)

const corpus = "../../testdata/documents"

func convert(t testing.TB, c *Converter, body []byte) (ports.Extracted, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return c.Convert(ctx, ports.DocumentRequest{URL: "https://docs.test/a.docx", Format: ports.DocumentDOCX, Body: body})
}

func file(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(corpus, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func f1(truth, pred string) float64 {
	s := extractbench.ScorePage("", truth, pred)
	if s.Precision+s.Recall == 0 {
		return 0
	}
	return 2 * s.Precision * s.Recall / (s.Precision + s.Recall)
}

func TestCorpus(t *testing.T) {
	for _, name := range []string{"report", "languages"} {
		ex, err := convert(t, New(Options{}), file(t, name+".docx"))
		if err != nil {
			t.Fatal(name, err)
		}
		score := f1(string(file(t, "source/"+name+".txt")), ex.Text)
		t.Logf("%s.docx: F1 %.3f", name, score)
		if score < 0.97 {
			t.Errorf("%s.docx: F1 %.3f below 0.97:\n%s", name, score, ex.Markdown)
		}
	}
}

func TestStructureAndMetadata(t *testing.T) {
	ex, err := convert(t, New(Options{}), file(t, "report.docx"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"# Nets and Archives\n\n## Introduction\n\nTrawl fetches",
		"\n### What the converter must find\n\n- Headings from the size of their type\n- Paragraphs joined",
		"\n1. Collect the harbour registers\n2. Transcribe",
		"| Harbour | Vessels | Registers |\n| --- | --- | --- |\n| Northport | 42 | 118 |",
		"The figures are invented for this corpus.", // footnotes at the end
	} {
		if !strings.Contains(ex.Markdown, want) {
			t.Errorf("missing %q in:\n%s", want, ex.Markdown)
		}
	}
	if strings.Contains(ex.Markdown, "a test report") || strings.Contains(ex.Markdown, "Page") {
		t.Error("header or footer text in the body")
	}
	m := ex.Metadata
	if m.Title != "Nets and Archives" || m.Author != "Ada Lovelace" || m.Keywords != "fishing, archives, corpus" || m.Language != "en-US" {
		t.Errorf("metadata %+v", m)
	}
	if !strings.Contains(ex.HTML, "<h2>Introduction</h2>") || !strings.Contains(ex.HTML, "<table>") {
		t.Errorf("html:\n%s", ex.HTML)
	}
}

func zipOf(t testing.TB, parts map[string][]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, b := range parts {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(b); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func wantUnavailable(t *testing.T, err error, has string) {
	t.Helper()
	fe, ok := failure.As(content.DocumentFailure(err))
	if !ok || fe.Kind != failure.Unavailable || !strings.Contains(fe.Message, has) {
		t.Fatalf("err = %v; want Unavailable saying %q", err, has)
	}
}

// A ZIP bomb posing as a DOCX: a few hundred kilobytes that inflate to
// 256 MiB stop at the part cap, with bounded memory.
func TestZipBomb(t *testing.T) {
	doc := append([]byte(`<w:document xmlns:w="w"><w:body><w:p><w:r><w:t>`), bytes.Repeat([]byte("a"), 256<<20)...)
	bomb := zipOf(t, map[string][]byte{"word/document.xml": doc})
	doc = nil
	t.Logf("bomb: %d bytes", len(bomb))
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := convert(t, New(Options{MaxPartBytes: 4 << 20}), bomb)
	runtime.ReadMemStats(&after)
	wantUnavailable(t, err, "inflates past 4194304 bytes")
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
		t.Errorf("allocated %d MiB reading the bomb", grew>>20)
	}
}

func TestHostileAndDamaged(t *testing.T) {
	deep := "<w:document xmlns:w=\"w\"><w:body>" + strings.Repeat("<w:p>", 100000)
	cases := map[string]struct {
		body []byte
		want string
	}{
		"deep nesting": {zipOf(t, map[string][]byte{"word/document.xml": []byte(deep)}), "nested too deeply"},
		"encrypted":    {append([]byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}, make([]byte, 600)...), "encrypted"},
		"not a zip":    {[]byte("PK\x03\x04 nothing else"), "not a readable DOCX"},
		"no main part": {zipOf(t, map[string][]byte{"word/other.xml": []byte("<x/>")}), "not a readable DOCX"},
		"broken xml":   {zipOf(t, map[string][]byte{"word/document.xml": []byte("<w:document><w:body><w:p><w:t>x</w:p")}), "damaged"},
		"no text":      {zipOf(t, map[string][]byte{"word/document.xml": []byte(`<w:document xmlns:w="w"><w:body/></w:document>`)}), "no text"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := convert(t, New(Options{}), c.body)
			wantUnavailable(t, err, c.want)
		})
	}
	many := map[string][]byte{"word/document.xml": []byte(`<w:document xmlns:w="w"><w:body><w:p><w:r><w:t>x</w:t></w:r></w:p></w:body></w:document>`)}
	for i := 0; i < 30; i++ {
		many[strings.Repeat("d", i+1)] = nil
	}
	_, err := convert(t, New(Options{MaxEntries: 20}), zipOf(t, many))
	wantUnavailable(t, err, "more than 20 entries")
}

func TestTextCap(t *testing.T) {
	body := zipOf(t, map[string][]byte{"word/document.xml": []byte(`<w:document xmlns:w="w"><w:body>` +
		strings.Repeat(`<w:p><w:r><w:t>0123456789</w:t></w:r></w:p>`, 100) + `</w:body></w:document>`)})
	ex, err := convert(t, New(Options{MaxChars: 250}), body)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(ex.Text, "0123456789"); n != 25 || ex.Warning == "" {
		t.Errorf("%d paragraphs, warning %q", n, ex.Warning)
	}
}

// FuzzConvert: any bytes give a result or an Unavailable error, never a
// panic or an unbounded read.
func FuzzConvert(f *testing.F) {
	f.Add(file(f, "report.docx"))
	f.Add(zipOf(f, map[string][]byte{"word/document.xml": []byte(`<w:document xmlns:w="w"><w:body><w:tbl><w:tr><w:tc><w:p><w:t>a</w:t></w:p></w:tc></w:tr></w:tbl></w:body></w:document>`)}))
	c := New(Options{MaxPartBytes: 1 << 20})
	f.Fuzz(func(t *testing.T, b []byte) {
		_, err := convert(t, c, b)
		if err != nil {
			if fe, ok := failure.As(content.DocumentFailure(err)); !ok || fe.Kind != failure.Unavailable {
				t.Fatalf("err = %v", err)
			}
		}
	})
}

// A part past the part cap is too large, whatever the XML decoder made of
// the bytes it read before the cap: one run whose text alone is longer than
// both the text cap and the part cap, alone or after a paragraph.
func TestPartPastTheCapSaysSo(t *testing.T) {
	for name, before := range map[string]string{
		"alone":             "",
		"after a paragraph": `<w:p><w:r><w:t>The harbour registers were read first.</w:t></w:r></w:p>`,
	} {
		doc := []byte(`<w:document xmlns:w="w"><w:body>` + before + `<w:p><w:r><w:t>`)
		doc = append(doc, bytes.Repeat([]byte("a"), 8<<20)...)
		doc = append(doc, `</w:t></w:r></w:p></w:body></w:document>`...)
		_, err := convert(t, New(Options{MaxPartBytes: 4 << 20, MaxChars: 1 << 20}), zipOf(t, map[string][]byte{"word/document.xml": doc}))
		fe, ok := failure.As(content.DocumentFailure(err))
		if !ok || fe.Kind != failure.Unavailable || fe.Reason != failure.ReasonTooLarge || !strings.Contains(fe.Message, "inflates past 4194304 bytes") {
			t.Errorf("%s: err = %v; want too_large naming the limit", name, err)
		}
	}
}

// A run longer than the text cap, in a part under the part cap: its text
// up to the cap is kept, with the warning, not reported as no text.
func TestRunLongerThanTheTextCap(t *testing.T) {
	doc := `<w:document xmlns:w="w"><w:body><w:p><w:r><w:t>` + strings.Repeat("tide ", 1000) + `</w:t></w:r></w:p></w:body></w:document>`
	ex, err := convert(t, New(Options{MaxChars: 1000}), zipOf(t, map[string][]byte{"word/document.xml": []byte(doc)}))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(ex.Text, "tide"); n != 200 || ex.Warning == "" {
		t.Fatalf("%d words kept, warning %q", n, ex.Warning)
	}
	doc = `<w:document xmlns:w="w"><w:body><w:tbl><w:tr><w:tc><w:p><w:r><w:t>Harbour</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>` +
		strings.Repeat("tide ", 1000) + `</w:t></w:r></w:p></w:tc></w:tr></w:tbl></w:body></w:document>`
	ex, err = convert(t, New(Options{MaxChars: 1000}), zipOf(t, map[string][]byte{"word/document.xml": []byte(doc)}))
	if err != nil || !strings.HasPrefix(ex.Markdown, "| Harbour | tide tide") || ex.Warning == "" {
		t.Fatalf("a long cell: %v\n%.200s", err, ex.Markdown)
	}
}
