// Package sqliteengine is how the SQL store runs on SQLite: one writer at a
// time (the writer gate and the writer's own connection), the credit holds
// in this process's memory (holdBook), the credit rows remembered between
// transactions (creditRows) and the ledger's locked view over all three
// (sqliteTx). It holds no query of the store's tables but those of the holds
// in memory and the view's compare-and-set: every other statement is the
// shared one of package sqlstore, reached through Shared, so both dialects
// run the same SQL.
package sqliteengine

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/trawlhq/trawl/ports"
)

// Execer is what the writer's connection, the pool and a transaction offer:
// the store's statements run on any of them.
type Execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	GetContext(ctx context.Context, dest any, query string, args ...any) error
	SelectContext(ctx context.Context, dest any, query string, args ...any) error
}

// Shared is what the engine takes from the store: the query timeout, the
// wording of failures, and the statements both dialects share.
type Shared interface {
	// Bound limits ctx to the query timeout (zero until) or to until.
	Bound(ctx context.Context, until time.Time) (context.Context, context.CancelFunc)
	// Fail and NotFound turn an error leaving the store into a failure.
	Fail(ctx context.Context, op string, err error) error
	NotFound(ctx context.Context, op, what string, err error) error
	// IsUnique reports a uniqueness violation.
	IsUnique(err error) bool
	// LockAccount reads the credit row inside the transaction, if any.
	LockAccount(ctx context.Context, x Execer, accountID int64) (ports.CreditState, error)
	// CreditsAndToken reads the credit row and whether the token is live.
	CreditsAndToken(ctx context.Context, x Execer, accountID, tokenID int64) (ports.CreditState, bool, error)
	// SaveCredits writes the credit row where it also meets cond (with
	// condArgs), and tells how many rows changed.
	SaveCredits(ctx context.Context, x Execer, c ports.CreditState, cond string, condArgs ...any) (int64, error)
	AddTransaction(ctx context.Context, x Execer, accountID int64, t ports.Transaction) (ports.Transaction, error)
	MarkCheckoutPaid(ctx context.Context, x Execer, accountID int64, sessionID string, at time.Time) (bool, error)
	Charged(ctx context.Context, x Execer, accountID int64, key string) (bool, error)
	TokenLive(ctx context.Context, x Execer, accountID, tokenID int64) (bool, error)
	// FinishCrawlPage writes a crawl page's outcome inside the transaction.
	FinishCrawlPage(ctx context.Context, x Execer, o ports.CrawlOutcome) error
	// DurableHolds reads every hold of the holds table.
	DurableHolds(ctx context.Context) ([]ports.Hold, error)
}

// Engine is the SQLite side of one store.
type Engine struct {
	shared Shared
	gate   writerGate
	w      *sqliteWriter // every write's connection
	holds  holdBook      // the credit holds, in memory
}

// Open opens the writer's handle on the file (dsn, without query_only).
func Open(dsn string, shared Shared) (*Engine, error) {
	w, err := newSQLiteWriter(dsn)
	if err != nil {
		return nil, err
	}
	return &Engine{shared: shared, gate: newWriterGate(), w: w}, nil
}

// Close closes the writer, after the view in progress, if any.
func (e *Engine) Close() error {
	_ = e.gate.enter(context.Background())
	defer e.gate.leave()
	return e.w.close()
}

// Migrating hands the writer's handle to fn, its connection released for
// the run, under the gate.
func (e *Engine) Migrating(ctx context.Context, fn func(db *sql.DB) error) error {
	if err := e.gate.enter(ctx); err != nil {
		return err
	}
	defer e.gate.leave()
	defer e.w.rows.ended()
	e.w.reset()
	return fn(e.w.db.DB)
}

// Keyed is the context of a statement that reads or writes a few rows by
// key, on the hot path of a request (authentication, the credit view, the
// credit status): detached from ctx's cancellation. Such a statement takes
// microseconds in the process, and the watchers that would cancel it (a
// goroutine from database/sql and one from the driver for each statement)
// cost more CPU than the statement. A wait for another process's lock is
// still bounded, by the busy timeout (the query timeout).
func Keyed(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithoutCancel(ctx), func() {}
}

// InTx runs fn in a transaction on the writer, under the gate: the
// transaction (the wait for the gate included) is bounded by the query
// timeout, and each statement of fn by the transaction's deadline.
func (e *Engine) InTx(ctx context.Context, fn func(tx Execer) error) error {
	ctx, cancel := e.shared.Bound(ctx, time.Time{})
	defer cancel()
	if err := e.gate.enter(ctx); err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer e.gate.leave()
	deadline, _ := ctx.Deadline()
	return e.w.inTx(ctx, func(x Execer) error { return fn(bounded{x, e.shared, deadline}) })
}

