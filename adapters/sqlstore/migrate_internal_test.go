package sqlstore

import (
	"context"
	"database/sql"
	"io/fs"
	"testing"
	"time"

	"github.com/pressly/goose/v3"

	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/ports"
)

// The SQLite transactions table loses AUTOINCREMENT (00009): the rows a
// database holds keep their ids and charge keys, the next charge takes the
// id after the largest, a charge key still cannot be charged twice, and
// the migration goes down and up again with the rows intact.
func TestSQLiteTransactionsRowidMigration(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db, err := sql.Open("sqlite", "file:"+SQLitePath(dir)+"?_pragma=foreign_keys(1)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	sub, _ := fs.Sub(migrations, "migrations/sqlite")
	p, err := goose.NewProvider(goose.DialectSQLite3, db, sub)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.UpTo(ctx, 8); err != nil {
		t.Fatal(err)
	}
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.ExecContext(ctx, q, args...); err != nil {
			t.Fatal(err)
		}
	}
	exec(`INSERT INTO accounts (id, name, email, created_at, updated_at, plan, topup) VALUES (1, 'A', 'a@example.com', 0, 0, 'basic', 100)`)
	exec(`INSERT INTO transactions (id, account_id, service_type, service_name, credits, balance_after, created_at, charge_key) VALUES
		(7, 1, 'scrape', 'Scrape', 1, 99, 1000, NULL), (9, 1, 'bulk', 'Bulk', 2, 97, 2000, 'job-1/0')`)
	ids := func() []int64 {
		t.Helper()
		rows, err := db.QueryContext(ctx, `SELECT id FROM transactions ORDER BY id`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []int64
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				t.Fatal(err)
			}
			out = append(out, id)
		}
		return out
	}

	s, err := Open(ctx, Options{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	txs, n, err := s.Transactions(ctx, 1, 10, 0)
	if err != nil || n != 2 || txs[0].ID != 9 || txs[1].ID != 7 || txs[0].Credits != 2 {
		t.Fatalf("after the migration: %+v, %d (%v)", txs, n, err)
	}
	charge := func(key string) (ports.Transaction, error) {
		var out ports.Transaction
		err := s.WithCredits(ctx, 1, func(tx ports.LedgerTx) error {
			var err error
			out, err = tx.AddTransaction(ports.Transaction{ServiceType: "bulk", ServiceName: "Bulk", Credits: 1, BalanceAfter: 96, CreatedAt: time.Now(), ChargeKey: key})
			return err
		})
		return out, err
	}
	if tx, err := charge("job-1/1"); err != nil || tx.ID != 10 {
		t.Fatalf("the next charge: id %d (%v), want 10", tx.ID, err)
	}
	if _, err := charge("job-1/0"); !failure.Is(err, failure.Conflict) {
		t.Fatalf("a charge key charged twice: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	if _, err := p.DownTo(ctx, 8); err != nil {
		t.Fatal(err)
	}
	if got := ids(); len(got) != 3 || got[0] != 7 || got[1] != 9 || got[2] != 10 {
		t.Fatalf("after going down: ids %v, want [7 9 10]", got)
	}
	if _, err := p.Up(ctx); err != nil {
		t.Fatal(err)
	}
	if got := ids(); len(got) != 3 || got[2] != 10 {
		t.Fatalf("after going up again: ids %v, want [7 9 10]", got)
	}
}
