package sqlstore_test

import (
	"context"
	"database/sql"
	"math"
	"runtime/metrics"
	"slices"
	"testing"
	"time"

	"github.com/trawlhq/trawl/adapters/sqlstore"
	"github.com/trawlhq/trawl/core/billing"
	"github.com/trawlhq/trawl/core/credits"
	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/ports"
	"github.com/trawlhq/trawl/testkit"
	"github.com/trawlhq/trawl/testkit/mocks"
	"github.com/trawlhq/trawl/testkit/pgtest"
	"github.com/trawlhq/trawl/testkit/storetest"
)

func TestContractRestartSQLite(t *testing.T) {
	runRestart(t, func(t *testing.T) sqlstore.Options { return sqlstore.Options{DataDir: t.TempDir()} })
}

func TestContractRestartPostgres(t *testing.T) {
	runRestart(t, func(t *testing.T) sqlstore.Options { return sqlstore.Options{DatabaseURL: pgtest.NewDatabase(t)} })
}

// runRestart runs the restart contract on a store reopened with the same
// options, as a restarted server would open it.
func runRestart(t *testing.T, options func(t *testing.T) sqlstore.Options) {
	storetest.RunRestart(t, func(t *testing.T) (storetest.Stores, func() storetest.Stores) {
		o := options(t)
		open := func() *sqlstore.Store {
			s, err := sqlstore.Open(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			return s
		}
		s := open()
		return s, func() storetest.Stores { s.Close(); s = open(); return s }
	})
}

// sqliteWithAccount opens a SQLite store with an account on the basic plan
// and a token, and a second handle on the same file, as another process.
func sqliteWithAccount(t *testing.T, timeout time.Duration) (*sqlstore.Store, *sql.DB, ports.Principal) {
	t.Helper()
	dir := t.TempDir()
	s, err := sqlstore.Open(context.Background(), sqlstore.Options{DataDir: dir, QueryTimeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	other, err := sql.Open("sqlite", "file:"+sqlstore.SQLitePath(dir)+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close() })
	return s, other, basicPrincipal(t, s)
}

// A decision taken on a remembered credit row that writes nothing (a
// refusal, a plan the account already has) stands only if the row is the
// file's: what another process changed after the authentication read is
// seen, not answered from memory.
func TestSQLiteDecisionsThatWriteNothingSeeTheFile(t *testing.T) {
	reserve := func(ctx context.Context, _ *credits.Service, ledger *credits.Ledger, p ports.Principal) error {
		_, err := ledger.Reserve(ctx, ports.ReserveRequest{AccountID: p.Account.ID, TokenID: p.Token.ID, Amount: 1})
		return err
	}
	for _, tc := range []struct {
		name string
		// before runs in another process before the authentication read,
		// after between it and the call.
		before, after string
		call          func(context.Context, *credits.Service, *credits.Ledger, ports.Principal) error
		wantPlan      string
		wantHeld      int64
	}{
		{name: "credits added after the balance ran out", before: `UPDATE accounts SET allowance_used = 6000 WHERE id = ?`,
			after: `UPDATE accounts SET topup = 5 WHERE id = ?`, call: reserve, wantPlan: "basic", wantHeld: 1},
		{name: "a plan set on an account without one", before: `UPDATE accounts SET plan = '', plan_anchor = NULL, period_start = NULL WHERE id = ?`,
			after: `UPDATE accounts SET plan = 'basic' WHERE id = ?`, call: reserve, wantPlan: "basic", wantHeld: 1},
		{name: "a plan set back to the one remembered", after: `UPDATE accounts SET plan = 'pro' WHERE id = ?`,
			call: func(ctx context.Context, svc *credits.Service, _ *credits.Ledger, p ports.Principal) error {
				return svc.SetPlan(ctx, p.Account.ID, "basic")
			}, wantPlan: "basic"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, other, p := sqliteWithAccount(t, 5*time.Second)
			ctx := context.Background()
			clock := testkit.NewClock(time.Now())
			ledger, _ := credits.NewLedger(s, clock)
			svc, err := credits.NewService(s, s, mocks.NewPaymentProvider(t), clock, credits.DefaultPricing, billing.DefaultPlans())
			if err != nil {
				t.Fatal(err)
			}
			for _, q := range []string{tc.before, "", tc.after} {
				if q == "" {
					if _, err := s.PrincipalByTokenHash(ctx, p.Token.Hash); err != nil {
						t.Fatal(err)
					}
				} else if _, err := other.Exec(q, p.Account.ID); err != nil {
					t.Fatal(err)
				}
			}
			if err := tc.call(ctx, svc, ledger, p); err != nil {
				t.Fatalf("decided on the row before another process changed it: %v", err)
			}
			var plan string
			if err := other.QueryRow(`SELECT plan FROM accounts WHERE id = ?`, p.Account.ID).Scan(&plan); err != nil || plan != tc.wantPlan {
				t.Fatalf("plan %q (%v), want %q", plan, err, tc.wantPlan)
			}
			if _, held, err := s.ReadCredits(ctx, p.Account.ID, clock.Now()); err != nil || held != tc.wantHeld {
				t.Fatalf("held %d (%v), want %d", held, err, tc.wantHeld)
			}
		})
	}
}

// The credit row remembered after a commit is the file's, to the
// millisecond the file keeps: a period that renews on the file's row
// renews on the remembered one.
func TestSQLiteRememberedRowRenewsWithTheFile(t *testing.T) {
	s, _, p := sqliteWithAccount(t, 5*time.Second)
	ctx := context.Background()
	// Half a millisecond past what the file keeps.
	start := time.Now().UTC().AddDate(0, 0, 1).Truncate(time.Second).Add(500 * time.Microsecond)
	clock := testkit.NewClock(start)
	ledger, _ := credits.NewLedger(s, clock)
	svc, err := credits.NewService(s, s, mocks.NewPaymentProvider(t), clock, credits.DefaultPricing, billing.DefaultPlans())
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Grant(ctx, p.Account.ID, 100); err != nil {
		t.Fatal(err)
	}
	if err := svc.SetPlan(ctx, p.Account.ID, "pro"); err != nil {
		t.Fatal(err)
	}
	charge := func(n int64) {
		t.Helper()
		h, err := ledger.Reserve(ctx, ports.ReserveRequest{AccountID: p.Account.ID, TokenID: p.Token.ID, Amount: n})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ledger.Settle(ctx, h, ports.Charge{Credits: n, ServiceType: "scrape", ServiceName: "Scrape"}); err != nil {
			t.Fatal(err)
		}
	}
	charge(20000) // the period's allowance
	// The file's next period begins a month after the millisecond it keeps.
	clock.Set(billing.AddMonths(start.Truncate(time.Millisecond), 1))
	charge(1)
	st, _, err := s.ReadCredits(ctx, p.Account.ID, clock.Now())
	if err != nil || st.TopUp != 100 || st.AllowanceUsed != 1 || st.Used != 1 {
		t.Fatalf("top-up %d, allowance used %d, used %d (%v); want the renewed period's 100, 1 and 1", st.TopUp, st.AllowanceUsed, st.Used, err)
	}
}

// Placing and dropping a call's hold writes nothing to the file: both work
// while another process holds SQLite's write lock, and only the charge waits
// for it.
func TestSQLiteHoldsWriteNothing(t *testing.T) {
	s, other, p := sqliteWithAccount(t, 500*time.Millisecond)
	ctx := context.Background()
	conn, err := other.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	ledger, _ := credits.NewLedger(s, testkit.NewClock(time.Now()))
	h, err := ledger.Reserve(ctx, ports.ReserveRequest{AccountID: p.Account.ID, TokenID: p.Token.ID, Amount: 3})
	if err != nil {
		t.Fatalf("reserve under another process's write lock: %v", err)
	}
	if _, held, err := s.ReadCredits(ctx, p.Account.ID, time.Now()); err != nil || held != 3 {
		t.Fatalf("held %d (%v), want 3", held, err)
	}
	if err := ledger.Release(ctx, h); err != nil {
		t.Fatalf("release under another process's write lock: %v", err)
	}
	if _, held, _ := s.ReadCredits(ctx, p.Account.ID, time.Now()); held != 0 {
		t.Fatalf("held %d after the release, want 0", held)
	}
	if _, err := conn.ExecContext(ctx, "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
}

// A credit row another process changes between a view's first read and its
// write is read again: the view runs again inside the transaction, and the
// other process's change is not lost.
func TestSQLiteCreditRowChangedByAnotherProcess(t *testing.T) {
	s, other, p := sqliteWithAccount(t, 5*time.Second)
	ctx := context.Background()
	runs := 0
	err := s.WithCredits(ctx, p.Account.ID, func(tx ports.LedgerTx) error {
		runs++
		st := tx.State()
		if runs == 1 {
			if _, err := other.ExecContext(ctx, `UPDATE accounts SET topup = topup + 99 WHERE id = ?`, p.Account.ID); err != nil {
				t.Fatal(err)
			}
		}
		st.Used++
		st.AllowanceUsed++
		return tx.SaveState(st)
	})
	if err != nil {
		t.Fatal(err)
	}
	st, _, err := s.ReadCredits(ctx, p.Account.ID, time.Now())
	if err != nil || st.TopUp != 99 || st.Used != 1 {
		t.Fatalf("top-up %d used %d (%v); want 99 and 1", st.TopUp, st.Used, err)
	}
	if runs != 2 {
		t.Fatalf("the view ran %d times, want 2", runs)
	}
}

// goroutinesStarted is how many goroutines the process has started.
func goroutinesStarted() uint64 {
	m := []metrics.Sample{{Name: "/sched/goroutines-created:goroutines"}}
	metrics.Read(m)
	return m[0].Value.Uint64()
}

// On SQLite a billed call's store work (the authentication read, the hold
// and the charge) runs on the caller's goroutine, with a request's
// cancellable context: no goroutine per statement or transaction to watch
// the context, each of which cost more than the statement it watched.
func TestSQLiteHotPathStartsNoGoroutine(t *testing.T) {
	s, _, p := sqliteWithAccount(t, 5*time.Second)
	ledger, _ := credits.NewLedger(s, testkit.NewClock(time.Now()))
	call := func() {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		if _, err := s.PrincipalByTokenHash(ctx, p.Token.Hash); err != nil {
			t.Fatal(err)
		}
		h, err := ledger.Reserve(ctx, ports.ReserveRequest{AccountID: p.Account.ID, TokenID: p.Token.ID, Amount: 1})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ledger.Settle(ctx, h, ports.Charge{Credits: 1, ServiceType: "scrape", ServiceName: "Scrape"}); err != nil {
			t.Fatal(err)
		}
	}
	for range 3 { // statements are prepared once, in the background
		call()
		time.Sleep(50 * time.Millisecond)
	}
	fewest := uint64(math.MaxUint64)
	for range 5 { // the fewest, should another test start some meanwhile
		before := goroutinesStarted()
		call()
		fewest = min(fewest, goroutinesStarted()-before)
	}
	if fewest != 0 {
		t.Errorf("a billed call's store work started %d goroutines, want 0", fewest)
	}
}

// Every write on SQLite goes through the one writer connection: a write
// that fails (a conflict, a context ended before it ran) leaves it out of
// any transaction, and the next writes, the ledger's and the others',
// commit.
func TestSQLiteWriterRecoversFromFailedWrites(t *testing.T) {
	s, _, p := sqliteWithAccount(t, 5*time.Second)
	ctx := context.Background()
	now := time.Now()
	ended, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := s.CreateToken(ended, ports.Token{AccountID: p.Account.ID, Name: "late", Hash: "late", Preview: "l", CreatedAt: now}, 10); err == nil {
		t.Fatal("a token created with an ended context")
	}
	if _, err := s.CreateToken(ctx, ports.Token{AccountID: p.Account.ID, Name: "over", Hash: "over", Preview: "o", CreatedAt: now}, 1); err == nil {
		t.Fatal("a token created past the cap")
	}
	ledger, _ := credits.NewLedger(s, testkit.NewClock(now))
	h, err := ledger.Reserve(ctx, ports.ReserveRequest{AccountID: p.Account.ID, TokenID: p.Token.ID, Amount: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ledger.Settle(ctx, h, ports.Charge{Credits: 1, ServiceType: "scrape", ServiceName: "Scrape"}); err != nil {
		t.Fatalf("charge after failed writes: %v", err)
	}
	if _, err := s.CreateToken(ctx, ports.Token{AccountID: p.Account.ID, Name: "next", Hash: "next", Preview: "n", CreatedAt: now}, 10); err != nil {
		t.Fatalf("token after failed writes: %v", err)
	}
	if got, err := s.PrincipalByTokenHash(ctx, "next"); err != nil || got.Token.AccountID != p.Account.ID {
		t.Fatalf("the new token reads back as %+v (%v)", got.Token, err)
	}
	if txs, n, err := s.Transactions(ctx, p.Account.ID, 10, 0); err != nil || n != 1 || txs[0].Credits != 1 {
		t.Fatalf("transactions %v, %d (%v), want the one charge", txs, n, err)
	}
}

// On SQLite a billed call's hold starts from the credit row its
// authentication read, and its charge checks that row, and the token, in
// the UPDATE that writes it: what another process changes in between is
// neither lost nor overlooked, and a transaction of this process that ends
// in between makes the view read the file.
func TestSQLiteCallStartsFromTheRowAuthenticationRead(t *testing.T) {
	type step func(t *testing.T, s *sqlstore.Store, other *sql.DB, p ports.Principal)
	otherTopUp := func(n int) step {
		return func(t *testing.T, _ *sqlstore.Store, other *sql.DB, p ports.Principal) {
			if _, err := other.Exec(`UPDATE accounts SET topup = topup + ? WHERE id = ?`, n, p.Account.ID); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, tc := range []struct {
		name string
		// afterAuth runs between the authentication read and the hold;
		// afterHold between the hold and the charge.
		afterAuth, afterHold step
		// seen is the top-up a view that reads the row and writes nothing
		// sees, run by run: from the remembered row, then, when the file's
		// differs, from the file.
		seen                []int64
		wantTopUp, wantUsed int64
		revoked             bool
	}{
		{name: "nothing changes", seen: []int64{0}, wantUsed: 1},
		{name: "another process adds credits before the hold", afterAuth: otherTopUp(50), seen: []int64{0, 50}, wantTopUp: 50, wantUsed: 1},
		{name: "a transaction of this process ends before the hold", afterAuth: func(t *testing.T, s *sqlstore.Store, other *sql.DB, p ports.Principal) {
			otherTopUp(50)(t, s, other, p)
			if _, err := s.CreateToken(context.Background(), ports.Token{AccountID: p.Account.ID, Name: "u", Hash: "u", Preview: "u", CreatedAt: time.Now()}, 10); err != nil {
				t.Fatal(err)
			}
		}, seen: []int64{50}, wantTopUp: 50, wantUsed: 1},
		{name: "another process adds credits during the call", afterHold: otherTopUp(7), seen: []int64{0}, wantTopUp: 7, wantUsed: 1},
		{name: "another process deletes the token during the call", afterHold: func(t *testing.T, _ *sqlstore.Store, other *sql.DB, p ports.Principal) {
			if _, err := other.Exec(`DELETE FROM tokens WHERE id = ?`, p.Token.ID); err != nil {
				t.Fatal(err)
			}
		}, seen: []int64{0}, revoked: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, other, p := sqliteWithAccount(t, 5*time.Second)
			ctx := context.Background()
			ledger, _ := credits.NewLedger(s, testkit.NewClock(time.Now()))
			// A first call leaves the row remembered as the charge committed it.
			h, err := ledger.Reserve(ctx, ports.ReserveRequest{AccountID: p.Account.ID, TokenID: p.Token.ID, Amount: 1})
			if err != nil {
				t.Fatal(err)
			}
			if err := ledger.Release(ctx, h); err != nil {
				t.Fatal(err)
			}
			if _, err := s.PrincipalByTokenHash(ctx, p.Token.Hash); err != nil {
				t.Fatal(err)
			}
			if tc.afterAuth != nil {
				tc.afterAuth(t, s, other, p)
			}
			var seen []int64
			if err := s.WithCredits(ctx, p.Account.ID, func(tx ports.LedgerTx) error {
				seen = append(seen, tx.State().TopUp)
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(seen, tc.seen) {
				t.Errorf("a view that writes nothing sees top-ups %v, want %v", seen, tc.seen)
			}
			h, err = ledger.Reserve(ctx, ports.ReserveRequest{AccountID: p.Account.ID, TokenID: p.Token.ID, Amount: 1})
			if err != nil {
				t.Fatal(err)
			}
			if tc.afterHold != nil {
				tc.afterHold(t, s, other, p)
			}
			_, err = ledger.Settle(ctx, h, ports.Charge{Credits: 1, ServiceType: "scrape", ServiceName: "Scrape"})
			if tc.revoked != failure.Is(err, failure.Unauthenticated) || (!tc.revoked && err != nil) {
				t.Fatalf("settle: %v (revoked token: %v)", err, tc.revoked)
			}
			st, held, err := s.ReadCredits(ctx, p.Account.ID, time.Now())
			if err != nil || st.TopUp != tc.wantTopUp || st.Used != tc.wantUsed || held != 0 {
				t.Fatalf("top-up %d used %d held %d (%v); want %d, %d and 0", st.TopUp, st.Used, held, err, tc.wantTopUp, tc.wantUsed)
			}
			if _, n, err := s.Transactions(ctx, p.Account.ID, 10, 0); err != nil || n != int(tc.wantUsed) {
				t.Fatalf("%d transactions (%v), want %d", n, err, tc.wantUsed)
			}
		})
	}
}

// On SQLite the pool only reads: every write of the store goes through the
// writer, in the writer gate's queue, so none waits in SQLite's sleeping
// busy handler for another write of the same process. A write on the pool
// fails; the store's own writes (those of every test) do not.
func TestSQLitePoolOnlyReads(t *testing.T) {
	s, _, p := sqliteWithAccount(t, 5*time.Second)
	if _, err := s.DB().Exec(`UPDATE accounts SET name = 'B' WHERE id = ?`, p.Account.ID); err == nil {
		t.Fatal("a write on the pool succeeded")
	}
	ctx := context.Background()
	if err := s.TouchToken(ctx, p.Token.ID, time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteToken(ctx, p.Account.ID, p.Token.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.PrincipalByTokenHash(ctx, p.Token.Hash); !failure.Is(err, failure.NotFound) {
		t.Fatalf("a deleted token reads back: %v", err)
	}
}
