package blob_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/trawlhq/trawl/adapters/blob"
	"github.com/trawlhq/trawl/ports"
	"github.com/trawlhq/trawl/testkit/blobtest"
)

func TestLocalContract(t *testing.T) {
	blobtest.Run(t, func(t *testing.T) ports.BlobStore {
		var l *blob.Local
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { l.ServeHTTP(w, r) }))
		t.Cleanup(srv.Close)
		var err error
		l, err = blob.NewLocal(t.TempDir(), []byte("contract-link-secret-0123456789"), srv.URL, time.Now)
		if err != nil {
			t.Fatal(err)
		}
		return l
	})
}

func TestS3Contract(t *testing.T) {
	blobtest.Run(t, func(t *testing.T) ports.BlobStore {
		fake := httptest.NewServer(gofakes3.New(s3mem.New()).Server())
		t.Cleanup(fake.Close)
		s, err := blob.NewS3(blob.S3Options{Endpoint: strings.TrimPrefix(fake.URL, "http://"), Bucket: "trawl-results", AccessKey: "key", SecretKey: "secret", Region: "us-east-1", Insecure: true})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.EnsureBucket(context.Background()); err != nil {
			t.Fatal(err)
		}
		return s
	})
}
