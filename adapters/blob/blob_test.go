package blob_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/trawlhq/trawl/adapters/blob"
)

func get(t *testing.T, u string) (int, string) {
	t.Helper()
	res, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

func TestLocalSignedLinks(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var l *blob.Local
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { l.ServeHTTP(w, r) }))
	defer srv.Close()
	secret, err := blob.LinkSecret(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	l, err = blob.NewLocal(t.TempDir(), secret, srv.URL, func() time.Time { return now })
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := l.Put(ctx, "bulk/job_1/results.zip", []byte("PK-zip-bytes"), "application/zip"); err != nil {
		t.Fatal(err)
	}
	link, err := l.URL(ctx, "bulk/job_1/results.zip", time.Hour)
	if err != nil || !strings.HasPrefix(link, srv.URL+"/files/bulk/job_1/results.zip?expires=") {
		t.Fatalf("URL = %q %v", link, err)
	}
	if code, body := get(t, link); code != 200 || body != "PK-zip-bytes" {
		t.Fatalf("download = %d %q", code, body)
	}
	if code, _ := get(t, strings.Replace(link, "signature=", "signature=00", 1)); code != 404 {
		t.Fatalf("tampered signature = %d", code)
	}
	if code, _ := get(t, strings.Replace(link, "results.zip", "other.zip", 1)); code != 404 {
		t.Fatalf("another key with this signature = %d", code)
	}
	now = now.Add(2 * time.Hour)
	if code, _ := get(t, link); code != 404 {
		t.Fatalf("expired link = %d", code)
	}
	for _, bad := range []string{"../escape", "/abs", "a/../../b", "a\\b", ""} {
		if err := l.Put(ctx, bad, []byte("x"), ""); err == nil {
			t.Errorf("key %q accepted", bad)
		}
	}
	again, _ := blob.LinkSecret(t.TempDir())
	if string(again) == string(secret) {
		t.Error("two data dirs share a secret")
	}
}

func TestS3(t *testing.T) {
	fake := httptest.NewServer(gofakes3.New(s3mem.New()).Server())
	defer fake.Close()
	s, err := blob.NewS3(blob.S3Options{Endpoint: strings.TrimPrefix(fake.URL, "http://"), Bucket: "trawl-results", AccessKey: "key", SecretKey: "secret", Region: "us-east-1", Insecure: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := s.EnsureBucket(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.Put(ctx, "bulk/job_9/results.zip", []byte("zip-data"), "application/zip"); err != nil {
		t.Fatal(err)
	}
	link, err := s.URL(ctx, "bulk/job_9/results.zip", 30*24*time.Hour)
	if err != nil || !strings.Contains(link, "X-Amz-Signature=") {
		t.Fatalf("presigned = %q %v", link, err)
	}
	if code, body := get(t, link); code != 200 || body != "zip-data" {
		t.Fatalf("download = %d %q", code, body)
	}
}
