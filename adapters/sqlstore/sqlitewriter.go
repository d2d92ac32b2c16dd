package sqlstore

import (
	"context"
	"database/sql"

	"github.com/jmoiron/sqlx"
)

// sqliteWriter is the connection the ledger's views write through on
// SQLite, used by one view at a time (under the writer gate), with its own
// handle on the file so the pool keeps every connection for readers.
//
// It holds its connection between views, and its statements stay prepared
// on it. A view's transaction is BEGIN IMMEDIATE and COMMIT on that
// connection, not a database/sql transaction, which starts a goroutine to
// watch its context and borrows each pooled statement for its connection
// on every call; and the connection's page cache stays warm with the rows
// the ledger writes. Statements run with the view's context detached from
// cancellation (see Store.keyed), so none of them starts a goroutine.
//
// After a failure it may have left a transaction open on, the connection
// is closed (SQLite rolls the transaction back) and the next view opens
// another.
type sqliteWriter struct {
	db    *sqlx.DB
	conn  *sqlx.Conn
	stmts map[string]*sqlx.Stmt
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

// begin, commit and rollback control the view's transaction.
func (w *sqliteWriter) begin(ctx context.Context) error {
	_, err := w.x().ExecContext(ctx, "BEGIN IMMEDIATE")
	return err
}

// commit commits; on failure the transaction is rolled back.
func (w *sqliteWriter) commit(ctx context.Context) error {
	if _, err := w.x().ExecContext(ctx, "COMMIT"); err != nil {
		w.rollback(ctx)
		return err
	}
	return nil
}

// rollback rolls back; should that fail, the connection is closed, which
// rolls back what it had begun.
func (w *sqliteWriter) rollback(ctx context.Context) {
	if _, err := w.x().ExecContext(ctx, "ROLLBACK"); err != nil {
		w.reset()
	}
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

var _ execer = writerExecer{}

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

func (x writerExecer) SelectContext(ctx context.Context, dest any, query string, args ...any) error {
	st, err := x.w.stmt(ctx, query)
	if err != nil {
		return err
	}
	return st.SelectContext(ctx, dest, args...)
}
