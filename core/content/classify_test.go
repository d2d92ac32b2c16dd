package content

import (
	"testing"

	"github.com/trawlhq/trawl/ports"
)

func TestClassify(t *testing.T) {
	docx := []byte("PK\x03\x04....[Content_Types].xml....word/document.xml....")
	cases := []struct {
		ct     string
		body   string
		kind   Kind
		format ports.DocumentFormat
	}{
		{"application/pdf", "%PDF-1.7", KindDocument, ports.DocumentPDF},
		{"application/vnd.openxmlformats-officedocument.wordprocessingml.document", "PK", KindDocument, ports.DocumentDOCX},
		{"application/octet-stream", "%PDF-1.4\n", KindDocument, ports.DocumentPDF},
		{"application/octet-stream", "\r\n\r\n%PDF-1.4\n", KindDocument, ports.DocumentPDF},
		{"binary/octet-stream", string(docx), KindDocument, ports.DocumentDOCX},
		{"application/zip", string(docx), KindDocument, ports.DocumentDOCX},
		{"application/zip", "PK\x03\x04 a plain archive", KindOther, ""},
		{"application/octet-stream", "\x00\x01 nothing known", KindOther, ""},
		{"text/plain", "hello", KindPlain, ""},
		{"text/plain", "%PDF-1.5\n%\xe2\xe3", KindDocument, ports.DocumentPDF},
		{"text/markdown", "# hello", KindPlain, ""},
		{"text/html", "<p>hi</p>", KindMarkup, ""},
		{"application/xhtml+xml", "<p>hi</p>", KindMarkup, ""},
		{"", "<p>hi</p>", KindMarkup, ""},
		{"image/png", "\x89PNG", KindOther, ""},
		{"application/json", "{}", KindOther, ""},
	}
	for _, c := range cases {
		k, f := Classify(c.ct, []byte(c.body))
		if k != c.kind || f != c.format {
			t.Errorf("Classify(%q, %q) = %v %q; want %v %q", c.ct, c.body, k, f, c.kind, c.format)
		}
	}
}

func TestPlain(t *testing.T) {
	ex := plain([]byte("  # Title\n\n<b>bold</b> & \xff more\n"))
	if ex.Markdown != "# Title\n\n<b>bold</b> & \uFFFD more" || ex.Text != ex.Markdown {
		t.Errorf("markdown %q", ex.Markdown)
	}
	if ex.HTML != "<pre># Title\n\n&lt;b&gt;bold&lt;/b&gt; &amp; \uFFFD more</pre>" {
		t.Errorf("html %q", ex.HTML)
	}
}

func TestReadable(t *testing.T) {
	for md, want := range map[string]bool{
		"": false, " \n\t": false, "---\n\n***\n\n-": false, ". . . .": false, "\u200b\u2060\u200b": false, "| | |\n| --- | --- |": false,
		"# Tides": true, "42": true, "Приливы": true, "潮汐": true, "- a": true,
	} {
		if got := readable(md); got != want {
			t.Errorf("readable(%q) = %v, want %v", md, got, want)
		}
	}
}
