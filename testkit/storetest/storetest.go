// Package storetest is the contract suite of Trawl's store ports. Every store
// (SQLite, Postgres, the in-memory fake) runs it, so they stay
// interchangeable.
package storetest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/trawlhq/trawl/core/auth"
	"github.com/trawlhq/trawl/core/billing"
	"github.com/trawlhq/trawl/core/credits"
	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/ports"
	"github.com/trawlhq/trawl/testkit"
)

// Stores is everything a full store implements.
type Stores interface {
	ports.AccountStore
	ports.TokenStore
	ports.LedgerStore
	ports.IdempotencyStore
}

// Opener returns a new, empty store for one test.
type Opener func(t *testing.T) Stores

var t0 = time.Date(2026, 1, 31, 10, 0, 0, 0, time.UTC)

func newAccount(t *testing.T, s Stores, email, plan string) ports.Account {
	t.Helper()
	a, err := s.CreateAccount(context.Background(), ports.Account{Name: "N", Email: email, Plan: plan, CreatedAt: t0, UpdatedAt: t0, EmailVerifiedAt: &t0})
	if err != nil {
		t.Fatalf("CreateAccount: %v", err)
	}
	return a
}

func newToken(t *testing.T, s Stores, accountID int64, max int) ports.Token {
	t.Helper()
	secret, _ := auth.NewSecret()
	tok, err := s.CreateToken(context.Background(), ports.Token{AccountID: accountID, Name: "t", Hash: auth.HashSecret(secret), Preview: auth.Preview(secret), CreatedAt: t0}, max)
	if err != nil {
		t.Fatalf("CreateToken: %v", err)
	}
	return tok
}

// Run runs every contract test.
func Run(t *testing.T, open Opener) {
	t.Run("Accounts", func(t *testing.T) { testAccounts(t, open(t)) })
	t.Run("WebhookSecret", func(t *testing.T) { testWebhookSecret(t, open(t)) })
	t.Run("Tokens", func(t *testing.T) { testTokens(t, open(t)) })
	t.Run("TokenCapUnderConcurrency", func(t *testing.T) { testTokenCapConcurrent(t, open(t)) })
	t.Run("LedgerTx", func(t *testing.T) { testLedgerTx(t, open(t)) })
	t.Run("WithCreditsSerialises", func(t *testing.T) { testWithCreditsSerialises(t, open(t)) })
	t.Run("Transactions", func(t *testing.T) { testTransactions(t, open(t)) })
	t.Run("Checkout", func(t *testing.T) { testCheckout(t, open(t)) })
	t.Run("Idempotency", func(t *testing.T) { testIdempotency(t, open(t)) })
	t.Run("ConcurrentCharges", func(t *testing.T) { testConcurrentCharges(t, open(t)) })
	t.Run("RevokedTokenNotCharged", func(t *testing.T) { testRevokedToken(t, open(t)) })
}

func testAccounts(t *testing.T, s Stores) {
	ctx := context.Background()
	a := newAccount(t, s, "a@example.com", "pro")
	if a.ID == 0 || a.Email != "a@example.com" || a.Plan != "pro" || !a.CreatedAt.Equal(t0) || a.EmailVerifiedAt == nil {
		t.Fatalf("created account = %+v", a)
	}
	if _, err := s.CreateAccount(ctx, ports.Account{Name: "x", Email: "a@example.com", CreatedAt: t0, UpdatedAt: t0}); !failure.Is(err, failure.Conflict) {
		t.Fatalf("duplicate email: got %v, want Conflict", err)
	}
	b := newAccount(t, s, "b@example.com", "")
	got, err := s.AccountByEmail(ctx, "b@example.com")
	if err != nil || got.ID != b.ID || got.Plan != "" {
		t.Fatalf("AccountByEmail = %+v, %v", got, err)
	}
	if got, err := s.AccountByID(ctx, a.ID); err != nil || got.Email != a.Email {
		t.Fatalf("AccountByID = %+v, %v", got, err)
	}
	if _, err := s.AccountByID(ctx, 999999); !failure.Is(err, failure.NotFound) {
		t.Fatalf("missing account: got %v, want NotFound", err)
	}
	if _, err := s.AccountByEmail(ctx, "nobody@example.com"); !failure.Is(err, failure.NotFound) {
		t.Fatalf("missing email: got %v, want NotFound", err)
	}
	list, err := s.ListAccounts(ctx)
	if err != nil || len(list) != 2 || list[0].ID != a.ID || list[1].ID != b.ID {
		t.Fatalf("ListAccounts = %+v, %v", list, err)
	}
	if n, err := s.CountAccounts(ctx); err != nil || n != 2 {
		t.Fatalf("CountAccounts = %d, %v", n, err)
	}
	st, held, err := s.ReadCredits(ctx, a.ID, t0)
	if err != nil || held != 0 || st.Plan != "pro" || st.PlanAnchor == nil || !st.PlanAnchor.Equal(t0) || st.TopUp != 0 {
		t.Fatalf("ReadCredits = %+v, %d, %v", st, held, err)
	}
	st, _, _ = s.ReadCredits(ctx, b.ID, t0)
	if st.PlanAnchor != nil {
		t.Fatalf("account without plan has an anchor: %+v", st)
	}
}

