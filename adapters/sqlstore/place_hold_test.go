package sqlstore_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/trawlhq/trawl/core/billing"
	"github.com/trawlhq/trawl/core/credits"
	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/ports"
	"github.com/trawlhq/trawl/testkit"
)

// guardOf is the guard core builds from a credit row read at now.
func guardOf(st ports.CreditState, now time.Time) ports.HoldGuard {
	return ports.HoldGuard{Plan: st.Plan, PlanAnchor: st.PlanAnchor, PeriodStart: st.PeriodStart,
		Allowance: billing.DefaultPlans().Must(st.Plan).MonthlyCredits, Now: now}
}

// A hold placed in one statement is checked on the row as it is, counted
// once, and refused when the plan, the period, the balance or an expiry
// makes the rules decide.
func TestPostgresPlaceHoldGuard(t *testing.T) {
	s, p := pgWithAccount(t)
	ctx := context.Background()
	now := time.UnixMilli(time.Now().UnixMilli())
	// The allowance overdrawn (it never counts below zero) and 5 top-up
	// credits: 5 are spendable.
	if err := s.WithCredits(ctx, p.Account.ID, func(tx ports.LedgerTx) error {
		st, _ := billing.Renew(tx.State(), now)
		st.AllowanceUsed, st.Used, st.TopUp = 7000, 7000, 5
		return tx.SaveState(st)
	}); err != nil {
		t.Fatal(err)
	}
	st, _, err := s.ReadCredits(ctx, p.Account.ID, now)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	place := func(amount int64, g ports.HoldGuard) bool {
		t.Helper()
		n++
		h := ports.Hold{ID: "hold_" + string(rune('a'+n)), AccountID: p.Account.ID, Amount: amount, CreatedAt: now, ExpiresAt: now.Add(time.Minute)}
		placed, err := s.PlaceHold(ctx, h, g)
		if err != nil {
			t.Fatalf("PlaceHold %d: %v", amount, err)
		}
		return placed
	}
	g := guardOf(st, now)
	if place(6, g) {
		t.Fatal("6 credits held with 5 spendable")
	}
	if !place(3, g) {
		t.Fatal("3 credits refused with 5 spendable")
	}
	if counted, summed := heldColumns(t, s, p.Account.ID); counted != 3 || summed != 3 {
		t.Fatalf("held %d, holds sum %d; want 3 and 3 (counted once)", counted, summed)
	}
	if place(3, g) {
		t.Fatal("3 more credits held with 2 spendable")
	}
	other := g
	other.Plan = "pro"
	if place(1, other) {
		t.Fatal("held under a plan the row does not have")
	}
	stale := g
	before := st.PeriodStart.AddDate(0, -1, 0)
	stale.PeriodStart = &before
	if place(1, stale) {
		t.Fatal("held under a period the row does not have")
	}
	late := g
	late.Now = now.Add(time.Minute) // the first hold has expired by then
	if place(1, late) {
		t.Fatal("held while a hold may have expired")
	}
	if !place(2, g) {
		t.Fatal("the last 2 spendable credits refused")
	}
	// A release through the ledger's path uncounts what the statement counted.
	if err := s.WithCredits(ctx, p.Account.ID, func(tx ports.LedgerTx) error { return tx.DeleteHold("hold_" + string(rune('a'+2))) }); err != nil {
		t.Fatal(err)
	}
	if counted, summed := heldColumns(t, s, p.Account.ID); counted != 2 || summed != 2 {
		t.Fatalf("after a release: held %d, holds sum %d; want 2 and 2", counted, summed)
	}
}

