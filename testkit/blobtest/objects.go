package blobtest

import (
	"bytes"
	"context"
	"testing"

	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/ports"
)

// ObjectsOpener returns a new, empty store that reads and deletes.
type ObjectsOpener func(t *testing.T) ports.BlobObjects

// RunObjects runs the contract tests of reading and deleting blobs.
func RunObjects(t *testing.T, open ObjectsOpener) {
	t.Run("GetReadsWhatWasPut", func(t *testing.T) { testGet(t, open(t)) })
	t.Run("DeleteRemoves", func(t *testing.T) { testDelete(t, open(t)) })
}

func testGet(t *testing.T, s ports.BlobObjects) {
	ctx := context.Background()
	data := make([]byte, 100<<10)
	for i := range data {
		data[i] = byte(i * 7)
	}
	put(t, s, "cache/ab/entry-1", data, "text/html")
	got, err := s.Get(ctx, "cache/ab/entry-1")
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("Get = %d bytes, %v; want the %d bytes put", len(got), err, len(data))
	}
	put(t, s, "cache/ab/entry-1", []byte("second"), "text/html")
	if got, err := s.Get(ctx, "cache/ab/entry-1"); err != nil || string(got) != "second" {
		t.Fatalf("Get after overwrite = %q, %v", got, err)
	}
	if _, err := s.Get(ctx, "cache/ab/none"); !failure.Is(err, failure.NotFound) {
		t.Fatalf("Get of a missing key: %v, want NotFound", err)
	}
	if _, err := s.Get(ctx, "../escape"); err == nil || failure.Is(err, failure.NotFound) {
		t.Fatalf("Get of an invalid key: %v, want a refusal", err)
	}
}

func testDelete(t *testing.T, s ports.BlobObjects) {
	ctx := context.Background()
	put(t, s, "cache/cd/a", []byte("a"), "text/html")
	put(t, s, "cache/cd/b", []byte("b"), "text/html")
	if err := s.Delete(ctx, "cache/cd/a"); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if _, err := s.Get(ctx, "cache/cd/a"); !failure.Is(err, failure.NotFound) {
		t.Fatalf("Get after Delete: %v, want NotFound", err)
	}
	if got, err := s.Get(ctx, "cache/cd/b"); err != nil || string(got) != "b" {
		t.Fatalf("the other key after Delete = %q, %v", got, err)
	}
	if err := s.Delete(ctx, "cache/cd/a"); err != nil {
		t.Fatalf("Delete of a missing key: %v, want nil", err)
	}
	if err := s.Delete(ctx, "../escape"); err == nil {
		t.Fatal("Delete of an invalid key accepted")
	}
}