func testTokens(t *testing.T, s Stores) {
	ctx := context.Background()
	a := newAccount(t, s, "a@example.com", "pro")
	other := newAccount(t, s, "o@example.com", "pro")
	t1 := newToken(t, s, a.ID, 3)
	newToken(t, s, a.ID, 3)
	newToken(t, s, a.ID, 3)
	if _, err := s.CreateToken(ctx, ports.Token{AccountID: a.ID, Name: "4", Hash: "h4", Preview: "p", CreatedAt: t0}, 3); !failure.Is(err, failure.Conflict) {
		t.Fatalf("4th token over cap 3: got %v, want Conflict", err)
	}
	p, err := s.PrincipalByTokenHash(ctx, t1.Hash)
	if err != nil || p.Token.ID != t1.ID || p.Token.AccountID != a.ID || p.Token.LastUsedAt != nil || p.Token.Hash != t1.Hash || p.Account.ID != a.ID || p.Account.Plan != "pro" {
		t.Fatalf("PrincipalByTokenHash = %+v, %v", p, err)
	}
	if _, err := s.PrincipalByTokenHash(ctx, "nope"); !failure.Is(err, failure.NotFound) {
		t.Fatalf("unknown hash: got %v, want NotFound", err)
	}
	// The principal carries the credit row read with it, the same as ReadCredits.
	if err := s.WithCredits(ctx, a.ID, func(tx ports.LedgerTx) error {
		st := tx.State()
		st.TopUp, st.Used, st.AllowanceUsed = 70, 9, 5
		return tx.SaveState(st)
	}); err != nil {
		t.Fatal(err)
	}
	cs, _, err := s.ReadCredits(ctx, a.ID, t0)
	if err != nil {
		t.Fatal(err)
	}
	if p, err := s.PrincipalByTokenHash(ctx, t1.Hash); err != nil || !reflect.DeepEqual(p.Credits, cs) || p.Credits.TopUp != 70 || p.Credits.Used != 9 {
		t.Fatalf("PrincipalByTokenHash credits = %+v, %v; want %+v", p.Credits, err, cs)
	}
	at := t0.Add(time.Hour)
	if err := s.TouchToken(ctx, t1.ID, at); err != nil {
		t.Fatal(err)
	}
	touched, _ := s.PrincipalByTokenHash(ctx, t1.Hash)
	if touched.Token.LastUsedAt == nil || !touched.Token.LastUsedAt.Equal(at) {
		t.Fatalf("last_used_at = %v, want %v", touched.Token.LastUsedAt, at)
	}
	if err := s.DeleteToken(ctx, other.ID, t1.ID); !failure.Is(err, failure.NotFound) {
		t.Fatalf("deleting another account's token: got %v, want NotFound", err)
	}
	if err := s.DeleteToken(ctx, a.ID, t1.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.PrincipalByTokenHash(ctx, t1.Hash); !failure.Is(err, failure.NotFound) {
		t.Fatalf("deleted token still found: %v", err)
	}
	list, err := s.ListTokens(ctx, a.ID)
	if err != nil || len(list) != 2 {
		t.Fatalf("ListTokens = %d tokens, %v", len(list), err)
	}
	newToken(t, s, a.ID, 3) // a freed slot can be used again
	if _, err := s.CreateToken(ctx, ports.Token{AccountID: 999999, Name: "x", Hash: "hx", Preview: "p", CreatedAt: t0}, 3); !failure.Is(err, failure.NotFound) {
		t.Fatalf("token for missing account: got %v, want NotFound", err)
	}
}

func testTokenCapConcurrent(t *testing.T, s Stores) {
	a := newAccount(t, s, "a@example.com", "pro")
	var ok atomic.Int32
	var wg sync.WaitGroup
	for i := range 12 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := s.CreateToken(context.Background(), ports.Token{AccountID: a.ID, Name: "c", Hash: fmt.Sprintf("hash-%d", i), Preview: "p", CreatedAt: t0}, 3)
			if err == nil {
				ok.Add(1)
			} else if !failure.Is(err, failure.Conflict) {
				t.Errorf("CreateToken: %v", err)
			}
		}()
	}
	wg.Wait()
	if ok.Load() != 3 {
		t.Fatalf("%d tokens created concurrently under cap 3", ok.Load())
	}
}

