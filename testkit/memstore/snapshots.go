package memstore

import (
	"bytes"
	"context"
	"sync"
	"time"

	"github.com/trawlhq/trawl/ports"
)

var _ ports.SnapshotStore = (*Store)(nil)

type snapshotKey struct {
	account  int64
	url, tag string
}

type snapshots struct {
	mu sync.Mutex
	m  map[snapshotKey]ports.Snapshot
}

// Snapshot implements ports.SnapshotStore.
func (s *Store) Snapshot(_ context.Context, accountID int64, urlKey, tag string) (ports.Snapshot, bool, error) {
	s.sn.mu.Lock()
	defer s.sn.mu.Unlock()
	sn, ok := s.sn.m[snapshotKey{accountID, urlKey, tag}]
	sn.Data = bytes.Clone(sn.Data)
	return sn, ok, nil
}

// PutSnapshot implements ports.SnapshotStore.
func (s *Store) PutSnapshot(_ context.Context, sn ports.Snapshot) error {
	s.sn.mu.Lock()
	defer s.sn.mu.Unlock()
	if s.sn.m == nil {
		s.sn.m = map[snapshotKey]ports.Snapshot{}
	}
	sn.Data = bytes.Clone(sn.Data)
	s.sn.m[snapshotKey{sn.AccountID, sn.URLKey, sn.Tag}] = sn
	return nil
}

// PruneSnapshots implements ports.SnapshotStore.
func (s *Store) PruneSnapshots(_ context.Context, before time.Time) (int64, error) {
	s.sn.mu.Lock()
	defer s.sn.mu.Unlock()
	var n int64
	for k, sn := range s.sn.m {
		if sn.TakenAt.Before(before) {
			delete(s.sn.m, k)
			n++
		}
	}
	return n, nil
}
