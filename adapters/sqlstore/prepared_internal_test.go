package sqlstore

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/ports"
	"github.com/trawlhq/trawl/testkit/pgtest"
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

// The writes a locked view keeps for its next statement: the credit row goes
// with the next transaction (both or neither), and expired holds are gone
// before any other statement about the holds, on both databases.
func TestLedgerWritesRideOnTheNextStatement(t *testing.T) {
	for name, open := range map[string]func(t *testing.T) *Store{
		"sqlite": func(t *testing.T) *Store {
			s, err := Open(context.Background(), Options{DataDir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			return s
		},
		"postgres": func(t *testing.T) *Store {
			s, err := Open(context.Background(), Options{DatabaseURL: pgtest.NewDatabase(t)})
			if err != nil {
				t.Fatal(err)
			}
			return s
		},
	} {
		t.Run(name, func(t *testing.T) {
			s := open(t)
			defer s.Close()
			ctx := context.Background()
			now := time.UnixMilli(time.Now().UnixMilli()).UTC()
			a, err := s.CreateAccount(ctx, ports.Account{Name: "A", Email: "a@example.com", Plan: "basic", CreatedAt: now, UpdatedAt: now})
			if err != nil {
				t.Fatal(err)
			}
			charge := func(topUp int64, key string) error {
				return s.WithCredits(ctx, a.ID, func(tx ports.LedgerTx) error {
					st := tx.State()
					st.TopUp = topUp
					if err := tx.SaveState(st); err != nil {
						return err
					}
					if tx.State().TopUp != topUp {
						t.Fatalf("State after SaveState = %d, want %d", tx.State().TopUp, topUp)
					}
					_, err := tx.AddTransaction(ports.Transaction{ServiceType: "scrape", ServiceName: "Scrape", Credits: 1, BalanceAfter: 1, CreatedAt: now, ChargeKey: key})
					return err
				})
			}
			if err := charge(40, "k"); err != nil {
				t.Fatal(err)
			}
			// The same key again: the transaction is refused, and the row
			// saved with it is not written either.
			if err := charge(10, "k"); !failure.Is(err, failure.Conflict) {
				t.Fatalf("second charge with the key: %v, want Conflict", err)
			}
			st, _, err := s.ReadCredits(ctx, a.ID, now)
			if err != nil || st.TopUp != 40 {
				t.Fatalf("top-up %d (%v); want 40", st.TopUp, err)
			}
			if _, total, _ := s.Transactions(ctx, a.ID, 10, 0); total != 1 {
				t.Fatalf("%d transactions, want 1", total)
			}
			// A saved row with no transaction after it is written at the commit.
			if err := s.WithCredits(ctx, a.ID, func(tx ports.LedgerTx) error {
				st := tx.State()
				st.TopUp = 7
				return tx.SaveState(st)
			}); err != nil {
				t.Fatal(err)
			}
			if st, _, _ := s.ReadCredits(ctx, a.ID, now); st.TopUp != 7 {
				t.Fatalf("top-up %d, want 7", st.TopUp)
			}
			// Expired holds: gone for Hold, for the sum, and after the commit.
			err = s.WithCredits(ctx, a.ID, func(tx ports.LedgerTx) error {
				for i, exp := range []time.Time{now.Add(-time.Minute), now.Add(time.Minute)} {
					if err := tx.PutHold(ports.Hold{ID: fmt.Sprint("h", i), AccountID: a.ID, Amount: 3, CreatedAt: now.Add(-time.Hour), ExpiresAt: exp}); err != nil {
						return err
					}
				}
				if err := tx.DeleteExpiredHolds(now); err != nil {
					return err
				}
				if _, err := tx.Hold("h0"); !failure.Is(err, failure.NotFound) {
					t.Fatalf("expired hold after DeleteExpiredHolds: %v, want NotFound", err)
				}
				if n, err := tx.HeldAmount(now); err != nil || n != 3 {
					t.Fatalf("HeldAmount = %d, %v; want 3", n, err)
				}
				return tx.DeleteExpiredHolds(now.Add(2 * time.Minute))
			})
			if err != nil {
				t.Fatal(err)
			}
			if _, held, _ := s.ReadCredits(ctx, a.ID, now); held != 0 {
				t.Fatalf("held %d after every hold expired and was deleted, want 0", held)
			}
		})
	}
}
