package blob_test

import (
	"context"
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

func TestLocalObjectsContract(t *testing.T) {
	blobtest.RunObjects(t, func(t *testing.T) ports.BlobObjects {
		l, err := blob.NewLocal(t.TempDir(), []byte("contract-link-secret-0123456789"), "http://127.0.0.1", time.Now)
		if err != nil {
			t.Fatal(err)
		}
		return l
	})
}

func TestS3ObjectsContract(t *testing.T) {
	blobtest.RunObjects(t, func(t *testing.T) ports.BlobObjects {
		fake := httptest.NewServer(gofakes3.New(s3mem.New()).Server())
		t.Cleanup(fake.Close)
		s, err := blob.NewS3(blob.S3Options{Endpoint: strings.TrimPrefix(fake.URL, "http://"), Bucket: "trawl-cache", AccessKey: "key", SecretKey: "secret", Region: "us-east-1", Insecure: true})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.EnsureBucket(context.Background()); err != nil {
			t.Fatal(err)
		}
		return s
	})
}