// The guard is checked on the row once the statement holds its lock, not on
// the snapshot the statement began with: a hold placed while the statement
// waited for the lock leaves it short.
func TestPostgresPlaceHoldWaitsAndRechecks(t *testing.T) {
	s, p := pgWithAccount(t)
	ctx := context.Background()
	now := time.UnixMilli(time.Now().UnixMilli())
	st, _, err := s.ReadCredits(ctx, p.Account.ID, now)
	if err != nil {
		t.Fatal(err)
	}
	spendable := billing.DefaultPlans().Balance(st)
	// Another writer holds the row and holds all but one credit.
	tx, err := s.DB().BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.Exec(`SELECT id FROM accounts WHERE id = $1 FOR UPDATE`, p.Account.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(`INSERT INTO holds (id, account_id, token_id, amount, created_at, expires_at) VALUES ('first', $1, 0, $2, $3, $4)`,
		p.Account.ID, spendable-1, now.UnixMilli(), now.Add(time.Minute).UnixMilli()); err != nil {
		t.Fatal(err)
	}
	done := make(chan bool, 1)
	go func() {
		placed, err := s.PlaceHold(ctx, ports.Hold{ID: "second", AccountID: p.Account.ID, Amount: 2, CreatedAt: now, ExpiresAt: now.Add(time.Minute)}, guardOf(st, now))
		if err != nil {
			t.Error(err)
		}
		done <- placed
	}()
	// Commit only once the statement waits for the row lock.
	deadline := time.Now().Add(10 * time.Second)
	for {
		var waiting int
		if err := s.DB().QueryRow(`SELECT COUNT(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE 'WITH placed%'`).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		if waiting == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the statement never waited for the row lock")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if <-done {
		t.Fatalf("a hold of 2 placed beside %d held of %d spendable", spendable-1, spendable)
	}
	if counted, summed := heldColumns(t, s, p.Account.ID); counted != spendable-1 || summed != spendable-1 {
		t.Fatalf("held %d, holds sum %d; want %d", counted, summed, spendable-1)
	}
}

// Concurrent reserves racing for the last credits through the one-statement
// path: exactly as many win as the balance covers, and a stale credit row
// in the request changes nothing.
func TestPostgresReserveRaceInOneStatement(t *testing.T) {
	s, p := pgWithAccount(t)
	ctx := context.Background()
	clock := testkit.NewClock(time.Now())
	ledger, _ := credits.NewLedger(s, clock)
	stale, _, err := s.ReadCredits(ctx, p.Account.ID, clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	spendable := billing.DefaultPlans().Balance(stale)
	// Most of the balance spent after the caller read the row.
	if err := s.WithCredits(ctx, p.Account.ID, func(tx ports.LedgerTx) error {
		st := tx.State()
		st, _ = billing.DefaultPlans().Spend(st, spendable-10)
		return tx.SaveState(st)
	}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	won, short := 0, 0
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := ledger.Reserve(ctx, ports.ReserveRequest{AccountID: p.Account.ID, TokenID: p.Token.ID, Amount: 3, Credits: stale})
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				won++
			case failure.Is(err, failure.InsufficientCredits):
				short++
			default:
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if won != 3 || short != 5 {
		t.Fatalf("won %d, short %d; want 3 and 5 (10 spendable, 3 each)", won, short)
	}
	if counted, summed := heldColumns(t, s, p.Account.ID); counted != 9 || summed != 9 {
		t.Fatalf("held %d, holds sum %d; want 9", counted, summed)
	}
	var inOne int
	if err := s.DB().QueryRow(`SELECT COUNT(*) FROM holds WHERE account_id = $1 AND counted`, p.Account.ID).Scan(&inOne); err != nil || inOne != 3 {
		t.Fatalf("%d holds placed in one statement, %v; want 3", inOne, err)
	}
}

// A billed call holds its credits in one statement, from the credit row
// read with its token, and is charged once; a row that changed since it was
// read (another plan) sends the hold the transactional way, still right.
func TestPostgresBilledCallHoldsInOneStatement(t *testing.T) {
	s, p := pgWithAccount(t)
	ctx := context.Background()
	clock := testkit.NewClock(time.Now())
	ledger, _ := credits.NewLedger(s, clock)
	biller, _ := credits.NewBiller(ledger, s, clock, billing.DefaultPlans())
	principal, err := s.PrincipalByTokenHash(ctx, p.Token.Hash)
	if err != nil || principal.Credits.AccountID != p.Account.ID {
		t.Fatalf("principal %+v, %v", principal, err)
	}
	stale := principal
	stale.Credits.Plan = "pro"
	for _, c := range []struct {
		name      string
		principal ports.Principal
		inOne     bool
	}{{"as read", principal, true}, {"changed since", stale, false}} {
		r, err := biller.Run(ctx, credits.Call{Principal: c.principal, Service: billing.Scrape}, func(context.Context) (int64, ports.TransactionMetadata, error) {
			var inOne bool
			if err := s.DB().QueryRow(`SELECT counted FROM holds WHERE account_id = $1`, p.Account.ID).Scan(&inOne); err != nil || inOne != c.inOne {
				t.Errorf("%s: hold placed in one statement %v, %v; want %v", c.name, inOne, err, c.inOne)
			}
			return 1, ports.TransactionMetadata{}, nil
		})
		if err != nil || r.Charged != 1 {
			t.Fatalf("%s: Run = %+v, %v", c.name, r, err)
		}
		if counted, summed := heldColumns(t, s, p.Account.ID); counted != 0 || summed != 0 {
			t.Fatalf("%s: after the call: held %d, holds sum %d; want 0", c.name, counted, summed)
		}
	}
	if _, total, err := s.Transactions(ctx, p.Account.ID, 10, 0); err != nil || total != 2 {
		t.Fatalf("%d transactions, %v; want 2", total, err)
	}
}
