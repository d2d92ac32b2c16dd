package httpapi_test

import (
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/trawlhq/trawl/adapters/docx"
	"github.com/trawlhq/trawl/adapters/pdf"
	"github.com/trawlhq/trawl/core/content"
	"github.com/trawlhq/trawl/ports"
	"github.com/trawlhq/trawl/testkit/apitest"
	"github.com/trawlhq/trawl/testkit/fakellm"
	"github.com/trawlhq/trawl/testkit/memstore"
	"github.com/trawlhq/trawl/testkit/sites"
)

var (
	pdfOnce sync.Once
	pdfConv *pdf.Converter
)

// documentConverters: one PDF converter for the package (PDFium compiles
// once), a DOCX converter.
func documentConverters() map[ports.DocumentFormat]ports.DocumentConverter {
	pdfOnce.Do(func() { pdfConv = pdf.New(pdf.Options{}) })
	return map[ports.DocumentFormat]ports.DocumentConverter{ports.DocumentPDF: pdfConv, ports.DocumentDOCX: docx.New(docx.Options{})}
}

func corpusFile(t *testing.T, name string) string {
	b, err := os.ReadFile("../../testdata/documents/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func documentsEnv(t *testing.T) (*apitest.Env, string, *fakellm.Server) {
	s := sites.New(t, "docs.test")
	s.Handle("/report.pdf", "application/pdf", corpusFile(t, "report.pdf"))
	s.Handle("/download", "application/octet-stream", corpusFile(t, "report.docx"))
	s.Handle("/languages.docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document", corpusFile(t, "languages.docx"))
	s.Handle("/encrypted.pdf", "application/pdf", corpusFile(t, "encrypted.pdf"))
	s.Handle("/scanned.pdf", "application/pdf", corpusFile(t, "scanned.pdf"))
	s.Handle("/large.pdf", "application/pdf", corpusFile(t, "large.pdf"))
	s.Handle("/notes.txt", "text/plain; charset=utf-8", "Plain notes.\n\n<b>not html</b>\n")
	s.Handle("/readme.md", "text/markdown", "# Readme\n\nSome *text*.\n")
	s.Handle("/image.png", "image/png", "\x89PNG\r\n\x1a\n")
	model := fakellm.New(t)
	e := apitest.Start(t, memstore.New(), apitest.Options{
		Resolve: sites.Resolve(s), LLMBaseURL: model.BaseURL(), Documents: documentConverters(),
		// large.pdf (875 KB, 300 pages) passes the size cap and stops at 20
		// pages. The time limit leaves room for PDFium's first compile under
		// the race detector.
		DocumentLimits: content.DocumentLimits{MaxBytes: 900 << 10, MaxPages: 20, Timeout: 3 * time.Minute},
	})
	_, tok := e.Account("docs@example.com", "business")
	return e, tok, model
}

func TestContentOfDocuments(t *testing.T) {
	e, tok, model := documentsEnv(t)
	get := func(path string) (int, map[string]any) {
		r := e.Do("GET", "/v1/content?url=http://docs.test"+path, tok, nil)
		return r.Status, r.JSON(t)
	}
	st, m := get("/report.pdf")
	md, _ := m["markdown"].(string)
	meta, _ := m["metadata"].(map[string]any)
	if st != 200 || m["success"] != true || !strings.Contains(md, "## Introduction") || !strings.Contains(md, "| Northport | 42 | 118 |") {
		t.Fatalf("pdf = %d %v", st, m)
	}
	if meta["title"] != "Nets and Archives" || meta["author"] != "Ada Lovelace" || meta["pageCount"] != float64(4) || m["warning"] != nil {
		t.Errorf("pdf metadata = %v, warning %v", meta, m["warning"])
	}
	if h, _ := m["html"].(string); !strings.Contains(h, "<h2>Introduction</h2>") {
		t.Errorf("pdf html = %s", h)
	}
	// A DOCX sent as application/octet-stream is known by its signature.
	st, m = get("/download")
	if md, _ := m["markdown"].(string); st != 200 || !strings.Contains(md, "# Nets and Archives\n\n## Introduction") {
		t.Fatalf("docx = %d %v", st, m)
	}
	st, m = get("/languages.docx")
	if md, _ := m["markdown"].(string); st != 200 || !strings.Contains(md, "# Русский\n") || !strings.Contains(md, "עברית") {
		t.Fatalf("docx by its type = %d %v", st, m)
	}
	st, m = get("/notes.txt")
	if st != 200 || m["markdown"] != "Plain notes.\n\n<b>not html</b>" || m["html"] != "<pre>Plain notes.\n\n&lt;b&gt;not html&lt;/b&gt;</pre>" {
		t.Fatalf("text = %d %v", st, m)
	}
	st, m = get("/readme.md")
	if st != 200 || m["markdown"] != "# Readme\n\nSome *text*." {
		t.Fatalf("markdown = %d %v", st, m)
	}
	// Past the page limit: the first pages and a warning.
	st, m = get("/large.pdf")
	md, _ = m["markdown"].(string)
	if st != 200 || m["warning"] != "The document has 300 pages; only the first 20 were converted." || !strings.Contains(md, "# Register 20\n") || strings.Contains(md, "Register 21") {
		t.Fatalf("large = %d warning %v", st, m["warning"])
	}
	if b := balance(t, e, tok); b != 90000-6*2 {
		t.Fatalf("balance %v, want six contents at 2", b)
	}
	// A prompt grounded on a PDF reads its text.
	r := e.Do("POST", "/v1/prompt", tok, map[string]any{"prompt": "What is in the report?", "url": "http://docs.test/report.pdf"})
	if r.Status != 200 {
		t.Fatalf("prompt = %d %s", r.Status, r.Body)
	}
	reqs := model.Requests()
	if user := reqs[len(reqs)-1].Messages[1].Content; !strings.Contains(user, "## Records of the harbours") {
		t.Fatalf("the model was not given the document:\n%s", user)
	}
}

func TestDocumentFailuresAreFree(t *testing.T) {
	e, tok, _ := documentsEnv(t)
	for path, want := range map[string]struct{ msg, reason string }{
		"/encrypted.pdf": {"encrypted with a password", "encrypted"},
		"/scanned.pdf":   {"no text layer", "no_text_layer"},
		"/image.png":     {"not an HTML page or a document", "not_html"},
	} {
		r := e.Do("GET", "/v1/content?url=http://docs.test"+path, tok, nil)
		m := r.JSON(t)
		if msg, _ := m["message"].(string); r.Status != 503 || !strings.Contains(msg, want.msg) || m["reason"] != want.reason || m["retryable"] != false {
			t.Errorf("%s = %d %s; want 503 saying %q, reason %s", path, r.Status, r.Body, want.msg, want.reason)
		}
	}
	if b := balance(t, e, tok); b != 90000 {
		t.Fatalf("failures were charged: balance %v", b)
	}
}

func TestDocumentSizeCap(t *testing.T) {
	s := sites.New(t, "big.test")
	s.Handle("/large.pdf", "application/pdf", corpusFile(t, "large.pdf"))
	e := apitest.Start(t, memstore.New(), apitest.Options{Resolve: sites.Resolve(s), Documents: documentConverters(),
		DocumentLimits: content.DocumentLimits{MaxBytes: 100 << 10}})
	_, tok := e.Account("big@example.com", "business")
	r := e.Do("GET", "/v1/content?url=http://big.test/large.pdf", tok, nil)
	if m := r.JSON(t); r.Status != 503 || !strings.Contains(m["message"].(string), "larger than 102400 bytes") || m["reason"] != "too_large" {
		t.Fatalf("too large = %d %s", r.Status, r.Body)
	}
}
