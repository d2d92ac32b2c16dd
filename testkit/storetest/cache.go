package storetest

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/trawlhq/trawl/ports"
)

// CacheStores is what the page cache's contract runs on.
type CacheStores interface {
	Stores
	ports.CacheIndex
}

// RunCache runs the contract tests of the page cache's index.
func RunCache(t *testing.T, open Opener) {
	t.Run("CacheEntryRoundTrip", func(t *testing.T) { testCacheRoundTrip(t, open(t).(CacheStores)) })
	t.Run("CachePutReplaces", func(t *testing.T) { testCacheReplace(t, open(t).(CacheStores)) })
	t.Run("CacheTouch", func(t *testing.T) { testCacheTouch(t, open(t).(CacheStores)) })
	t.Run("CacheEvictsLeastRecentlyUsed", func(t *testing.T) { testCacheEvict(t, open(t).(CacheStores)) })
	t.Run("CacheConcurrentPutsOfOneKey", func(t *testing.T) { testCacheConcurrentPuts(t, open(t).(CacheStores)) })
	t.Run("BulkJobKeepsItsCacheRequest", func(t *testing.T) { testBulkJobCacheRequest(t, open(t)) })
}

func testBulkJobCacheRequest(t *testing.T, st Stores) {
	s, ok := st.(ports.JobStore)
	if !ok {
		t.Skip("no job store")
	}
	ctx := context.Background()
	a := newAccount(t, st, "cache-job@example.com", "basic")
	for _, j := range []ports.BulkJob{
		{ID: "job_cache_a", CacheMaxAge: 3600, CacheNoStore: true},
		{ID: "job_cache_b"},
	} {
		j.AccountID, j.TokenID, j.Status, j.URLSource, j.QueuedAt, j.HoldID, j.Email = a.ID, 1, ports.JobQueued, ports.URLSource("urls"), t0, "hold_"+j.ID, true
		if err := s.CreateJob(ctx, j, []string{"https://site.test/a"}); err != nil {
			t.Fatal(err)
		}
		got, err := s.Job(ctx, j.ID)
		if err != nil || got.CacheMaxAge != j.CacheMaxAge || got.CacheNoStore != j.CacheNoStore {
			t.Fatalf("job %s read back with max_age %d, no-store %v (%v); want %d, %v", j.ID, got.CacheMaxAge, got.CacheNoStore, err, j.CacheMaxAge, j.CacheNoStore)
		}
	}
}

func cacheEntry(key string, size int64, at time.Time) ports.CacheEntry {
	return ports.CacheEntry{
		Key: key, URL: "https://site.test/" + key, FinalURL: "https://site.test/" + key + "/", Engine: "http", StatusCode: 200,
		ContentType: "text/html", Charset: "utf-8", ETag: `"v1-` + key + `"`, LastModified: "Wed, 21 Oct 2026 07:28:00 GMT",
		BodyKey: "cache/" + key + "/" + fmt.Sprint(at.UnixNano()), Size: size, StoredAt: at, UsedAt: at,
	}
}

func sameEntry(a, b ports.CacheEntry) bool {
	return a.Key == b.Key && a.URL == b.URL && a.FinalURL == b.FinalURL && a.Engine == b.Engine && a.StatusCode == b.StatusCode &&
		a.ContentType == b.ContentType && a.Charset == b.Charset && a.ETag == b.ETag && a.LastModified == b.LastModified &&
		a.BodyKey == b.BodyKey && a.Size == b.Size && a.StoredAt.Equal(b.StoredAt) && a.UsedAt.Equal(b.UsedAt)
}

func testCacheRoundTrip(t *testing.T, s CacheStores) {
	ctx := context.Background()
	if _, found, err := s.CacheEntry(ctx, "none"); err != nil || found {
		t.Fatalf("CacheEntry of a missing key: found %v, %v", found, err)
	}
	e := cacheEntry("k1", 1234, t0)
	if _, replaced, err := s.PutCacheEntry(ctx, e); err != nil || replaced {
		t.Fatalf("first PutCacheEntry: replaced %v, %v", replaced, err)
	}
	got, found, err := s.CacheEntry(ctx, "k1")
	if err != nil || !found || !sameEntry(got, e) {
		t.Fatalf("CacheEntry = %+v, %v, %v; want %+v", got, found, err, e)
	}
	if n, err := s.CacheBytes(ctx); err != nil || n != 1234 {
		t.Fatalf("CacheBytes = %d, %v; want 1234", n, err)
	}
}

