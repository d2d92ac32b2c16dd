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
	var r accountRow
	err := q.GetContext(ctx, &r, s.q(`SELECT `+accountCols+` FROM accounts WHERE id = ?`+s.eng.forUpdate()), accountID)
	return r, err
}

// CreateToken inserts a token within the cap, atomically.
func (s *Store) CreateToken(ctx context.Context, t ports.Token, maxActive int) (ports.Token, error) {
	const op = "sqlstore.CreateToken"
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
	// Only the columns a request needs (no profile text), scanned column by
	// column into fixed places: this read runs on every authenticated
	// request, and a struct scan resolves the columns by reflection each
	// time.
	var tok tokenRow
	var a accountRow
	dest := []any{&tok.ID, &tok.AccountID, &tok.Hash, &tok.LastUsedAt,
		&a.Plan, &a.PlanAnchor, &a.PeriodStart, &a.Used, &a.AllowanceUsed, &a.TopUp}
	// On SQLite, on the writer's connection when it is idle (its page
	// cache is warm), and the row is remembered for the call's hold.
	keep, err := s.eng.principal(ctx, principalQuery, []any{hash}, dest)
	if err != nil {
		return ports.Principal{}, notFound(ctx, "sqlstore.PrincipalByTokenHash", "token", err)
	}
	a.ID = tok.AccountID
	credits := a.credits()
	keep(credits) // the call's hold starts from this row (on SQLite)
	return ports.Principal{Account: a.account().Caller(), Token: tok.token().Caller(), Credits: credits}, nil
}

// ListTokens lists an account's tokens by id.
func (s *Store) ListTokens(ctx context.Context, accountID int64) ([]ports.Token, error) {
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
	_, err := s.w().ExecContext(ctx, s.q(`UPDATE tokens SET last_used_at = ? WHERE id = ?`), ms(at), tokenID)
	return fail(ctx, "sqlstore.TouchToken", err)
}