// Write runs each statement as a write of its own, on the writer under the
// gate, so it waits its turn in the gate's queue, not in SQLite's sleeping
// busy handler; the wait and the statement are bounded by the query
// timeout. It must not be used inside a transaction of the store (the gate
// is held).
func (e *Engine) Write() Execer { return gatedWrite{e} }

// Principal reads one row by key for a request's authentication: on the
// writer's connection when it is idle, whose page cache holds what this
// process wrote last (every write goes through it), where a pool connection
// must read again every page a commit changed since its last read; else on
// the pool, by pool. The credits it read are remembered (creditRows) for the
// call's hold to start from, through keep.
func (e *Engine) Principal(ctx context.Context, query string, args []any, dest []any, pool func(ctx context.Context) error) (keep func(ports.CreditState), err error) {
	ctx, cancel := Keyed(ctx)
	defer cancel()
	var epoch uint64
	if e.gate.tryEnter() {
		epoch = e.w.rows.now()
		err = e.w.x().scanRow(ctx, query, args, dest...)
		e.gate.leave()
	} else {
		epoch = e.w.rows.now()
		err = pool(ctx)
	}
	return func(c ports.CreditState) { e.w.rows.keep(c, epoch) }, err
}

// Held is what the account's holds not expired at now reserve.
func (e *Engine) Held(ctx context.Context, accountID int64, now time.Time) (int64, error) {
	if err := e.holds.load(ctx, e.shared); err != nil {
		return 0, err
	}
	return e.holds.held(accountID, now), nil
}

// OpenHolds counts every hold not expired at now, and the credits they
// reserve.
func (e *Engine) OpenHolds(ctx context.Context, now time.Time) (int, int64, error) {
	if err := e.holds.load(ctx, e.shared); err != nil {
		return 0, 0, err
	}
	n, credits := e.holds.open(now)
	return n, credits, nil
}

// bounded runs each statement of a transaction bounded by its deadline.
type bounded struct {
	x        Execer
	shared   Shared
	deadline time.Time
}

func (b bounded) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	ctx, cancel := b.shared.Bound(ctx, b.deadline)
	defer cancel()
	return b.x.ExecContext(ctx, query, args...)
}

func (b bounded) GetContext(ctx context.Context, dest any, query string, args ...any) error {
	ctx, cancel := b.shared.Bound(ctx, b.deadline)
	defer cancel()
	return b.x.GetContext(ctx, dest, query, args...)
}

func (b bounded) SelectContext(ctx context.Context, dest any, query string, args ...any) error {
	ctx, cancel := b.shared.Bound(ctx, b.deadline)
	defer cancel()
	return b.x.SelectContext(ctx, dest, query, args...)
}

// gatedWrite runs each statement on the writer, under the gate.
type gatedWrite struct{ e *Engine }

func (g gatedWrite) run(ctx context.Context, fn func(ctx context.Context, x writerExecer) error) error {
	ctx, cancel := g.e.shared.Bound(ctx, time.Time{})
	defer cancel()
	if err := g.e.gate.enter(ctx); err != nil {
		return err
	}
	defer g.e.gate.leave()
	defer g.e.w.rows.ended()
	return fn(ctx, g.e.w.x())
}

func (g gatedWrite) ExecContext(ctx context.Context, query string, args ...any) (res sql.Result, err error) {
	err = g.run(ctx, func(ctx context.Context, x writerExecer) error {
		res, err = x.ExecContext(ctx, query, args...)
		return err
	})
	return res, err
}

func (g gatedWrite) GetContext(ctx context.Context, dest any, query string, args ...any) error {
	return g.run(ctx, func(ctx context.Context, x writerExecer) error { return x.GetContext(ctx, dest, query, args...) })
}

func (g gatedWrite) SelectContext(ctx context.Context, dest any, query string, args ...any) error {
	return g.run(ctx, func(ctx context.Context, x writerExecer) error { return x.SelectContext(ctx, dest, query, args...) })
}

// errStaleRead: the credit row read before the transaction began had
// changed by the time it began (another process wrote the file), so the
// view starts again inside a transaction.
var errStaleRead = errors.New("credit row changed before the write transaction began")

func ms(t time.Time) int64 { return t.UnixMilli() }

func fromMS(v int64) time.Time { return time.UnixMilli(v).UTC() }

func msPtr(t *time.Time) sql.NullInt64 {
	if t == nil {
		return sql.NullInt64{}
	}
	return sql.NullInt64{Int64: t.UnixMilli(), Valid: true}
}
