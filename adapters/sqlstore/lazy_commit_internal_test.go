package sqlstore

import (
	"context"
	"testing"
	"time"

	"github.com/trawlhq/trawl/ports"
	"github.com/trawlhq/trawl/testkit/pgtest"
)

// On PostgreSQL a transaction that only placed or dropped holds commits
// without waiting for the disk; one that wrote money waits, even when a
// hold was placed first.
func TestOnlyHoldsCommitLazily(t *testing.T) {
	s, err := Open(context.Background(), Options{DatabaseURL: pgtest.NewDatabase(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	now := time.UnixMilli(time.Now().UnixMilli()).UTC()
	a, err := s.CreateAccount(ctx, ports.Account{Name: "A", Email: "lazy@example.com", Plan: "basic", CreatedAt: now, UpdatedAt: now})
	if err != nil {
		t.Fatal(err)
	}
	hold := func(id string) ports.Hold {
		return ports.Hold{ID: id, AccountID: a.ID, Amount: 2, CreatedAt: now, ExpiresAt: now.Add(time.Minute)}
	}
	for _, c := range []struct {
		name string
		work func(l *ledgerTx) error
		want string
	}{
		{"a hold placed", func(l *ledgerTx) error { return l.PutHold(hold("h1")) }, "off"},
		{"a hold dropped", func(l *ledgerTx) error { return l.DeleteHold("h1") }, "off"},
		{"nothing", func(*ledgerTx) error { return nil }, "off"},
		{"a hold placed, then a charge", func(l *ledgerTx) error {
			if err := l.PutHold(hold("h2")); err != nil {
				return err
			}
			st := l.State()
			st.Used++
			if err := l.SaveState(st); err != nil {
				return err
			}
			_, err := l.AddTransaction(ports.Transaction{ServiceType: "scrape", ServiceName: "Scrape", Credits: 1, BalanceAfter: 1, CreatedAt: now})
			return err
		}, "on"},
		{"a top-up", func(l *ledgerTx) error {
			st := l.State()
			st.TopUp += 5
			return l.SaveState(st)
		}, "on"},
		{"a checkout paid", func(l *ledgerTx) error { _, err := l.MarkCheckoutPaid("cs_none", now); return err }, "on"},
	} {
		var got string
		err := s.inTx(ctx, func(tx execer) error {
			l := &ledgerTx{s: s, ctx: ctx, tx: tx, accountID: a.ID}
			if err := c.work(l); err != nil {
				return err
			}
			if err := l.finish(); err != nil {
				return err
			}
			return tx.GetContext(ctx, &got, `SELECT current_setting('synchronous_commit')`)
		})
		if err != nil || got != c.want {
			t.Errorf("%s: synchronous_commit at the commit = %q (%v), want %q", c.name, got, err, c.want)
		}
	}
}
