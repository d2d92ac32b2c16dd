package sqlstore

import (
	"context"
	"database/sql"
	"time"

	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/ports"
)

type tokenRow struct {
	ID         int64         `db:"id"`
	AccountID  int64         `db:"account_id"`
	Name       string        `db:"name"`
	Hash       string        `db:"hash"`
	Preview    string        `db:"preview"`
	LastUsedAt sql.NullInt64 `db:"last_used_at"`
	CreatedAt  int64         `db:"created_at"`
}

const tokenCols = `id, account_id, name, hash, preview, last_used_at, created_at`

func (r tokenRow) token() ports.Token {
	return ports.Token{ID: r.ID, AccountID: r.AccountID, Name: r.Name, Hash: r.Hash, Preview: r.Preview,
		LastUsedAt: timePtr(r.LastUsedAt), CreatedAt: fromMS(r.CreatedAt)}
}

// lockAccount takes the account's row lock for the rest of tx. On SQLite the
// transaction already began IMMEDIATE and holds the write lock.
func (s *Store) lockAccount(ctx context.Context, q execer, accountID int64) (accountRow, error) {
	query := `SELECT ` + accountCols + ` FROM accounts WHERE id = ?`
	if s.dialect == Postgres {
		query += ` FOR UPDATE`
	}
	var r accountRow
	err := q.GetContext(ctx, &r, s.q(query), accountID)
	return r, err
}

// CreateToken inserts a token within the cap, atomically.
func (s *Store) CreateToken(ctx context.Context, t ports.Token, maxActive int) (ports.Token, error) {
	const op = "sqlstore.CreateToken"
	ctx, cancel := s.bounded(ctx)
	defer cancel()
	var id int64
	err := s.inTx(ctx, func(tx execer) error {
		if _, err := s.lockAccount(ctx, tx, t.AccountID); err != nil {
			return notFound(ctx, op, "account", err)
		}
		var n int
		if err := tx.GetContext(ctx, &n, s.q(`SELECT COUNT(*) FROM tokens WHERE account_id = ?`), t.AccountID); err != nil {
			return err
		}
		if n >= maxActive {
			return failure.E(op, failure.Conflict, "token limit reached")
		}
		return tx.GetContext(ctx, &id, s.q(`INSERT INTO tokens (account_id, name, hash, preview, created_at) VALUES (?, ?, ?, ?, ?) RETURNING id`),
			t.AccountID, t.Name, t.Hash, t.Preview, ms(t.CreatedAt))
	})
	if err != nil {
		return ports.Token{}, fail(ctx, op, err)
	}
	t.ID = id
	t.CreatedAt = fromMS(ms(t.CreatedAt))
	return t, nil
}

// principalQuery reads a token and its account; the columns are in the
// order PrincipalByTokenHash scans them.
const principalQuery = `SELECT t.id, t.account_id, t.hash, t.last_used_at,
		a.plan, a.plan_anchor, a.period_start, a.used, a.allowance_used, a.topup
		FROM tokens t JOIN accounts a ON a.id = t.account_id WHERE t.hash = ?`

// PrincipalByTokenHash finds a live token and its account with one query.
func (s *Store) PrincipalByTokenHash(ctx context.Context, hash string) (ports.Principal, error) {
	ctx, cancel := s.keyed(ctx)
	defer cancel()
	// Only the columns a request needs (no profile text), scanned column by
	// column into fixed places: this read runs on every authenticated
	// request, and a struct scan resolves the columns by reflection each
	// time.
	var tok tokenRow
	var a accountRow
	dest := []any{&tok.ID, &tok.AccountID, &tok.Hash, &tok.LastUsedAt,
		&a.Plan, &a.PlanAnchor, &a.PeriodStart, &a.Used, &a.AllowanceUsed, &a.TopUp}
	var epoch uint64
	var err error
	if s.sqliteW != nil && s.writer.tryEnter() {
		// The writer is idle: read on its connection, whose page cache
		// holds what this process wrote last (every write goes through
		// it), where a pool connection must read again every page a
		// commit changed since its last read.
		epoch = s.sqliteW.rows.now()
		err = s.sqliteW.x().scanRow(ctx, principalQuery, []any{hash}, dest...)
		s.writer.leave()
	} else {
		if s.sqliteW != nil {
			epoch = s.sqliteW.rows.now()
		}
		err = s.x().scanRow(ctx, s.q(principalQuery), []any{hash}, dest...)
	}
	if err != nil {
		return ports.Principal{}, notFound(ctx, "sqlstore.PrincipalByTokenHash", "token", err)
	}
	a.ID = tok.AccountID
	credits := a.credits()
	if s.sqliteW != nil {
		// The call's hold starts from this row (creditRows).
		s.sqliteW.rows.keep(credits, epoch)
	}
	return ports.Principal{Account: a.account().Caller(), Token: tok.token().Caller(), Credits: credits}, nil
}

// ListTokens lists an account's tokens by id.
func (s *Store) ListTokens(ctx context.Context, accountID int64) ([]ports.Token, error) {
	ctx, cancel := s.bounded(ctx)
	defer cancel()
	var rows []tokenRow
	if err := s.x().SelectContext(ctx, &rows, s.q(`SELECT `+tokenCols+` FROM tokens WHERE account_id = ? ORDER BY id`), accountID); err != nil {
		return nil, fail(ctx, "sqlstore.ListTokens", err)
	}
	out := make([]ports.Token, len(rows))
	for i, r := range rows {
		out[i] = r.token()
	}
	return out, nil
}

// DeleteToken revokes a token.
func (s *Store) DeleteToken(ctx context.Context, accountID, tokenID int64) error {
	ctx, cancel := s.bounded(ctx)
	defer cancel()
	res, err := s.w().ExecContext(ctx, s.q(`DELETE FROM tokens WHERE id = ? AND account_id = ?`), tokenID, accountID)
	if err != nil {
		return fail(ctx, "sqlstore.DeleteToken", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return failure.E("sqlstore.DeleteToken", failure.NotFound, "token not found")
	}
	return nil
}

// TouchToken records a use.
func (s *Store) TouchToken(ctx context.Context, tokenID int64, at time.Time) error {
	ctx, cancel := s.bounded(ctx)
	defer cancel()
	_, err := s.w().ExecContext(ctx, s.q(`UPDATE tokens SET last_used_at = ? WHERE id = ?`), ms(at), tokenID)
	return fail(ctx, "sqlstore.TouchToken", err)
}