func testCacheReplace(t *testing.T, s CacheStores) {
	ctx := context.Background()
	first := cacheEntry("k", 100, t0)
	if _, _, err := s.PutCacheEntry(ctx, first); err != nil {
		t.Fatal(err)
	}
	second := cacheEntry("k", 300, t0.Add(time.Minute))
	second.ETag = ""
	old, replaced, err := s.PutCacheEntry(ctx, second)
	if err != nil || !replaced || !sameEntry(old, first) {
		t.Fatalf("PutCacheEntry over an entry returned %+v, %v, %v; want the first entry", old, replaced, err)
	}
	if got, _, _ := s.CacheEntry(ctx, "k"); !sameEntry(got, second) {
		t.Fatalf("after replace: %+v, want %+v", got, second)
	}
	if n, _ := s.CacheBytes(ctx); n != 300 {
		t.Fatalf("CacheBytes after replace = %d, want 300 (one entry)", n)
	}
}

func testCacheTouch(t *testing.T, s CacheStores) {
	ctx := context.Background()
	e := cacheEntry("k", 10, t0)
	if _, _, err := s.PutCacheEntry(ctx, e); err != nil {
		t.Fatal(err)
	}
	used := t0.Add(time.Hour)
	if err := s.TouchCacheEntry(ctx, "k", used, time.Time{}); err != nil {
		t.Fatal(err)
	}
	got, _, _ := s.CacheEntry(ctx, "k")
	if !got.UsedAt.Equal(used) || !got.StoredAt.Equal(t0) {
		t.Fatalf("after a use: used %v stored %v; want used %v, stored unchanged %v", got.UsedAt, got.StoredAt, used, t0)
	}
	confirmed := t0.Add(2 * time.Hour)
	if err := s.TouchCacheEntry(ctx, "k", confirmed, confirmed); err != nil {
		t.Fatal(err)
	}
	got, _, _ = s.CacheEntry(ctx, "k")
	if !got.UsedAt.Equal(confirmed) || !got.StoredAt.Equal(confirmed) {
		t.Fatalf("after a revalidation: used %v stored %v; want both %v", got.UsedAt, got.StoredAt, confirmed)
	}
	if err := s.TouchCacheEntry(ctx, "gone", confirmed, time.Time{}); err != nil {
		t.Fatalf("touching a missing entry: %v", err)
	}
}

func testCacheEvict(t *testing.T, s CacheStores) {
	ctx := context.Background()
	for i, k := range []string{"a", "b", "c", "d"} {
		if _, _, err := s.PutCacheEntry(ctx, cacheEntry(k, 100, t0.Add(time.Duration(i)*time.Minute))); err != nil {
			t.Fatal(err)
		}
	}
	// a is used again: b is now the least recently used.
	if err := s.TouchCacheEntry(ctx, "a", t0.Add(time.Hour), time.Time{}); err != nil {
		t.Fatal(err)
	}
	if gone, err := s.EvictCacheEntries(ctx, 400); err != nil || len(gone) != 0 {
		t.Fatalf("evict within the bound removed %d, %v", len(gone), err)
	}
	gone, err := s.EvictCacheEntries(ctx, 250)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, e := range gone {
		keys = append(keys, e.Key)
		if e.BodyKey == "" {
			t.Errorf("evicted %s without its body key", e.Key)
		}
	}
	sort.Strings(keys)
	if fmt.Sprint(keys) != "[b c]" {
		t.Fatalf("evicted %v, want [b c] (the least recently used)", keys)
	}
	for k, want := range map[string]bool{"a": true, "b": false, "c": false, "d": true} {
		if _, found, _ := s.CacheEntry(ctx, k); found != want {
			t.Errorf("%s kept = %v, want %v", k, found, want)
		}
	}
	if n, _ := s.CacheBytes(ctx); n != 200 {
		t.Fatalf("CacheBytes after eviction = %d, want 200", n)
	}
	if gone, _ := s.EvictCacheEntries(ctx, 0); len(gone) != 2 {
		t.Fatalf("evict to 0 removed %d, want the 2 left", len(gone))
	}
}

func testCacheConcurrentPuts(t *testing.T, s CacheStores) {
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _, err := s.PutCacheEntry(ctx, cacheEntry("same", 50, t0.Add(time.Duration(i)*time.Second)))
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if n, _ := s.CacheBytes(ctx); n != 50 {
		t.Fatalf("CacheBytes after 8 puts of one key = %d, want 50 (one entry)", n)
	}
}
