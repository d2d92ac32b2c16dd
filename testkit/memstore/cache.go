package memstore

import (
	"context"
	"sort"
	"sync"
	"time"

	"github.com/trawlhq/trawl/ports"
)

var _ ports.CacheIndex = (*Store)(nil)

type pageCache struct {
	mu      sync.Mutex
	entries map[string]ports.CacheEntry
}

func (c *pageCache) init() {
	if c.entries == nil {
		c.entries = map[string]ports.CacheEntry{}
	}
}

// CacheEntry implements ports.CacheIndex.
func (s *Store) CacheEntry(_ context.Context, key string) (ports.CacheEntry, bool, error) {
	s.pc.mu.Lock()
	defer s.pc.mu.Unlock()
	e, ok := s.pc.entries[key]
	return e, ok, nil
}

// PutCacheEntry implements ports.CacheIndex.
func (s *Store) PutCacheEntry(_ context.Context, e ports.CacheEntry) (ports.CacheEntry, bool, error) {
	s.pc.mu.Lock()
	defer s.pc.mu.Unlock()
	s.pc.init()
	old, ok := s.pc.entries[e.Key]
	s.pc.entries[e.Key] = e
	return old, ok, nil
}

// TouchCacheEntry implements ports.CacheIndex.
func (s *Store) TouchCacheEntry(_ context.Context, key string, usedAt, storedAt time.Time) error {
	s.pc.mu.Lock()
	defer s.pc.mu.Unlock()
	e, ok := s.pc.entries[key]
	if !ok {
		return nil
	}
	e.UsedAt = usedAt
	if !storedAt.IsZero() {
		e.StoredAt = storedAt
	}
	s.pc.entries[key] = e
	return nil
}

// EvictCacheEntries implements ports.CacheIndex.
func (s *Store) EvictCacheEntries(_ context.Context, maxBytes int64) ([]ports.CacheEntry, error) {
	s.pc.mu.Lock()
	defer s.pc.mu.Unlock()
	var total int64
	all := make([]ports.CacheEntry, 0, len(s.pc.entries))
	for _, e := range s.pc.entries {
		total += e.Size
		all = append(all, e)
	}
	if total <= maxBytes {
		return nil, nil
	}
	sort.Slice(all, func(i, j int) bool {
		if !all[i].UsedAt.Equal(all[j].UsedAt) {
			return all[i].UsedAt.Before(all[j].UsedAt)
		}
		return all[i].Key < all[j].Key
	})
	var gone []ports.CacheEntry
	for _, e := range all {
		if total <= maxBytes {
			break
		}
		delete(s.pc.entries, e.Key)
		total -= e.Size
		gone = append(gone, e)
	}
	return gone, nil
}

// CacheBytes implements ports.CacheIndex.
func (s *Store) CacheBytes(context.Context) (int64, error) {
	s.pc.mu.Lock()
	defer s.pc.mu.Unlock()
	var total int64
	for _, e := range s.pc.entries {
		total += e.Size
	}
	return total, nil
}
