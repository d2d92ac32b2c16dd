// Package blobtest is the contract suite of ports.BlobStore. Every blob store
// (local files, S3) runs it, so a deployment can switch between them without
// its downloads changing: the bytes, the content type and the file name a
// link serves, what an overwrite does, which keys are refused.
//
// Links are fetched over real HTTP, as a recipient of a results mail would.
package blobtest

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/trawlhq/trawl/ports"
)

// Opener returns a new, empty store for one test. Its links must be
// reachable from the test process.
type Opener func(t *testing.T) ports.BlobStore

// Run runs every contract test.
func Run(t *testing.T, open Opener) {
	t.Run("RoundTrip", func(t *testing.T) { testRoundTrip(t, open(t)) })
	t.Run("ContentTypeIsTheOnePut", func(t *testing.T) { testContentType(t, open(t)) })
	t.Run("ServedAsAttachmentNamedAfterTheKey", func(t *testing.T) { testDisposition(t, open(t)) })
	t.Run("OverwriteReplaces", func(t *testing.T) { testOverwrite(t, open(t)) })
	t.Run("KeysAreIndependent", func(t *testing.T) { testIndependentKeys(t, open(t)) })
	t.Run("MissingKey", func(t *testing.T) { testMissing(t, open(t)) })
	t.Run("InvalidKeysRefused", func(t *testing.T) { testInvalidKeys(t, open(t)) })
	t.Run("LargeBody", func(t *testing.T) { testLarge(t, open(t)) })
}

const ttl = time.Hour

var client = &http.Client{Timeout: 60 * time.Second}

type download struct {
	status int
	header http.Header
	body   []byte
}

func put(t *testing.T, s ports.BlobStore, key string, data []byte, contentType string) {
	t.Helper()
	if err := s.Put(context.Background(), key, data, contentType); err != nil {
		t.Fatalf("Put(%q): %v", key, err)
	}
}

func link(t *testing.T, s ports.BlobStore, key string) string {
	t.Helper()
	l, err := s.URL(context.Background(), key, ttl)
	if err != nil {
		t.Fatalf("URL(%q): %v", key, err)
	}
	u, err := url.Parse(l)
	if err != nil || !u.IsAbs() || (u.Scheme != "http" && u.Scheme != "https") {
		t.Fatalf("URL(%q) = %q: not an absolute http(s) link", key, l)
	}
	return l
}

func get(t *testing.T, link string) download {
	t.Helper()
	res, err := client.Get(link)
	if err != nil {
		t.Fatalf("GET %s: %v", link, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("GET %s: reading the body: %v", link, err)
	}
	return download{res.StatusCode, res.Header, b}
}

func fetch(t *testing.T, s ports.BlobStore, key string) download {
	t.Helper()
	return get(t, link(t, s, key))
}

func wantBody(t *testing.T, key string, d download, want []byte) {
	t.Helper()
	if d.status != http.StatusOK {
		t.Fatalf("%s: download = %d %.200s", key, d.status, d.body)
	}
	if !bytes.Equal(d.body, want) {
		t.Fatalf("%s: download served %d bytes (%.40q), want %d bytes (%.40q)", key, len(d.body), d.body, len(want), want)
	}
}

func testRoundTrip(t *testing.T, s ports.BlobStore) {
	data := make([]byte, 256) // every byte value, NUL and invalid UTF-8 included
	for i := range data {
		data[i] = byte(i)
	}
	put(t, s, "bulk/job_1/results.zip", data, "application/zip")
	d := fetch(t, s, "bulk/job_1/results.zip")
	wantBody(t, "bulk/job_1/results.zip", d, data)
	if ct := d.header.Get("Content-Type"); ct != "application/zip" {
		t.Errorf("Content-Type = %q, want application/zip", ct)
	}
	if cl := d.header.Get("Content-Length"); cl != "" && cl != "256" {
		t.Errorf("Content-Length = %q, want 256", cl)
	}
}

// A download carries the content type given to Put, whatever the key's
// extension or the bytes look like.
func testContentType(t *testing.T, s ports.BlobStore) {
	for _, c := range []struct{ key, contentType, want string }{
		{"bulk/job_2/results", "application/zip", "application/zip"},                       // no extension
		{"bulk/job_2/notes.txt", "application/json", "application/json"},                   // the extension says text/plain
		{"bulk/job_2/page.html", "text/plain; charset=utf-8", "text/plain; charset=utf-8"}, // the bytes say HTML
		{"bulk/job_2/blob", "", "application/octet-stream"},                                // none given
		{"bulk/job_2/export.ndjson", "application/x-ndjson", "application/x-ndjson"},       // no system mapping
	} {
		put(t, s, c.key, []byte("<html><body>hello</body></html>"), c.contentType)
		d := fetch(t, s, c.key)
		wantBody(t, c.key, d, []byte("<html><body>hello</body></html>"))
		if got := d.header.Get("Content-Type"); got != c.want {
			t.Errorf("%s put as %q is served as %q, want %q", c.key, c.contentType, got, c.want)
		}
	}
}

// A link downloads a file named after the key's last segment, even when it
// has spaces, quotes or non-ASCII letters.
func testDisposition(t *testing.T, s ports.BlobStore) {
	for key, name := range map[string]string{
		"bulk/job_3/results.zip":      "results.zip",
		"bulk/job 3/résumé 2026.zip":  "résumé 2026.zip",
		`bulk/job_3/say "cheese".zip`: `say "cheese".zip`,
	} {
		put(t, s, key, []byte("zip"), "application/zip")
		d := fetch(t, s, key)
		wantBody(t, key, d, []byte("zip"))
		disp, params, err := mime.ParseMediaType(d.header.Get("Content-Disposition"))
		if err != nil || disp != "attachment" || params["filename"] != name {
			t.Errorf("%s: Content-Disposition = %q (%v), want an attachment named %q", key, d.header.Get("Content-Disposition"), err, name)
		}
	}
}

// Putting a key again replaces its bytes and content type, also for a link
// handed out before.
func testOverwrite(t *testing.T, s ports.BlobStore) {
	const key = "bulk/job_4/results.zip"
	put(t, s, key, []byte("first version, the longer one"), "application/zip")
	before := link(t, s, key)
	put(t, s, key, []byte("second"), "application/json")
	for _, l := range []string{before, link(t, s, key)} {
		d := get(t, l)
		wantBody(t, key, d, []byte("second"))
		if ct := d.header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("overwritten %s served as %q, want application/json", key, ct)
		}
	}
}

