package blob

import (
	"bytes"
	"context"
	"errors"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/trawlhq/trawl/ports"
)

// S3Options configure an S3-compatible bucket (AWS S3, MinIO, R2, ...).
type S3Options struct {
	Endpoint  string // host[:port], e.g. s3.amazonaws.com or 127.0.0.1:9000
	Bucket    string
	AccessKey string
	SecretKey string
	Region    string
	Insecure  bool // plain HTTP (local servers)
}

// S3 implements ports.BlobStore on a bucket with presigned links.
type S3 struct {
	client *minio.Client
	bucket string
}

var _ ports.BlobStore = (*S3)(nil)

// NewS3 connects to a bucket.
func NewS3(o S3Options) (*S3, error) {
	if o.Endpoint == "" || o.Bucket == "" {
		return nil, errors.New("blob.NewS3: endpoint and bucket are required")
	}
	c, err := minio.New(o.Endpoint, &minio.Options{
		Creds: credentials.NewStaticV4(o.AccessKey, o.SecretKey, ""), Secure: !o.Insecure, Region: o.Region, BucketLookup: minio.BucketLookupPath,
	})
	if err != nil {
		return nil, err
	}
	return &S3{client: c, bucket: o.Bucket}, nil
}

// EnsureBucket creates the bucket when it does not exist.
func (s *S3) EnsureBucket(ctx context.Context) error {
	ok, err := s.client.BucketExists(ctx, s.bucket)
	if err != nil || ok {
		return err
	}
	return s.client.MakeBucket(ctx, s.bucket, minio.MakeBucketOptions{})
}

// Put implements ports.BlobStore; the object is stored with the
// Content-Disposition the local store serves, so a link downloads the same
// file name from either. The bytes are in memory already, so they go in one
// PUT (up to 5 GiB on AWS): the object appears whole or not at all, and a
// failed upload leaves no parts behind to be paid for.
func (s *S3) Put(ctx context.Context, key string, data []byte, contentType string) error {
	if _, err := cleanKey(key); err != nil {
		return err
	}
	_, err := s.client.PutObject(ctx, s.bucket, key, bytes.NewReader(data), int64(len(data)), minio.PutObjectOptions{ContentType: contentType, ContentDisposition: disposition(key), DisableMultipart: true})
	return err
}

// URL implements ports.BlobStore: a presigned GET link valid for ttl (at
// most 7 days, the S3 limit). It refuses the keys Put refuses.
func (s *S3) URL(ctx context.Context, key string, ttl time.Duration) (string, error) {
	if _, err := cleanKey(key); err != nil {
		return "", err
	}
	if ttl > 7*24*time.Hour {
		ttl = 7 * 24 * time.Hour
	}
	u, err := s.client.PresignedGetObject(ctx, s.bucket, key, ttl, nil)
	if err != nil {
		return "", err
	}
	return u.String(), nil
}
