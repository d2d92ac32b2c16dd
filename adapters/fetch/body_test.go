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
	"slices"
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

// textPage is about n bytes of prose-like text, which compresses as
// pages do.
func textPage(n int) []byte {
	var page bytes.Buffer
	rng := rand.New(rand.NewPCG(3, 4))
	words := strings.Fields("the a of to and in is it that on with for as was at by an be this from or have not are but")
	for page.Len() < n {
		page.WriteString(words[rng.IntN(len(words))])
		page.WriteByte(' ')
	}
	return page.Bytes()
}

// allocatedPerRead is what reading res's body (sent as it comes from body)
// allocates once the pools are warm: the median of a few reads, so a
// collection that empties a pool midway does not count. The body must
// decode to page.
func allocatedPerRead(t *testing.T, res *http.Response, body, page []byte) int64 {
	t.Helper()
	read := func() {
		res.Body = io.NopCloser(bytes.NewReader(body))
		got, err := readBody(res, 10<<20)
		if err != nil || !bytes.Equal(got, page) {
			t.Fatalf("read %d bytes (%v), want the %d of the page", len(got), err, len(page))
		}
	}
	read() // a decoder and a scratch buffer for the pools
	var each []int64
	for range 9 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		read()
		runtime.ReadMemStats(&after)
		each = append(each, int64(after.TotalAlloc-before.TotalAlloc))
	}
	slices.Sort(each)
	return each[len(each)/2]
}

// A body costs the page it is, once, whether its length was announced or
// not and whether it came compressed or not: the compressed bytes and a
// body of unknown length go through a reused scratch buffer, not through
// a buffer doubled from a guess.
func TestReadBodyAllocatesThePageOnce(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector drops pooled buffers at random")
	}
	page := textPage(400 << 10)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, _ = zw.Write(page)
	_ = zw.Close()
	for _, c := range []struct {
		name     string
		enc      string
		body     []byte
		announce bool
	}{
		{"announced", "", page, true},
		{"unannounced", "", page, false},
		{"gzip announced", "gzip", gz.Bytes(), true},
		{"gzip unannounced", "gzip", gz.Bytes(), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := &http.Response{Header: http.Header{}, ContentLength: -1}
			if c.enc != "" {
				res.Header.Set("Content-Encoding", c.enc)
			}
			if c.announce {
				res.ContentLength = int64(len(c.body))
			}
			if per, want := allocatedPerRead(t, res, c.body, page), int64(len(page))+64<<10; per > want {
				t.Errorf("reading a %d-byte page allocates %d bytes, want at most %d", len(page), per, want)
			}
		})
	}
}

// The scratch buffer outlives collections: a server extracting pages
// collects every few pages, and a buffer lost at each collection was grown
// again from 32 KiB on the next fetch, in fresh memory.
func TestReadBodyKeepsScratchAcrossCollections(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector drops pooled buffers at random")
	}
	page := textPage(400 << 10)
	res := &http.Response{Header: http.Header{}, ContentLength: -1}
	read := func() {
		res.Body = io.NopCloser(bytes.NewReader(page))
		if got, err := readBody(res, 10<<20); err != nil || !bytes.Equal(got, page) {
			t.Fatalf("read %d bytes (%v), want the %d of the page", len(got), err, len(page))
		}
	}
	read()
	runtime.GC()
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	read()
	runtime.ReadMemStats(&after)
	if per, want := int64(after.TotalAlloc-before.TotalAlloc), int64(len(page))+64<<10; per > want {
		t.Errorf("after two collections, reading a %d-byte page allocates %d bytes, want at most %d", len(page), per, want)
	}
}
