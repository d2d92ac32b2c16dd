package blob

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/minio/minio-go/v7"

	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/ports"
)

var (
	_ ports.BlobObjects = (*Local)(nil)
	_ ports.BlobObjects = (*S3)(nil)
)

// Get implements ports.BlobObjects.
func (l *Local) Get(_ context.Context, key string) ([]byte, error) {
	k, err := cleanKey(key)
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(filepath.Join(l.dir, filepath.FromSlash(k)))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, failure.E("blob.Get", failure.NotFound, "blob not found")
	}
	return b, err
}

// Delete implements ports.BlobObjects.
func (l *Local) Delete(_ context.Context, key string) error {
	k, err := cleanKey(key)
	if err != nil {
		return err
	}
	p := filepath.Join(l.dir, filepath.FromSlash(k))
	for _, f := range []string{p, p + typeSuffix} {
		if err := os.Remove(f); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

// Get implements ports.BlobObjects.
func (s *S3) Get(ctx context.Context, key string) ([]byte, error) {
	if _, err := cleanKey(key); err != nil {
		return nil, err
	}
	obj, err := s.client.GetObject(ctx, s.bucket, key, minio.GetObjectOptions{})
	if err != nil {
		return nil, err
	}
	defer obj.Close()
	b, err := io.ReadAll(obj)
	if err != nil {
		if minio.ToErrorResponse(err).Code == "NoSuchKey" {
			return nil, failure.E("blob.Get", failure.NotFound, "blob not found")
		}
		return nil, err
	}
	return b, nil
}

// Delete implements ports.BlobObjects.
func (s *S3) Delete(ctx context.Context, key string) error {
	if _, err := cleanKey(key); err != nil {
		return err
	}
	err := s.client.RemoveObject(ctx, s.bucket, key, minio.RemoveObjectOptions{})
	if err != nil && minio.ToErrorResponse(err).Code == "NoSuchKey" {
		return nil
	}
	return err
}
