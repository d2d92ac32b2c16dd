package sqlstore

import (
	"context"
	"database/sql"
	"sync"

	"github.com/jmoiron/sqlx"
)

// stmtCache keeps one prepared statement per query text. A *sql.Stmt made
// on the pool is prepared again, transparently, on each connection it runs
// on, and database/sql remembers the prepared form per connection; a
// transaction borrows the form of its own connection (Tx.Stmt). So SQLite
// parses, and PostgreSQL plans, a statement once per connection instead of
// on every call, and on PostgreSQL a statement is one round trip, not two.
// Every query of the store is a constant, so the cache stays small.
//
// A statement is prepared on the pool in the background the first time it
// is asked for, and runs unprepared until then: preparing on the pool needs
// a connection of its own, which a caller already holding one in a
// transaction must never wait for (with every connection in such hands,
// nobody would get one).
type stmtCache struct {
	mu      sync.RWMutex
	m       map[string]*sqlx.Stmt
	pending map[string]bool
	closed  bool
}

// prepared returns the statement of query (already bound for the dialect),
// or nil while it is being prepared.
func (s *Store) prepared(query string) *sqlx.Stmt {
	c := &s.stmts
	c.mu.RLock()
	st := c.m[query]
	c.mu.RUnlock()
	if st != nil {
		return st
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if st := c.m[query]; st != nil || c.pending[query] || c.closed {
		return st
	}
	if c.pending == nil {
		c.pending, c.m = map[string]bool{}, map[string]*sqlx.Stmt{}
	}
	c.pending[query] = true
	go s.prepare(query)
	return nil
}

// prepare prepares query on the pool and remembers it; a failure is
// forgotten, so a later call tries again.
func (s *Store) prepare(query string) {
	ctx, cancel := context.WithTimeout(context.Background(), s.queryTimeout)
	defer cancel()
	st, err := s.db.PreparexContext(ctx, query)
	c := &s.stmts
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.pending, query)
	if err != nil {
		return
	}
	if c.closed {
		_ = st.Close()
		return
	}
	c.m[query] = st
}

// closeStatements closes every cached statement (on Close).
func (s *Store) closeStatements() {
	c := &s.stmts
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	for q, st := range c.m {
		_ = st.Close()
		delete(c.m, q)
	}
}

// preparedExecer runs queries through the statement cache, on the pool or
// inside a transaction.
type preparedExecer struct {
	s  *Store
	tx *sqlx.Tx // nil: the pool
}

var _ execer = preparedExecer{}

// x is the store's execer outside a transaction.
func (s *Store) x() preparedExecer { return preparedExecer{s: s} }

// w runs a write that is one statement: on SQLite on the writer, under the
// writer gate, as every write there (the pool only reads), so it waits its
// turn in the gate's queue, not in SQLite's sleeping busy handler; on
// PostgreSQL as x. It must not be used inside a transaction of the store
// (the gate is held).
func (s *Store) w() execer {
	if s.sqliteW == nil {
		return s.x()
	}
	return gatedWrite{s}
}

// gatedWrite runs each statement on the writer, under the gate.
type gatedWrite struct{ s *Store }

func (g gatedWrite) run(ctx context.Context, fn func(x writerExecer) error) error {
	if err := g.s.writer.enter(ctx); err != nil {
		return err
	}
	defer g.s.writer.leave()
	defer g.s.sqliteW.rows.ended()
	return fn(g.s.sqliteW.x())
}

func (g gatedWrite) ExecContext(ctx context.Context, query string, args ...any) (res sql.Result, err error) {
	err = g.run(ctx, func(x writerExecer) error {
		res, err = x.ExecContext(ctx, query, args...)
		return err
	})
	return res, err
}

func (g gatedWrite) GetContext(ctx context.Context, dest any, query string, args ...any) error {
	return g.run(ctx, func(x writerExecer) error { return x.GetContext(ctx, dest, query, args...) })
}

func (g gatedWrite) SelectContext(ctx context.Context, dest any, query string, args ...any) error {
	return g.run(ctx, func(x writerExecer) error { return x.SelectContext(ctx, dest, query, args...) })
}

func (p preparedExecer) unprepared() execer {
	if p.tx != nil {
		return p.tx
	}
	return p.s.db
}

// stmt is query's prepared statement, within the transaction if any; nil
// while it is not prepared yet.
func (p preparedExecer) stmt(ctx context.Context, query string) *sqlx.Stmt {
	st := p.s.prepared(query)
	if st == nil || p.tx == nil {
		return st
	}
	return p.tx.StmtxContext(ctx, st)
}

func (p preparedExecer) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if st := p.stmt(ctx, query); st != nil {
		return st.ExecContext(ctx, args...)
	}
	return p.unprepared().ExecContext(ctx, query, args...)
}

func (p preparedExecer) GetContext(ctx context.Context, dest any, query string, args ...any) error {
	if st := p.stmt(ctx, query); st != nil {
		return st.GetContext(ctx, dest, args...)
	}
	return p.unprepared().GetContext(ctx, dest, query, args...)
}

func (p preparedExecer) SelectContext(ctx context.Context, dest any, query string, args ...any) error {
	if st := p.stmt(ctx, query); st != nil {
		return st.SelectContext(ctx, dest, args...)
	}
	return p.unprepared().SelectContext(ctx, dest, query, args...)
}

// scanRow runs a query of one row and scans its columns into dest, in
// order: for the hottest reads, where a struct scan's reflection shows. No
// row is sql.ErrNoRows, as with GetContext.
func (p preparedExecer) scanRow(ctx context.Context, query string, args []any, dest ...any) error {
	if st := p.stmt(ctx, query); st != nil {
		return st.QueryRowContext(ctx, args...).Scan(dest...)
	}
	if p.tx != nil {
		return p.tx.QueryRowContext(ctx, query, args...).Scan(dest...)
	}
	return p.s.db.QueryRowContext(ctx, query, args...).Scan(dest...)
}
