package pdf

import (
	"regexp"
	"strings"
	"testing"

	"github.com/trawlhq/trawl/bench/extractbench"
)

// TestRealDocument: a manual typeset with pdfTeX (Type 1 fonts, ligatures,
// TeX hyphenation), not from the generated corpus. Its text is scored
// against poppler's pdftotext output, which keeps the running headers and
// page numbers Trawl removes: the floor allows for them.
func TestRealDocument(t *testing.T) {
	skipUnderRace(t)
	ex, err := convert(t, "real/libtasn1.pdf", 0)
	if err != nil {
		t.Fatal(err)
	}
	ref := string(read(t, "real/libtasn1.pdftotext.txt"))
	s := extractbench.ScorePage("libtasn1", ref, ex.Text)
	f1 := 2 * s.Precision * s.Recall / (s.Precision + s.Recall)
	t.Logf("libtasn1.pdf: F1 %.3f against pdftotext (precision %.3f, recall %.3f)", f1, s.Precision, s.Recall)
	if f1 < 0.9 || ex.Metadata.PageCount != 36 {
		t.Errorf("F1 %.3f, pages %d", f1, ex.Metadata.PageCount)
	}
	for _, want := range []string{"# Libtasn1\n", "Abstract Syntax Notation One (ASN.1) and Distinguished Encoding Rules", "\n### 1 Introduction 1\n"} {
		if !strings.Contains(ex.Markdown, want) {
			t.Errorf("missing %q", want)
		}
	}
	// Running headers carry the chapter title and the page number.
	if header := regexp.MustCompile(`(?m)^Chapter \d+: .* \d+$`).FindString(ex.Markdown); header != "" {
		t.Errorf("running header left in: %q", header)
	}
	if testing.Verbose() {
		t.Log(ex.Markdown[:min(len(ex.Markdown), 6000)])
	}
}
