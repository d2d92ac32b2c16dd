package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/pressly/goose/v3"

	"github.com/trawlhq/trawl/ports"
)

// postgresEngine runs the store on PostgreSQL: rows are locked, not the
// database, so transactions run side by side on the pool and every
// statement is bounded by the query timeout.
type postgresEngine struct {
	s       *Store
	rebound sync.Map // query with ? -> the same with $n
}

func (p *postgresEngine) q(query string) string {
	if q, ok := p.rebound.Load(query); ok {
		return q.(string)
	}
	q := sqlx.Rebind(sqlx.DOLLAR, query)
	p.rebound.Store(query, q)
	return q
}

func (*postgresEngine) forUpdate() string  { return ` FOR UPDATE` }
func (*postgresEngine) skipLocked() string { return ` FOR UPDATE SKIP LOCKED` }

func (p *postgresEngine) migrate(_ context.Context, fn func(d goose.Dialect, db *sql.DB) error) error {
	return fn(goose.DialectPostgres, p.s.db.DB)
}

func (p *postgresEngine) keyed(ctx context.Context) (context.Context, context.CancelFunc) {
	return p.s.bounded(ctx, time.Time{})
}

// inTx runs fn in a database/sql transaction on the pool, committing on
// nil and rolling back otherwise (and on panic).
func (p *postgresEngine) inTx(ctx context.Context, fn func(tx execer) error) (err error) {
	ctx, cancel := p.s.bounded(ctx, time.Time{})
	defer cancel()
	defer func() {
		// A transaction its bound ended between two statements reports
		// only that it is done: say why.
		if err != nil && errors.Is(err, sql.ErrTxDone) && ctx.Err() != nil {
			err = errors.Join(err, ctx.Err())
		}
	}()
	tx, err := p.s.db.BeginTxx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer func() {
		if p := recover(); p != nil {
			_ = tx.Rollback()
			panic(p)
		}
		if err != nil {
			_ = tx.Rollback()
			return
		}
		err = tx.Commit()
	}()
	deadline, _ := ctx.Deadline()
	return fn(preparedExecer{s: p.s, tx: tx, until: deadline})
}

func (p *postgresEngine) write() execer { return p.s.x() }

func (p *postgresEngine) principal(ctx context.Context, query string, args, dest []any) (func(ports.CreditState), error) {
	return func(ports.CreditState) {}, p.s.kx().scanRow(ctx, p.q(query), args, dest...)
}

// withCredits: the row is locked FOR UPDATE by the view's first statement
// (see WithCredits).
func (p *postgresEngine) withCredits(ctx context.Context, accountID int64, fn func(ports.LedgerTx) error) error {
	const op = "sqlstore.WithCredits"
	return notFound(ctx, op, "account", p.inTx(ctx, func(tx execer) error {
		l := &ledgerTx{s: p.s, ctx: ctx, tx: tx, accountID: accountID}
		if err := fn(l); err != nil {
			if l.err != nil {
				return l.err // fn failed for want of the row it could not read
			}
			return err
		}
		return l.finish()
	}))
}

func (*postgresEngine) placesHolds() bool { return true }

func (p *postgresEngine) placeHold(ctx context.Context, h ports.Hold, g ports.HoldGuard) (bool, error) {
	const op = "sqlstore.PlaceHold"
	exp := ms(h.ExpiresAt)
	res, err := p.s.x().ExecContext(ctx, p.q(placeHoldSQL),
		h.Amount, exp, exp,
		h.AccountID, g.Plan, msPtr(g.PlanAnchor), msPtr(g.PeriodStart), ms(g.Now), g.Allowance, h.Amount,
		h.ID, h.TokenID, h.Amount, ms(h.CreatedAt), exp)
	if err != nil {
		return false, fail(ctx, op, err)
	}
	n, err := res.RowsAffected()
	return n == 1, fail(ctx, op, err)
}

// readCredits reads the credit row and what its holds reserve in one
// statement: the counter, unless a hold may have expired by now.
func (p *postgresEngine) readCredits(ctx context.Context, accountID int64, now time.Time) (ports.CreditState, int64, error) {
	const op = "sqlstore.ReadCredits"
	var r struct {
		accountRow
		Held int64 `db:"held"`
	}
	err := p.s.kx().GetContext(ctx, &r, p.q(`SELECT `+accountCols+`, CASE WHEN holds_expire_from IS NULL OR holds_expire_from > ? THEN held
		ELSE (SELECT COALESCE(SUM(amount), 0) FROM holds WHERE account_id = accounts.id AND expires_at > ?) END AS held
		FROM accounts WHERE id = ?`), ms(now), ms(now), accountID)
	if err != nil {
		return ports.CreditState{}, 0, notFound(ctx, op, "account", err)
	}
	return r.credits(), r.Held, nil
}

func (p *postgresEngine) openHolds(ctx context.Context, now time.Time) (int, int64, error) {
	var row struct {
		N   int   `db:"n"`
		Sum int64 `db:"credits"`
	}
	err := p.s.x().GetContext(ctx, &row, p.q(`SELECT COUNT(*) AS n, COALESCE(SUM(amount), 0) AS credits FROM holds WHERE expires_at > ?`), ms(now))
	if err != nil {
		return 0, 0, fail(ctx, "sqlstore.OpenHolds", err)
	}
	return row.N, row.Sum, nil
}

func (*postgresEngine) close() error { return nil }
