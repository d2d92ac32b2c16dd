package fetch

import (
	"bytes"
	"compress/gzip"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// BenchmarkReadGzip decodes the article pages as sites send them
// (gzip-coded, the length of the transfer announced): the cost a page
// fetched with compression pays over one sent as it is.
func BenchmarkReadGzip(b *testing.B) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "extraction", "dev", "html", "*.html.gz"))
	if len(files) == 0 {
		b.Skip("no article pages")
	}
	var pages [][]byte
	var size int64
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		pages = append(pages, raw)
	}
	res := &http.Response{Header: http.Header{"Content-Encoding": {"gzip"}}}
	b.ReportAllocs()
	for b.Loop() {
		size = 0
		for _, raw := range pages {
			res.ContentLength = int64(len(raw))
			res.Header.Set("Content-Length", strconv.Itoa(len(raw)))
			res.Body = io.NopCloser(bytes.NewReader(raw))
			body, err := readBody(res, 10<<20)
			if err != nil {
				b.Fatal(err)
			}
			size += int64(len(body))
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*len(pages)), "µs/page")
	b.SetBytes(size)
}

// A gzip-coded body costs its transfer and the page it decodes to: the
// compressed bytes are read into a buffer of the announced length, not of
// the four times it that a page of unknown size would start with.
func TestReadGzipAllocatesTheTransferAndThePage(t *testing.T) {
	var page bytes.Buffer
	rng := rand.New(rand.NewPCG(3, 4))
	words := strings.Fields("the a of to and in is it that on with for as was at by an be this from or have not are but")
	for page.Len() < 400<<10 {
		page.WriteString(words[rng.IntN(len(words))])
		page.WriteByte(' ')
	}
	var raw bytes.Buffer
	zw := gzip.NewWriter(&raw)
	_, _ = zw.Write(page.Bytes())
	_ = zw.Close()
	res := &http.Response{Header: http.Header{"Content-Encoding": {"gzip"}}, ContentLength: int64(raw.Len())}
	read := func() {
		res.Body = io.NopCloser(bytes.NewReader(raw.Bytes()))
		body, err := readBody(res, 10<<20)
		if err != nil || !bytes.Equal(body, page.Bytes()) {
			t.Fatalf("decoded %d bytes (%v), want the %d of the page", len(body), err, page.Len())
		}
	}
	read() // a decoder for the pool
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	const n = 10
	for range n {
		read()
	}
	runtime.ReadMemStats(&after)
	per := int64(after.TotalAlloc-before.TotalAlloc) / n
	if want := int64(raw.Len()+page.Len()) + 64<<10; per > want {
		t.Errorf("reading a %d-byte transfer of a %d-byte page allocates %d bytes, want at most %d", raw.Len(), page.Len(), per, want)
	}
}
