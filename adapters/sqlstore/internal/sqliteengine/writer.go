package sqliteengine

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/jmoiron/sqlx"
)

// sqliteWriter is the connection every write of the store goes through on
// SQLite (the ledger's views and every other transaction), used by one
// writer at a time (under the writer gate), with its own handle on the
// file so the pool keeps every connection for readers.
//
// It holds its connection between transactions, and its statements stay
// prepared on it. A transaction is BEGIN IMMEDIATE and COMMIT on that
// connection, not a database/sql transaction, which starts a goroutine to
// watch its context and borrows each pooled statement for its connection
// on every call; and the connection's page cache stays warm with the rows
// the store writes. A ledger view's statements run with its context
// detached from cancellation (see Keyed), so none of them starts a
// goroutine.
//
// After a failure it may have left a transaction open on, the connection
// is closed (SQLite rolls the transaction back) and the next writer opens
// another.
type sqliteWriter struct {
	db    *sqlx.DB
	conn  *sqlx.Conn
	stmts map[string]*sqlx.Stmt
	// rows are the credit rows read or committed since the last
	// transaction ended; every commit and rollback ends their epoch.
	rows creditRows
}

func newSQLiteWriter(dsn string) (*sqliteWriter, error) {
	db, err := sqlx.Open("sqlite", dsn)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	return &sqliteWriter{db: db}, nil
}

// stmt is query prepared on the writer's connection.
func (w *sqliteWriter) stmt(ctx context.Context, query string) (*sqlx.Stmt, error) {
	if w.conn == nil {
		c, err := w.db.Connx(ctx)
		if err != nil {
			return nil, err
		}
		w.conn, w.stmts = c, map[string]*sqlx.Stmt{}
	}
	if st := w.stmts[query]; st != nil {
		return st, nil
	}
	st, err := w.conn.PreparexContext(ctx, query)
	if err != nil {
		return nil, err
	}
	w.stmts[query] = st
	return st, nil
}

// begin, commit and rollback control a transaction. A BEGIN that failed
// is rolled back, should it have begun all the same (a context ended as
// it ran), so the connection is never left inside a transaction.
func (w *sqliteWriter) begin(ctx context.Context) error {
	_, err := w.x().ExecContext(ctx, "BEGIN IMMEDIATE")
	if err != nil {
		w.rollback(ctx)
	}
	return err
}

// commit commits; on failure the transaction is rolled back.
func (w *sqliteWriter) commit(ctx context.Context) error {
	defer w.rows.ended()
	if _, err := w.x().ExecContext(ctx, "COMMIT"); err != nil {
		w.rollback(ctx)
		return err
	}
	return nil
}

// rollback rolls back, whether ctx is done or not; should that fail, the
// connection is closed, which rolls back what it had begun.
func (w *sqliteWriter) rollback(ctx context.Context) {
	defer w.rows.ended()
	if _, err := w.x().ExecContext(context.WithoutCancel(ctx), "ROLLBACK"); err != nil {
		w.reset()
	}
}

// inTx runs fn in a transaction on the writer, committing on nil and
// rolling back otherwise (and on panic). A ctx done before the commit
// leaves nothing written.
func (w *sqliteWriter) inTx(ctx context.Context, fn func(tx Execer) error) (err error) {
	if err := w.begin(ctx); err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer func() {
		if p := recover(); p != nil {
			w.rollback(ctx)
			panic(p)
		}
		if err != nil {
			w.rollback(ctx)
			return
		}
		err = w.commit(ctx)
	}()
	return fn(w.x())
}

// reset closes the connection and its statements; the next use opens
// another.
func (w *sqliteWriter) reset() {
	for _, st := range w.stmts {
		_ = st.Close()
	}
	if w.conn != nil {
		_ = w.conn.Close()
	}
	w.conn, w.stmts = nil, nil
}

// close closes the connection and the handle.
func (w *sqliteWriter) close() error {
	w.reset()
	return w.db.Close()
}

func (w *sqliteWriter) x() writerExecer { return writerExecer{w} }

// writerExecer runs queries on the writer's connection.
type writerExecer struct{ w *sqliteWriter }

var _ Execer = writerExecer{}

func (x writerExecer) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	st, err := x.w.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	return st.ExecContext(ctx, args...)
}

func (x writerExecer) GetContext(ctx context.Context, dest any, query string, args ...any) error {
	st, err := x.w.stmt(ctx, query)
	if err != nil {
		return err
	}
	return st.GetContext(ctx, dest, args...)
}

func (x writerExecer) scanRow(ctx context.Context, query string, args []any, dest ...any) error {
	st, err := x.w.stmt(ctx, query)
	if err != nil {
		return err
	}
	return st.QueryRowContext(ctx, args...).Scan(dest...)
}

func (x writerExecer) SelectContext(ctx context.Context, dest any, query string, args ...any) error {
	st, err := x.w.stmt(ctx, query)
	if err != nil {
		return err
	}
	return st.SelectContext(ctx, dest, args...)
}
