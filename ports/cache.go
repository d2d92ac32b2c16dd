package ports

import (
	"context"
	"time"
)

// CacheEntry is one fetched response kept by the page cache, as its index
// knows it: where it came from, what the site said about it, and where its
// body is kept (a blob under BodyKey).
type CacheEntry struct {
	// Key identifies what was fetched: the normalised URL, the engine, the
	// options that change what the site sends and, for a fetch made with
	// the caller's own headers or cookies, the account (core/cache builds it).
	Key         string
	URL         string // the URL as fetched
	FinalURL    string // after redirects
	Engine      string // http or browser
	StatusCode  int
	ContentType string
	Charset     string
	// ETag and LastModified are the validators the site sent, replayed as
	// If-None-Match and If-Modified-Since when the entry is stale.
	ETag         string
	LastModified string
	BodyKey      string // the blob holding the body
	Size         int64  // bytes the entry counts against the cache's bound
	// StoredAt is when the site last vouched for the response: fetched, or
	// confirmed unchanged by a 304. The entry's age counts from it.
	StoredAt time.Time
	// UsedAt is when the entry was last stored or served: eviction drops
	// the least recently used first.
	UsedAt time.Time
}

// CacheIndex is the page cache's index: which responses are kept, how big
// they are and when each was last used. Bodies live in a BlobObjects.
type CacheIndex interface {
	// CacheEntry reads the entry under key; found is false when there is none.
	CacheEntry(ctx context.Context, key string) (e CacheEntry, found bool, err error)
	// PutCacheEntry stores e, replacing the entry under the same key; it
	// returns the replaced entry (found false when there was none), so the
	// caller can drop its body.
	PutCacheEntry(ctx context.Context, e CacheEntry) (replaced CacheEntry, found bool, err error)
	// TouchCacheEntry marks the entry as used at usedAt; when storedAt is
	// not zero it also sets StoredAt (a 304 confirmed the response). An
	// entry that is gone is not an error.
	TouchCacheEntry(ctx context.Context, key string, usedAt, storedAt time.Time) error
	// EvictCacheEntries removes least recently used entries until the sizes
	// of those left add up to at most maxBytes, and returns those removed.
	EvictCacheEntries(ctx context.Context, maxBytes int64) ([]CacheEntry, error)
	// CacheBytes is what the entries' sizes add up to.
	CacheBytes(ctx context.Context) (int64, error)
}

// BlobObjects is a blob store that also reads and deletes what it keeps:
// the page cache keeps its bodies in one.
type BlobObjects interface {
	BlobStore
	// Get reads the blob under key; a missing key is failure.NotFound.
	Get(ctx context.Context, key string) ([]byte, error)
	// Delete removes the blob under key; a missing key is not an error.
	Delete(ctx context.Context, key string) error
}
