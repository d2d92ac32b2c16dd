package sqlstore

import (
	"context"
	"database/sql"
	"time"

	"github.com/pressly/goose/v3"

	"github.com/trawlhq/trawl/adapters/sqlstore/internal/sqliteengine"
	"github.com/trawlhq/trawl/ports"
)

// engine is what differs between the dialects, chosen once by Connect: how
// a statement is bound, how writes and transactions run, where the credit
// holds live and how the ledger's locked view works. Every query of the
// store is shared and written once, in this package; the store never asks
// which dialect it runs on.
type engine interface {
	// q binds ? placeholders for the dialect.
	q(query string) string
	// forUpdate locks the rows a SELECT reads for the rest of the
	// transaction ("" where the transaction holds the database);
	// skipLocked also passes over rows another transaction locked.
	forUpdate() string
	skipLocked() string
	// migrate runs fn on the handle the migrations apply on.
	migrate(ctx context.Context, fn func(d goose.Dialect, db *sql.DB) error) error
	// keyed is the context of a read or write of a few rows by key on a
	// request's hot path (see Store.keyed).
	keyed(ctx context.Context) (context.Context, context.CancelFunc)
	// inTx runs fn in a transaction, bounded as Store.inTx says.
	inTx(ctx context.Context, fn func(tx execer) error) error
	// write runs statements that each are a write of their own.
	write() execer
	// principal reads a request's token and credits (see
	// PrincipalByTokenHash).
	principal(ctx context.Context, query string, args, dest []any) (keep func(ports.CreditState), err error)
	// The ledger: the locked view, the one-statement hold, the unlocked
	// read and the count of open holds.
	withCredits(ctx context.Context, accountID int64, fn func(ports.LedgerTx) error) error
	placesHolds() bool
	placeHold(ctx context.Context, h ports.Hold, g ports.HoldGuard) (bool, error)
	readCredits(ctx context.Context, accountID int64, now time.Time) (ports.CreditState, int64, error)
	openHolds(ctx context.Context, now time.Time) (int, int64, error)
	close() error
}

// sqliteEngine runs the store on SQLite, through package sqliteengine.
type sqliteEngine struct {
	s *Store
	e *sqliteengine.Engine
}

func (sqliteEngine) q(query string) string { return query }
func (sqliteEngine) forUpdate() string     { return "" }
func (sqliteEngine) skipLocked() string    { return "" }

func (l sqliteEngine) migrate(ctx context.Context, fn func(d goose.Dialect, db *sql.DB) error) error {
	return l.e.Migrating(ctx, func(db *sql.DB) error { return fn(goose.DialectSQLite3, db) })
}

func (sqliteEngine) keyed(ctx context.Context) (context.Context, context.CancelFunc) {
	return sqliteengine.Keyed(ctx)
}

func (l sqliteEngine) inTx(ctx context.Context, fn func(tx execer) error) error {
	return l.e.InTx(ctx, func(tx sqliteengine.Execer) error { return fn(tx) })
}

func (l sqliteEngine) write() execer { return l.e.Write() }

func (l sqliteEngine) principal(ctx context.Context, query string, args, dest []any) (func(ports.CreditState), error) {
	return l.e.Principal(ctx, query, args, dest, func(ctx context.Context) error {
		return l.s.kx().scanRow(ctx, query, args, dest...)
	})
}

func (l sqliteEngine) withCredits(ctx context.Context, accountID int64, fn func(ports.LedgerTx) error) error {
	return l.e.WithCredits(ctx, accountID, fn)
}

// placesHolds: no. On SQLite the transactional path is the writer gate and
// holds kept in memory; there is no round trip to save.
func (sqliteEngine) placesHolds() bool { return false }

func (sqliteEngine) placeHold(context.Context, ports.Hold, ports.HoldGuard) (bool, error) {
	return false, nil
}

// readCredits reads the credit row; the holds are in memory.
func (l sqliteEngine) readCredits(ctx context.Context, accountID int64, now time.Time) (ports.CreditState, int64, error) {
	const op = "sqlstore.ReadCredits"
	ctx, cancel := l.keyed(ctx)
	defer cancel()
	held, err := l.e.Held(ctx, accountID, now)
	if err != nil {
		return ports.CreditState{}, 0, fail(ctx, op, err)
	}
	var r accountRow
	if err := l.s.kx().GetContext(ctx, &r, `SELECT `+accountCols+` FROM accounts WHERE id = ?`, accountID); err != nil {
		return ports.CreditState{}, 0, notFound(ctx, op, "account", err)
	}
	return r.credits(), held, nil
}

