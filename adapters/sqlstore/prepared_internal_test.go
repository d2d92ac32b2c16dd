package sqlstore

import (
	"context"
	"testing"
	"time"

	"github.com/trawlhq/trawl/ports"
)

// cachedQueries counts the statements prepared so far.
func (s *Store) cachedQueries() int {
	s.stmts.mu.RLock()
	defer s.stmts.mu.RUnlock()
	return len(s.stmts.m)
}

// TestStatementsPreparedOnceWithoutStarvingThePool: with a single connection,
// held by a transaction whose statements are not prepared yet, the
// transaction still runs (the preparation waits its turn instead of taking
// the connection the transaction holds), and afterwards the statements run
// prepared, inside transactions and out.
func TestStatementsPreparedOnceWithoutStarvingThePool(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, Options{DataDir: t.TempDir(), QueryTimeout: 3 * time.Second, Pool: Pool{MaxConns: 1}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	now := time.Now()
	a, err := s.CreateAccount(ctx, ports.Account{Name: "A", Email: "a@example.com", Plan: "basic", CreatedAt: now, UpdatedAt: now})
	if err != nil {
		t.Fatal(err)
	}
	charge := func() error {
		return s.WithCredits(ctx, a.ID, func(tx ports.LedgerTx) error {
			st := tx.State()
			st.TopUp++
			if _, err := tx.HeldAmount(now); err != nil {
				return err
			}
			return tx.SaveState(st)
		})
	}
	if err := charge(); err != nil {
		t.Fatalf("first transaction: %v", err)
	}
	lock := s.q(`SELECT ` + accountCols + ` FROM accounts WHERE id = ?`)
	deadline := time.Now().Add(5 * time.Second)
	for s.prepared(lock) == nil {
		if time.Now().After(deadline) {
			t.Fatal("the lock statement was never prepared")
		}
		time.Sleep(5 * time.Millisecond)
	}
	for range 50 {
		if err := charge(); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.ReadCredits(ctx, a.ID, now); err != nil {
			t.Fatal(err)
		}
	}
	st, _, err := s.ReadCredits(ctx, a.ID, now)
	if err != nil || st.TopUp != 51 {
		t.Fatalf("top-up %d (%v); want 51", st.TopUp, err)
	}
	if n := s.cachedQueries(); n == 0 || n > 10 {
		t.Fatalf("%d statements cached; want the few this test ran", n)
	}
}
