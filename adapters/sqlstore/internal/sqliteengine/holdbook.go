package sqliteengine

import (
	"context"
	"maps"
	"sync"
	"time"

	"github.com/trawlhq/trawl/ports"
)

// holdBook keeps the credit holds of a SQLite store in this process's
// memory. SQLite is single-node: one process owns the file and every change
// to a balance goes through its writer gate, so the holds need not be in
// the file for other processes to see. A hold in memory costs no write
// transaction to place or drop, and a billed call writes the file once, for
// its charge. Holds that must outlive the process (Hold.Durable: a bulk
// job's) are also kept in the holds table, and read back from it the first
// time the book is used; the others end with the process, which is what
// their expiry is for anyway.
//
// The book is changed only by a locked view (sqliteTx) holding the writer
// gate, which applies its changes after its transaction commits; mu lets
// readers outside the gate (ReadCredits, OpenHolds) look at it meanwhile.
type holdBook struct {
	mu     sync.Mutex
	loaded bool
	// byAccount: account -> hold id -> hold. An account's map is never
	// changed in place once in the book: a view replaces it whole.
	byAccount map[int64]map[string]ports.Hold
}

// load reads the durable holds from the table, once.
func (b *holdBook) load(ctx context.Context, s Shared) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.loaded {
		return nil
	}
	holds, err := s.DurableHolds(ctx)
	if err != nil {
		return err
	}
	b.byAccount = map[int64]map[string]ports.Hold{}
	for _, h := range holds {
		m := b.byAccount[h.AccountID]
		if m == nil {
			m = map[string]ports.Hold{}
			b.byAccount[h.AccountID] = m
		}
		m[h.ID] = h
	}
	b.loaded = true
	return nil
}

// account is the account's holds; the map must not be changed.
func (b *holdBook) account(accountID int64) map[string]ports.Hold {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.byAccount[accountID]
}

// replace makes m the account's holds.
func (b *holdBook) replace(accountID int64, m map[string]ports.Hold) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(m) == 0 {
		delete(b.byAccount, accountID)
		return
	}
	b.byAccount[accountID] = m
}

// held sums the account's holds not expired at now.
func (b *holdBook) held(accountID int64, now time.Time) int64 {
	return liveSum(b.account(accountID), now, "")
}

// open counts every hold not expired at now, and the credits they reserve.
func (b *holdBook) open(now time.Time) (n int, credits int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, m := range b.byAccount {
		for _, h := range m {
			if h.ExpiresAt.After(now) {
				n++
				credits += h.Amount
			}
		}
	}
	return n, credits
}

// liveSum sums the holds of m not expired at now, but the one named except.
func liveSum(m map[string]ports.Hold, now time.Time, except string) int64 {
	var n int64
	for id, h := range m {
		if id != except && h.ExpiresAt.After(now) {
			n += h.Amount
		}
	}
	return n
}

// cloneHolds copies an account's holds for a view to change.
func cloneHolds(m map[string]ports.Hold) map[string]ports.Hold {
	if m == nil {
		return make(map[string]ports.Hold, 4)
	}
	return maps.Clone(m)
}