func (l sqliteEngine) openHolds(ctx context.Context, now time.Time) (int, int64, error) {
	n, credits, err := l.e.OpenHolds(ctx, now)
	return n, credits, fail(ctx, "sqlstore.OpenHolds", err)
}

func (l sqliteEngine) close() error { return l.e.Close() }

// shared is what the SQLite engine takes from the store: the bound, the
// wording of failures and the shared statements.
type shared struct{ s *Store }

var _ sqliteengine.Shared = shared{}

func (h shared) Bound(ctx context.Context, until time.Time) (context.Context, context.CancelFunc) {
	return h.s.bounded(ctx, until)
}

func (shared) Fail(ctx context.Context, op string, err error) error { return fail(ctx, op, err) }

func (shared) NotFound(ctx context.Context, op, what string, err error) error {
	return notFound(ctx, op, what, err)
}

func (shared) IsUnique(err error) bool { return isUnique(err) }

func (h shared) LockAccount(ctx context.Context, x sqliteengine.Execer, accountID int64) (ports.CreditState, error) {
	r, err := h.s.lockAccount(ctx, x, accountID)
	return r.credits(), err
}

func (h shared) CreditsAndToken(ctx context.Context, x sqliteengine.Execer, accountID, tokenID int64) (ports.CreditState, bool, error) {
	var r struct {
		accountRow
		Live int64 `db:"live"`
	}
	err := x.GetContext(ctx, &r, h.s.q(`SELECT `+accountCols+`,
		CASE WHEN EXISTS (SELECT 1 FROM tokens WHERE id = ? AND account_id = accounts.id) THEN 1 ELSE 0 END AS live
		FROM accounts WHERE id = ?`), tokenID, accountID)
	return r.credits(), r.Live == 1, err
}

func (h shared) SaveCredits(ctx context.Context, x sqliteengine.Execer, c ports.CreditState, cond string, condArgs ...any) (int64, error) {
	res, err := x.ExecContext(ctx, h.s.q(saveStateSQL+cond), append(stateArgs(c), condArgs...)...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func (h shared) AddTransaction(ctx context.Context, x sqliteengine.Execer, accountID int64, t ports.Transaction) (ports.Transaction, error) {
	return addTransaction(ctx, h.s, x, accountID, t)
}

func (h shared) MarkCheckoutPaid(ctx context.Context, x sqliteengine.Execer, accountID int64, sessionID string, at time.Time) (bool, error) {
	return markCheckoutPaid(ctx, h.s, x, accountID, sessionID, at)
}

func (h shared) Charged(ctx context.Context, x sqliteengine.Execer, accountID int64, key string) (bool, error) {
	return charged(ctx, h.s, x, accountID, key)
}

func (h shared) TokenLive(ctx context.Context, x sqliteengine.Execer, accountID, tokenID int64) (bool, error) {
	return tokenLive(ctx, h.s, x, accountID, tokenID)
}

func (h shared) FinishCrawlPage(ctx context.Context, x sqliteengine.Execer, o ports.CrawlOutcome) error {
	_, err := h.s.finishCrawlPage(ctx, x, o)
	return err
}

func (h shared) DurableHolds(ctx context.Context) ([]ports.Hold, error) {
	var rows []holdRow
	if err := h.s.x().SelectContext(ctx, &rows, `SELECT id, account_id, token_id, amount, created_at, expires_at FROM holds`); err != nil {
		return nil, err
	}
	out := make([]ports.Hold, len(rows))
	for i, r := range rows {
		out[i] = ports.Hold{ID: r.ID, AccountID: r.AccountID, TokenID: r.TokenID, Amount: r.Amount,
			CreatedAt: fromMS(r.CreatedAt), ExpiresAt: fromMS(r.ExpiresAt), Durable: true}
	}
	return out, nil
}

// openSQLite opens the engine of a SQLite store on the file of dsn.
func openSQLite(s *Store, dsn string) (sqliteEngine, error) {
	e, err := sqliteengine.Open(dsn, shared{s})
	return sqliteEngine{s: s, e: e}, err
}