// Keys that share a prefix or differ by a suffix hold their own bytes.
func testIndependentKeys(t *testing.T, s ports.BlobStore) {
	keys := []string{"bulk/job_5/r", "bulk/job_5/r.tmp", "bulk/job_5/r.zip", "bulk/job_5/r.zip.tmp", "bulk/job_5x/r"}
	for i, k := range keys {
		put(t, s, k, []byte("blob "+strconv.Itoa(i)), "application/zip")
	}
	for i := len(keys) - 1; i >= 0; i-- { // written again in the other order
		put(t, s, keys[i], []byte("blob "+strconv.Itoa(i)), "application/zip")
	}
	for i, k := range keys {
		wantBody(t, k, fetch(t, s, k), []byte("blob "+strconv.Itoa(i)))
	}
}

// A link to a key nothing was put under answers 404; handing it out is not
// an error (URL does not look the key up).
func testMissing(t *testing.T, s ports.BlobStore) {
	put(t, s, "bulk/job_6/results.zip", []byte("zip"), "application/zip")
	for _, key := range []string{"bulk/job_6/other.zip", "bulk/job_6", "bulk/job_7/results.zip"} {
		if d := fetch(t, s, key); d.status != http.StatusNotFound {
			t.Errorf("missing %s: download = %d %.200s, want 404", key, d.status, d.body)
		}
	}
}

// Keys that could name something outside the store, or that are not in
// canonical form, are refused by Put and by URL alike.
func testInvalidKeys(t *testing.T, s ports.BlobStore) {
	ctx := context.Background()
	for _, key := range []string{"", "../escape", "/abs", "a/../../b", "a/./b", "a//b", "a/", `a\b`, "a\x00b", "a/..", ".."} {
		if err := s.Put(ctx, key, []byte("x"), "application/zip"); err == nil {
			t.Errorf("Put(%q) accepted", key)
		}
		if l, err := s.URL(ctx, key, ttl); err == nil {
			t.Errorf("URL(%q) = %q, want an error", key, l)
		}
	}
}

// A body larger than one upload part (S3 clients switch to multipart at
// 16 MiB) comes back byte for byte.
func testLarge(t *testing.T, s ports.BlobStore) {
	data := make([]byte, 17<<20+123)
	if _, err := rand.Read(data); err != nil {
		t.Fatal(err)
	}
	const key = "bulk/job_8/results.zip"
	put(t, s, key, data, "application/zip")
	d := fetch(t, s, key)
	if d.status != http.StatusOK || len(d.body) != len(data) || sha256.Sum256(d.body) != sha256.Sum256(data) {
		t.Fatalf("large body: download = %d, %d bytes, want %d bytes with the same digest", d.status, len(d.body), len(data))
	}
}