func testLedgerTx(t *testing.T, s Stores) {
	ctx := context.Background()
	a := newAccount(t, s, "a@example.com", "basic")
	tok := newToken(t, s, a.ID, 1)
	boom := errors.New("boom")
	err := s.WithCredits(ctx, a.ID, func(tx ports.LedgerTx) error {
		st := tx.State()
		st.TopUp = 500
		if err := tx.SaveState(st); err != nil {
			return err
		}
		if err := tx.PutHold(ports.Hold{ID: "h-rolled-back", AccountID: a.ID, Amount: 5, CreatedAt: t0, ExpiresAt: t0.Add(time.Hour)}); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("WithCredits error = %v, want boom", err)
	}
	st, held, _ := s.ReadCredits(ctx, a.ID, t0)
	if st.TopUp != 0 || held != 0 {
		t.Fatalf("rolled back changes persisted: %+v held %d", st, held)
	}
	err = s.WithCredits(ctx, a.ID, func(tx ports.LedgerTx) error {
		st := tx.State()
		if st.AccountID != a.ID || st.Plan != "basic" {
			return fmt.Errorf("state = %+v", st)
		}
		st.TopUp, st.Used, st.AllowanceUsed = 70, 9, 4
		if err := tx.SaveState(st); err != nil {
			return err
		}
		if tx.State().TopUp != 70 {
			return fmt.Errorf("after SaveState, state = %+v", tx.State())
		}
		for i, exp := range []time.Duration{time.Minute, time.Hour, -time.Second} {
			if err := tx.PutHold(ports.Hold{ID: fmt.Sprintf("h%d", i), AccountID: a.ID, TokenID: tok.ID, Amount: int64(10 * (i + 1)), CreatedAt: t0, ExpiresAt: t0.Add(exp)}); err != nil {
				return err
			}
		}
		if n, err := tx.HeldAmount(t0); err != nil || n != 30 {
			return fmt.Errorf("held amount = %d, %v; want 30 (expired hold excluded)", n, err)
		}
		if n, _ := tx.HeldAmount(t0.Add(2 * time.Minute)); n != 20 {
			return fmt.Errorf("held amount later = %d, want 20", n)
		}
		h, err := tx.Hold("h1")
		if err != nil || h.Amount != 20 || h.TokenID != tok.ID || !h.ExpiresAt.Equal(t0.Add(time.Hour)) {
			return fmt.Errorf("hold = %+v, %v", h, err)
		}
		if err := tx.DeleteExpiredHolds(t0); err != nil {
			return err
		}
		if _, err := tx.Hold("h2"); !failure.Is(err, failure.NotFound) {
			return fmt.Errorf("expired hold survived: %v", err)
		}
		if err := tx.DeleteHold("h0"); err != nil {
			return err
		}
		if err := tx.DeleteHold("h0"); !failure.Is(err, failure.NotFound) {
			return fmt.Errorf("second delete: %v, want NotFound", err)
		}
		if live, err := tx.TokenLive(tok.ID); err != nil || !live {
			return fmt.Errorf("TokenLive = %v, %v", live, err)
		}
		if live, _ := tx.TokenLive(tok.ID + 1000); live {
			return errors.New("unknown token reported live")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	st, held, err = s.ReadCredits(ctx, a.ID, t0)
	if err != nil || st.TopUp != 70 || st.Used != 9 || st.AllowanceUsed != 4 || held != 20 {
		t.Fatalf("ReadCredits = %+v held %d, %v", st, held, err)
	}
	// DropHold: the hold goes (twice is no error), the token is checked
	// (token 0 is the system: always live), the other live holds are summed.
	err = s.WithCredits(ctx, a.ID, func(tx ports.LedgerTx) error {
		if err := tx.PutHold(ports.Hold{ID: "h3", AccountID: a.ID, TokenID: tok.ID, Amount: 5, CreatedAt: t0, ExpiresAt: t0.Add(time.Hour)}); err != nil {
			return err
		}
		for range 2 {
			if live, others, err := tx.DropHold("h3", tok.ID, t0); err != nil || !live || others != 20 {
				return fmt.Errorf("DropHold = %v %d, %v; want live, 20 held by the others", live, others, err)
			}
		}
		if live, _, err := tx.DropHold("h3", tok.ID+1000, t0); err != nil || live {
			return fmt.Errorf("DropHold with an unknown token = %v, %v; want not live", live, err)
		}
		if live, others, err := tx.DropHold("h1", 0, t0); err != nil || !live || others != 0 {
			return fmt.Errorf("DropHold by the system = %v %d, %v; want live, 0", live, others, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, held, err := s.ReadCredits(ctx, a.ID, t0); err != nil || held != 0 {
		t.Fatalf("held %d after every hold was dropped (%v), want 0", held, err)
	}
	if err := s.WithCredits(ctx, 999999, func(ports.LedgerTx) error { return nil }); !failure.Is(err, failure.NotFound) {
		t.Fatalf("WithCredits on missing account: %v, want NotFound", err)
	}
}

func testWithCreditsSerialises(t *testing.T, s Stores) {
	a := newAccount(t, s, "a@example.com", "basic")
	var wg sync.WaitGroup
	for range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := s.WithCredits(context.Background(), a.ID, func(tx ports.LedgerTx) error {
				st := tx.State()
				st.TopUp++
				return tx.SaveState(st)
			})
			if err != nil {
				t.Errorf("WithCredits: %v", err)
			}
		}()
	}
	wg.Wait()
	st, _, _ := s.ReadCredits(context.Background(), a.ID, t0)
	if st.TopUp != 40 {
		t.Fatalf("40 concurrent increments gave %d: updates were lost", st.TopUp)
	}
}

func testTransactions(t *testing.T, s Stores) {
	ctx := context.Background()
	a := newAccount(t, s, "a@example.com", "basic")
	b := newAccount(t, s, "b@example.com", "basic")
	for i := range 5 {
		err := s.WithCredits(ctx, a.ID, func(tx ports.LedgerTx) error {
			_, err := tx.AddTransaction(ports.Transaction{ServiceType: "content", ServiceName: "Content Extraction", Credits: int64(i + 1),
				BalanceAfter: int64(100 - i), CreatedAt: t0.Add(time.Duration(i) * time.Second),
				Metadata: ports.TransactionMetadata{URL: fmt.Sprintf("https://e.com/%d", i), RequestID: "r"}})
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	_ = s.WithCredits(ctx, b.ID, func(tx ports.LedgerTx) error {
		_, err := tx.AddTransaction(ports.Transaction{ServiceType: "serp", ServiceName: "S", Credits: 5, BalanceAfter: 1, CreatedAt: t0})
		return err
	})
	page, total, err := s.Transactions(ctx, a.ID, 2, 0)
	if err != nil || total != 5 || len(page) != 2 {
		t.Fatalf("Transactions = %d items, total %d, %v", len(page), total, err)
	}
	if page[0].Credits != 5 || page[1].Credits != 4 || page[0].Metadata.URL != "https://e.com/4" || page[0].Metadata.RequestID != "r" ||
		page[0].ServiceName != "Content Extraction" || page[0].BalanceAfter != 96 || !page[0].CreatedAt.Equal(t0.Add(4*time.Second)) || page[0].AccountID != a.ID {
		t.Fatalf("newest first with every field: %+v", page)
	}
	page, _, _ = s.Transactions(ctx, a.ID, 2, 4)
	if len(page) != 1 || page[0].Credits != 1 {
		t.Fatalf("last page = %+v", page)
	}
	page, total, _ = s.Transactions(ctx, a.ID, 2, 10)
	if len(page) != 0 || total != 5 {
		t.Fatalf("past the end = %+v total %d", page, total)
	}
}

func testCheckout(t *testing.T, s Stores) {
	ctx := context.Background()
	a := newAccount(t, s, "a@example.com", "basic")
	cs := ports.CheckoutSession{ID: "cs_1", AccountID: a.ID, Credits: 500, AmountCents: 250, Currency: "usd", CreatedAt: t0}
	if err := s.CreateCheckoutSession(ctx, cs); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateCheckoutSession(ctx, cs); !failure.Is(err, failure.Conflict) {
		t.Fatalf("duplicate session: %v, want Conflict", err)
	}
	got, err := s.CheckoutSession(ctx, "cs_1")
	if err != nil || got.Credits != 500 || got.AmountCents != 250 || got.Currency != "usd" || got.PaidAt != nil || got.AccountID != a.ID {
		t.Fatalf("CheckoutSession = %+v, %v", got, err)
	}
	if _, err := s.CheckoutSession(ctx, "cs_nope"); !failure.Is(err, failure.NotFound) {
		t.Fatalf("unknown session: %v", err)
	}
	for i, want := range []bool{true, false} {
		var first bool
		err := s.WithCredits(ctx, a.ID, func(tx ports.LedgerTx) error {
			var err error
			first, err = tx.MarkCheckoutPaid("cs_1", t0)
			return err
		})
		if err != nil || first != want {
			t.Fatalf("MarkCheckoutPaid #%d = %v, %v; want %v", i+1, first, err, want)
		}
	}
	got, _ = s.CheckoutSession(ctx, "cs_1")
	if got.PaidAt == nil || !got.PaidAt.Equal(t0) {
		t.Fatalf("paid_at = %v", got.PaidAt)
	}
}

func testIdempotency(t *testing.T, s Stores) {
	ctx := context.Background()
	a := newAccount(t, s, "a@example.com", "basic")
	rec := ports.IdempotencyRecord{AccountID: a.ID, Key: "k1", Fingerprint: "fp", CreatedAt: t0, ExpiresAt: t0.Add(24 * time.Hour)}
	if _, claimed, err := s.BeginIdempotent(ctx, rec); err != nil || !claimed {
		t.Fatalf("first Begin: claimed=%v err=%v", claimed, err)
	}
	ex, claimed, err := s.BeginIdempotent(ctx, rec)
	if err != nil || claimed || ex.Done || ex.Fingerprint != "fp" {
		t.Fatalf("Begin while running = %+v claimed=%v %v", ex, claimed, err)
	}
	if err := s.CompleteIdempotent(ctx, a.ID, "k1", 200, "application/json", []byte(`{"ok":true}`)); err != nil {
		t.Fatal(err)
	}
	ex, claimed, _ = s.BeginIdempotent(ctx, rec)
	if claimed || !ex.Done || ex.Status != 200 || string(ex.Body) != `{"ok":true}` || ex.ContentType != "application/json" {
		t.Fatalf("Begin after completion = %+v claimed=%v", ex, claimed)
	}
	later := rec
	later.CreatedAt, later.ExpiresAt = t0.Add(25*time.Hour), t0.Add(49*time.Hour)
	if _, claimed, _ := s.BeginIdempotent(ctx, later); !claimed {
		t.Fatal("an expired key was not claimable again")
	}
	r2 := ports.IdempotencyRecord{AccountID: a.ID, Key: "k2", Fingerprint: "fp", CreatedAt: t0, ExpiresAt: t0.Add(time.Hour)}
	_, _, _ = s.BeginIdempotent(ctx, r2)
	if err := s.AbandonIdempotent(ctx, a.ID, "k2"); err != nil {
		t.Fatal(err)
	}
	if _, claimed, _ := s.BeginIdempotent(ctx, r2); !claimed {
		t.Fatal("an abandoned key was not claimable again")
	}
	b := newAccount(t, s, "b@example.com", "basic")
	if _, claimed, _ := s.BeginIdempotent(ctx, ports.IdempotencyRecord{AccountID: b.ID, Key: "k1", Fingerprint: "x", CreatedAt: t0, ExpiresAt: t0.Add(time.Hour)}); !claimed {
		t.Fatal("keys are per account, yet another account's key blocked this one")
	}
}

// testConcurrentCharges: 200 concurrent charges of 2 credits against a
// balance of 100 succeed exactly 50 times, leave 0, and write 50 transactions.
func testConcurrentCharges(t *testing.T, s Stores) {
	ctx := context.Background()
	clock := testkit.NewClock(t0)
	a := newAccount(t, s, "a@example.com", "basic")
	tok := newToken(t, s, a.ID, 1)
	err := s.WithCredits(ctx, a.ID, func(tx ports.LedgerTx) error {
		st := tx.State()
		st.AllowanceUsed, st.Used = billing.DefaultPlans().Must("basic").MonthlyCredits-100, billing.DefaultPlans().Must("basic").MonthlyCredits-100
		st.PeriodStart = st.PlanAnchor
		return tx.SaveState(st)
	})
	if err != nil {
		t.Fatal(err)
	}
	ledger, _ := credits.NewLedger(s, clock)
	biller, _ := credits.NewBiller(ledger, s, clock, billing.DefaultPlans())
	principal := ports.Principal{Account: a.Caller(), Token: tok.Caller()}
	var ok, short atomic.Int32
	var wg sync.WaitGroup
	start := make(chan struct{})
	for range 200 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			_, err := biller.Run(ctx, credits.Call{Principal: principal, Service: billing.Content}, func(context.Context) (int64, ports.TransactionMetadata, error) {
				return 2, ports.TransactionMetadata{URL: "https://example.com/"}, nil
			})
			switch {
			case err == nil:
				ok.Add(1)
			case failure.Is(err, failure.InsufficientCredits):
				short.Add(1)
			default:
				t.Errorf("charge: %v", err)
			}
		}()
	}
	close(start)
	wg.Wait()
	if ok.Load() != 50 || short.Load() != 150 {
		t.Fatalf("succeeded %d, refused %d; want 50 and 150", ok.Load(), short.Load())
	}
	st, held, _ := s.ReadCredits(ctx, a.ID, clock.Now())
	if b := billing.DefaultPlans().Balance(st); b != 0 || held != 0 {
		t.Fatalf("balance %d held %d after the race; want 0 and 0", b, held)
	}
	txs, total, _ := s.Transactions(ctx, a.ID, 100, 0)
	if total != 50 {
		t.Fatalf("%d transactions, want 50", total)
	}
	for _, tx := range txs {
		if tx.BalanceAfter < 0 || tx.Credits != 2 {
			t.Fatalf("bad transaction %+v", tx)
		}
	}
}

// testRevokedToken: a token deleted while its call runs makes the charge fail
// with Unauthenticated, charges nothing and leaves no hold.
func testRevokedToken(t *testing.T, s Stores) {
	ctx := context.Background()
	clock := testkit.NewClock(t0)
	a := newAccount(t, s, "a@example.com", "basic")
	tok := newToken(t, s, a.ID, 1)
	ledger, _ := credits.NewLedger(s, clock)
	biller, _ := credits.NewBiller(ledger, s, clock, billing.DefaultPlans())
	_, err := biller.Run(ctx, credits.Call{Principal: ports.Principal{Account: a.Caller(), Token: tok.Caller()}, Service: billing.Content}, func(context.Context) (int64, ports.TransactionMetadata, error) {
		if err := s.DeleteToken(ctx, a.ID, tok.ID); err != nil {
			t.Fatal(err)
		}
		return 2, ports.TransactionMetadata{}, nil
	})
	if !failure.Is(err, failure.Unauthenticated) {
		t.Fatalf("charge with a revoked token: %v, want Unauthenticated", err)
	}
	st, held, _ := s.ReadCredits(ctx, a.ID, clock.Now())
	if st.Used != 0 || held != 0 {
		t.Fatalf("revoked call left used=%d held=%d", st.Used, held)
	}
	if _, total, _ := s.Transactions(ctx, a.ID, 10, 0); total != 0 {
		t.Fatalf("revoked call wrote %d transactions", total)
	}
}

func testWebhookSecret(t *testing.T, s Stores) {
	ctx := context.Background()
	a := newAccount(t, s, "a@example.com", "basic")
	n := 0
	gen := func() string { n++; return fmt.Sprintf("whsec_%d", n) }
	s1, err := s.WebhookSecret(ctx, a.ID, gen)
	s2, _ := s.WebhookSecret(ctx, a.ID, gen)
	if err != nil || s1 != "whsec_1" || s2 != s1 {
		t.Fatalf("secret = %q %q %v", s1, s2, err)
	}
	if err := s.SetWebhookSecret(ctx, a.ID, "whsec_rotated"); err != nil {
		t.Fatal(err)
	}
	if s3, _ := s.WebhookSecret(ctx, a.ID, gen); s3 != "whsec_rotated" {
		t.Fatalf("after rotation = %q", s3)
	}
	if _, err := s.WebhookSecret(ctx, 999999, gen); !failure.Is(err, failure.NotFound) {
		t.Fatalf("missing account: %v", err)
	}
}

// RestartOpener returns a new, empty store and a function that closes it and
// opens the same data again, as a restarted process would.
type RestartOpener func(t *testing.T) (s Stores, restart func() Stores)

// RunRestart runs the contract tests that restart the store (the in-memory
// fake has nothing to restart from).
func RunRestart(t *testing.T, open RestartOpener) {
	t.Run("DurableHoldsOutliveTheProcess", func(t *testing.T) { testDurableHolds(t, open) })
}

// testDurableHolds: a durable hold (a bulk job's) still reserves its credits
// after a restart and can be charged and released; any other hold either
// survives too or is gone as if it had expired.
func testDurableHolds(t *testing.T, open RestartOpener) {
	ctx := context.Background()
	clock := testkit.NewClock(t0)
	s, restart := open(t)
	a := newAccount(t, s, "a@example.com", "basic")
	ledger, _ := credits.NewLedger(s, clock)
	job, err := ledger.Reserve(ctx, ports.ReserveRequest{AccountID: a.ID, Amount: 10, TTL: 24 * time.Hour, Durable: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ledger.Reserve(ctx, ports.ReserveRequest{AccountID: a.ID, Amount: 5}); err != nil {
		t.Fatal(err)
	}
	s = restart()
	if _, held, err := s.ReadCredits(ctx, a.ID, clock.Now()); err != nil || (held != 10 && held != 15) {
		t.Fatalf("held %d after a restart (%v); want 10 (the durable hold) or 15 (both)", held, err)
	}
	ledger, _ = credits.NewLedger(s, clock)
	if _, charged, err := ledger.ChargeHold(ctx, job, ports.Charge{Credits: 4, ServiceType: "bulk", ServiceName: "Bulk"}, "job:0"); err != nil || !charged {
		t.Fatalf("ChargeHold after a restart = %v, %v", charged, err)
	}
	err = s.WithCredits(ctx, a.ID, func(tx ports.LedgerTx) error {
		h, err := tx.Hold(job.ID)
		if err != nil || h.Amount != 6 {
			return fmt.Errorf("job hold after a charge = %+v, %v; want 6 left", h, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := ledger.Release(ctx, job); err != nil {
		t.Fatal(err)
	}
	s = restart()
	if _, held, err := s.ReadCredits(ctx, a.ID, clock.Now()); err != nil || (held != 0 && held != 5) {
		t.Fatalf("held %d after the job's hold was released and a restart (%v); want 0 or 5", held, err)
	}
}
