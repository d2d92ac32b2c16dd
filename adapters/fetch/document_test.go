package fetch_test

import (
	"bytes"
	"context"
	"net/http"
	"testing"

	"github.com/trawlhq/trawl/adapters/fetch"
	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/ports"
	"github.com/trawlhq/trawl/testkit/sites"
)

// Documents have their own cap when the caller asks for one; pages keep
// the HTML cap, and the message names the cap that applied.
func TestDocumentCap(t *testing.T) {
	s := sites.New(t, "docs.test")
	serve := func(path, ct string, n int) {
		// Bytes a charset conversion would change: a document's body must
		// arrive as sent.
		body := append([]byte("%PDF-1.7\n"), bytes.Repeat([]byte("\xe9"), n)...)
		s.Mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", ct)
			_, _ = w.Write(body)
		})
	}
	serve("/big.pdf", "application/pdf", 3000)
	serve("/big.bin", "application/octet-stream", 3000)
	serve("/big.html", "text/html", 3000)
	serve("/huge.pdf", "application/pdf", 9000)
	serve("/big.docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document", 3000)
	c := client(fetch.Options{MaxBytes: 2000}, s)
	get := func(path string, doc int64) (ports.FetchResponse, error) {
		return c.Fetch(context.Background(), ports.FetchRequest{URL: parseURL(s.URL(path)), DocumentMaxBytes: doc})
	}
	for _, p := range []string{"/big.pdf", "/big.bin", "/big.docx"} {
		res, err := get(p, 8000)
		if err != nil || len(res.Body) != 3009 || res.Body[100] != 0xe9 || res.Charset != "" {
			t.Fatalf("%s: %v, %d bytes, charset %q", p, err, len(res.Body), res.Charset)
		}
		_, err = get(p, 0)
		wantKind(t, err, failure.Unavailable, "larger than 2000 bytes")
	}
	_, err := get("/big.html", 8000)
	wantKind(t, err, failure.Unavailable, "larger than 2000 bytes")
	_, err = get("/huge.pdf", 8000)
	wantKind(t, err, failure.Unavailable, "larger than 8000 bytes")
}
