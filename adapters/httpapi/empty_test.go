package httpapi_test

import (
	"archive/zip"
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/trawlhq/trawl/adapters/docx"
	"github.com/trawlhq/trawl/ports"
	"github.com/trawlhq/trawl/testkit/apitest"
	"github.com/trawlhq/trawl/testkit/memstore"
	"github.com/trawlhq/trawl/testkit/sites"
)

// TestEmptyAnswersAreNotBilled: a page whose extracted Markdown holds no
// letter or digit, from any source, is a free 503 no_main_content, not a
// 200 charged 2 credits; a page with text next to it is still read.
func TestEmptyAnswersAreNotBilled(t *testing.T) {
	s := sites.New(t, "empty.test")
	article := func(body string) string {
		return `<html><head><title>Notes</title></head><body><article><p>` + body + `</p></article></body></html>`
	}
	s.Handle("/invisible", "text/html", article(strings.Repeat("\u200b\u2060", 400)))
	s.Handle("/dots", "text/html", article(strings.Repeat(". ", 400)))
	s.Handle("/blank.txt", "text/plain", "  \n\t\n  ")
	s.Handle("/rules.md", "text/markdown", "---\n\n***\n\n- \n")
	s.Handle("/stars.docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document", docxOf(t,
		`<w:document xmlns:w="w"><w:body><w:p><w:r><w:t>* * *</w:t></w:r></w:p><w:p><w:r><w:t> —</w:t></w:r></w:p></w:body></w:document>`))
	s.Handle("/words", "text/html", article(strings.Repeat("The tide pools hold anemones, crabs and snails through the summer heat. ", 4)))
	e := apitest.Start(t, memstore.New(), apitest.Options{Resolve: sites.Resolve(s),
		Documents: map[ports.DocumentFormat]ports.DocumentConverter{ports.DocumentDOCX: docx.New(docx.Options{})}})
	_, tok := e.Account("empty@example.com", "business")
	for _, path := range []string{"/invisible", "/dots", "/blank.txt", "/rules.md", "/stars.docx"} {
		r := e.Do("GET", "/v1/content?url=http://empty.test"+path, tok, nil)
		m := r.JSON(t)
		if r.Status != 503 || m["reason"] != "no_main_content" || m["retryable"] != false || r.Header.Get("X-Credits-Charged") != "0" {
			t.Errorf("%s = %d %s, charged %q; want a free 503 no_main_content", path, r.Status, r.Body, r.Header.Get("X-Credits-Charged"))
		}
	}
	if b := balance(t, e, tok); b != 90000 {
		t.Fatalf("balance %v after empty answers, want 90000", b)
	}
	r := e.Do("GET", "/v1/content?url=http://empty.test/words", tok, nil)
	if r.Status != 200 || r.Header.Get("X-Credits-Charged") != "2" {
		t.Fatalf("a page with text = %d %s", r.Status, r.Body)
	}
}

// docxOf is a DOCX holding only its main part.
func docxOf(t *testing.T, document string) string {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.Create("word/document.xml")
	if err == nil {
		_, err = io.WriteString(w, document)
	}
	if err == nil {
		err = zw.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
	return buf.String()
}
