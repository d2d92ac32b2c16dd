package sqlstore

import (
	"context"
	"database/sql"
	"sync"
	"time"

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
	mu        sync.RWMutex
	m         map[string]*sqlx.Stmt
	pending   map[string]bool
	closed    bool
	preparing sync.WaitGroup // the statements being prepared
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
	c.preparing.Add(1)
	go s.prepare(query)
	return nil
}

// prepare prepares query on the pool and remembers it; a failure is
// forgotten, so a later call tries again.
func (s *Store) prepare(query string) {
	defer s.stmts.preparing.Done()
	ctx, cancel := s.bounded(context.Background(), time.Time{})
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

// closeStatements closes every cached statement (on Close), once those
// being prepared are, so no connection opens after Close.
func (s *Store) closeStatements() {
	c := &s.stmts
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	c.preparing.Wait()
	c.mu.Lock()
	defer c.mu.Unlock()
	for q, st := range c.m {
		_ = st.Close()
		delete(c.m, q)
	}
}

// preparedExecer runs queries through the statement cache, on the pool or
// inside a transaction, each bounded (bound).
type preparedExecer struct {
	s  *Store
	tx *sqlx.Tx // nil: the pool
	// until is the deadline of the transaction; keyed: a read by key on a
	// request's hot path (Store.keyed).
	until time.Time
	keyed bool
}

var _ execer = preparedExecer{}

// x runs statements on the pool, each bounded by the query timeout.
func (s *Store) x() preparedExecer { return preparedExecer{s: s} }

// kx runs reads by key on a request's hot path (Store.keyed).
func (s *Store) kx() preparedExecer { return preparedExecer{s: s, keyed: true} }

// w runs a write that is one statement, bounded as x: on SQLite on the
// writer, under the writer gate, as every write there (the pool only
// reads), so it waits its turn in the gate's queue, not in SQLite's
// sleeping busy handler; on PostgreSQL on the pool. It must not be used
// inside a transaction of the store (the gate is held).
func (s *Store) w() execer { return s.eng.write() }

// bound is the context a statement runs under: the store's one bound.
func (p preparedExecer) bound(ctx context.Context) (context.Context, context.CancelFunc) {
	if p.keyed {
		return p.s.keyed(ctx)
	}
	return p.s.bounded(ctx, p.until)
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
	ctx, cancel := p.bound(ctx)
	defer cancel()
	if st := p.stmt(ctx, query); st != nil {
		return st.ExecContext(ctx, args...)
	}
	return p.unprepared().ExecContext(ctx, query, args...)
}

func (p preparedExecer) GetContext(ctx context.Context, dest any, query string, args ...any) error {
	ctx, cancel := p.bound(ctx)
	defer cancel()
	if st := p.stmt(ctx, query); st != nil {
		return st.GetContext(ctx, dest, args...)
	}
	return p.unprepared().GetContext(ctx, dest, query, args...)
}

func (p preparedExecer) SelectContext(ctx context.Context, dest any, query string, args ...any) error {
	ctx, cancel := p.bound(ctx)
	defer cancel()
	if st := p.stmt(ctx, query); st != nil {
		return st.SelectContext(ctx, dest, args...)
	}
	return p.unprepared().SelectContext(ctx, dest, query, args...)
}

// scanRow runs a query of one row and scans its columns into dest, in
// order: for the hottest reads, where a struct scan's reflection shows. No
// row is sql.ErrNoRows, as with GetContext.
func (p preparedExecer) scanRow(ctx context.Context, query string, args []any, dest ...any) error {
	ctx, cancel := p.bound(ctx)
	defer cancel()
	if st := p.stmt(ctx, query); st != nil {
		return st.QueryRowContext(ctx, args...).Scan(dest...)
	}
	if p.tx != nil {
		return p.tx.QueryRowContext(ctx, query, args...).Scan(dest...)
	}
	return p.s.db.QueryRowContext(ctx, query, args...).Scan(dest...)
}
