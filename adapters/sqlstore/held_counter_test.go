package sqlstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/trawlhq/trawl/adapters/sqlstore"
	"github.com/trawlhq/trawl/core/credits"
	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/ports"
	"github.com/trawlhq/trawl/testkit"
	"github.com/trawlhq/trawl/testkit/pgtest"
)

func pgWithAccount(t *testing.T) (*sqlstore.Store, ports.Principal) {
	t.Helper()
	s, err := sqlstore.Open(context.Background(), sqlstore.Options{DatabaseURL: pgtest.NewDatabase(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, basicPrincipal(t, s)
}

// basicPrincipal creates an account on the basic plan with one token.
func basicPrincipal(t *testing.T, s *sqlstore.Store) ports.Principal {
	t.Helper()
	return newPrincipal(t, s, "basic", "h")
}

// newPrincipal creates an account on plan with one token of hash.
func newPrincipal(t testing.TB, s *sqlstore.Store, plan, hash string) ports.Principal {
	t.Helper()
	ctx := context.Background()
	now := time.Now()
	a, err := s.CreateAccount(ctx, ports.Account{Name: "A", Email: "a@example.com", Plan: plan, CreatedAt: now, UpdatedAt: now})
	if err != nil {
		t.Fatal(err)
	}
	tok, err := s.CreateToken(ctx, ports.Token{AccountID: a.ID, Name: "t", Hash: hash, Preview: "p", CreatedAt: now}, 10)
	if err != nil {
		t.Fatal(err)
	}
	return ports.Principal{Account: a.Caller(), Token: tok.Caller()}
}

// heldColumns is the account row's count of its holds, beside their sum.
func heldColumns(t *testing.T, s *sqlstore.Store, accountID int64) (counted, summed int64) {
	t.Helper()
	if err := s.DB().QueryRow(`SELECT held, (SELECT COALESCE(SUM(amount), 0) FROM holds WHERE account_id = $1) FROM accounts WHERE id = $1`, accountID).Scan(&counted, &summed); err != nil {
		t.Fatal(err)
	}
	return counted, summed
}

// The account row counts its holds whoever writes them: the ledger, or a
// statement of its own (a node of the previous version in a rolling
// upgrade); expired holds stop counting and are cleared when one is placed.
func TestPostgresHeldCounter(t *testing.T) {
	s, p := pgWithAccount(t)
	ctx := context.Background()
	clock := testkit.NewClock(time.Now())
	ledger, _ := credits.NewLedger(s, clock)
	reserve := func(amount int64, ttl time.Duration) ports.Hold {
		t.Helper()
		h, err := ledger.Reserve(ctx, ports.ReserveRequest{AccountID: p.Account.ID, TokenID: p.Token.ID, Amount: amount, TTL: ttl})
		if err != nil {
			t.Fatalf("reserve %d: %v", amount, err)
		}
		return h
	}
	a := reserve(1000, time.Minute)
	b := reserve(2000, time.Hour)
	if _, _, err := ledger.ChargeHold(ctx, b, ports.Charge{Credits: 500, ServiceType: "bulk", ServiceName: "Bulk"}, "k1"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.DB().Exec(`INSERT INTO holds (id, account_id, token_id, amount, created_at, expires_at) VALUES ('raw', $1, 0, 700, 0, $2)`,
		p.Account.ID, clock.Now().Add(time.Hour).UnixMilli()); err != nil {
		t.Fatal(err)
	}
	if counted, summed := heldColumns(t, s, p.Account.ID); counted != 1000+1500+700 || counted != summed {
		t.Fatalf("held %d, holds sum to %d; want 3200 both", counted, summed)
	}
	if _, held, err := s.ReadCredits(ctx, p.Account.ID, clock.Now()); err != nil || held != 3200 {
		t.Fatalf("ReadCredits held %d (%v), want 3200", held, err)
	}
	if _, err := s.DB().Exec(`DELETE FROM holds WHERE id = 'raw'`); err != nil {
		t.Fatal(err)
	}
	// a expires: it stops counting at once, and the next hold clears it.
	clock.Advance(2 * time.Minute)
	if _, held, _ := s.ReadCredits(ctx, p.Account.ID, clock.Now()); held != 1500 {
		t.Fatalf("ReadCredits held %d after a expired, want 1500", held)
	}
	balance := int64(6000 - 500)
	c := reserve(balance-1500, time.Minute) // all a's credits are free again
	if _, err := ledger.Reserve(ctx, ports.ReserveRequest{AccountID: p.Account.ID, Amount: 1}); !failure.Is(err, failure.InsufficientCredits) {
		t.Fatalf("reserve beyond the balance: %v, want InsufficientCredits", err)
	}
	if counted, summed := heldColumns(t, s, p.Account.ID); counted != balance || counted != summed {
		t.Fatalf("held %d, holds sum to %d; want %d both (a deleted)", counted, summed, balance)
	}
	if err := ledger.Release(ctx, a); err != nil {
		t.Fatal(err)
	}
	if _, err := ledger.Settle(ctx, c, ports.Charge{Credits: 3, ServiceType: "scrape", ServiceName: "Scrape"}); err != nil {
		t.Fatal(err)
	}
	if counted, summed := heldColumns(t, s, p.Account.ID); counted != 1500 || counted != summed {
		t.Fatalf("held %d, holds sum to %d; want 1500 both", counted, summed)
	}
}

// A settle checks the token in its first statement, which may wait for the
// row lock; a token deleted after that check and before the charge is
// written still charges nothing.
func TestPostgresTokenDeletedAfterTheCheck(t *testing.T) {
	s, p := pgWithAccount(t)
	ctx := context.Background()
	ledger, _ := credits.NewLedger(s, testkit.NewClock(time.Now()))
	h, err := ledger.Reserve(ctx, ports.ReserveRequest{AccountID: p.Account.ID, TokenID: p.Token.ID, Amount: 5})
	if err != nil {
		t.Fatal(err)
	}
	err = s.WithCredits(ctx, p.Account.ID, func(tx ports.LedgerTx) error {
		live, _, err := tx.DropHold(h.ID, p.Token.ID, time.Now())
		if err != nil || !live {
			t.Fatalf("DropHold = %v, %v; want live", live, err)
		}
		if err := s.DeleteToken(ctx, p.Account.ID, p.Token.ID); err != nil {
			t.Fatal(err)
		}
		st := tx.State()
		st.Used, st.AllowanceUsed = st.Used+5, st.AllowanceUsed+5
		if err := tx.SaveState(st); err != nil {
			return err
		}
		_, err = tx.AddTransaction(ports.Transaction{ServiceType: "scrape", ServiceName: "Scrape", Credits: 5, BalanceAfter: 5995, CreatedAt: time.Now()})
		return err
	})
	if !failure.Is(err, failure.Unauthenticated) {
		t.Fatalf("charge after the token was deleted: %v, want Unauthenticated", err)
	}
	st, _, _ := s.ReadCredits(ctx, p.Account.ID, time.Now())
	if _, total, _ := s.Transactions(ctx, p.Account.ID, 10, 0); st.Used != 0 || total != 0 {
		t.Fatalf("used %d, %d transactions; want nothing charged", st.Used, total)
	}
}
