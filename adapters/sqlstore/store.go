// Package sqlstore implements Trawl's store ports on SQL with sqlx: SQLite
// (modernc.org/sqlite, pure Go: the embedded default) and PostgreSQL
// (lib/pq). Both dialects share every query; migrations are embedded. What
// differs between them is an engine chosen once by Connect (engine.go):
// PostgreSQL's in postgres.go, SQLite's in internal/sqliteengine (the
// writer gate and connection, the holds in memory, the remembered credit
// rows and the ledger's view over them).
//
// Every statement runs under the query timeout because the store reaches
// the database only through its execers, which apply it: s.x() (the pool),
// s.w() (a write of its own), s.inTx (a transaction: fn's execer bounds each
// statement by the transaction's deadline) and s.kx() (a read by key on a
// request's hot path, see keyed). A new query is written as
//
//	func (s *Store) Thing(ctx context.Context, id string) (T, error) {
//		var r thingRow
//		err := s.x().GetContext(ctx, &r, s.q(`SELECT ... WHERE id = ?`), id)
//		return r.thing(), notFound(ctx, "sqlstore.Thing", "thing", err)
//	}
//
// with no bound of its own; s.db is never used for a statement.
package sqlstore

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
	"github.com/pressly/goose/v3"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/ports"
)

//go:embed migrations
var migrations embed.FS

// Dialect is the SQL flavour of a store.
type Dialect string

const (
	SQLite   Dialect = "sqlite"
	Postgres Dialect = "postgres"
)

// Store implements the store ports over one database.
type Store struct {
	db           *sqlx.DB
	dialect      Dialect
	eng          engine // what the dialect does its own way
	queryTimeout time.Duration
	stmts        stmtCache
}

var (
	_ ports.AccountStore     = (*Store)(nil)
	_ ports.TokenStore       = (*Store)(nil)
	_ ports.LedgerStore      = (*Store)(nil)
	_ ports.IdempotencyStore = (*Store)(nil)
)

// Options configure Open.
type Options struct {
	// DatabaseURL selects PostgreSQL when it starts with postgres:// or
	// postgresql://, and SQLite for sqlite:// or a file path.
	DatabaseURL string
	// DataDir holds trawl.db when DatabaseURL is empty.
	DataDir string
	// QueryTimeout bounds every statement, waiting for a free connection
	// included (default 10 s). A statement that runs out of it fails as
	// failure.TemporarilyUnavailable.
	QueryTimeout time.Duration
	// Pool settles how many connections this process keeps; zero values
	// take the dialect's defaults (DefaultPool).
	Pool Pool
}

// Pool is the connection pool of one process. Every Trawl process on a
// PostgreSQL server opens up to MaxConns connections, so the sum over all
// processes (plus every other client) must stay below the server's
// max_connections.
type Pool struct {
	MaxConns        int           // open connections at most
	MaxIdleConns    int           // idle connections kept for reuse (0: MaxConns)
	ConnMaxLifetime time.Duration // a connection is closed this long after it opened
	ConnMaxIdleTime time.Duration // an idle connection is closed after this
}

// DefaultPool is the pool of a dialect when nothing is configured. Postgres
// gets 16 connections, so a few nodes fit the server's default
// max_connections of 100, recycled every 30 minutes (a fail-over is picked
// up); SQLite has one writer at a time and gains nothing from more than a
// handful of readers, and its connections never go stale (0: no limit).
func DefaultPool(d Dialect) Pool {
	if d == Postgres {
		return Pool{MaxConns: 16, MaxIdleConns: 16, ConnMaxLifetime: 30 * time.Minute, ConnMaxIdleTime: 5 * time.Minute}
	}
	return Pool{MaxConns: 8, MaxIdleConns: 8}
}

// withDefaults fills the zero fields of p from the dialect's defaults.
func (p Pool) withDefaults(d Dialect) Pool {
	def := DefaultPool(d)
	if p.MaxConns <= 0 {
		p.MaxConns = def.MaxConns
	}
	if p.MaxIdleConns <= 0 || p.MaxIdleConns > p.MaxConns {
		p.MaxIdleConns = p.MaxConns
	}
	if p.ConnMaxLifetime <= 0 {
		p.ConnMaxLifetime = def.ConnMaxLifetime
	}
	if p.ConnMaxIdleTime <= 0 {
		p.ConnMaxIdleTime = def.ConnMaxIdleTime
	}
	return p
}

func (p Pool) apply(db *sqlx.DB) {
	db.SetMaxOpenConns(p.MaxConns)
	db.SetMaxIdleConns(p.MaxIdleConns)
	db.SetConnMaxLifetime(p.ConnMaxLifetime)
	db.SetConnMaxIdleTime(p.ConnMaxIdleTime)
}

// DialectOf tells which database a TRAWL_DATABASE_URL selects.
func DialectOf(databaseURL string) Dialect {
	dsn := strings.TrimSpace(databaseURL)
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		return Postgres
	}
	return SQLite
}

// SQLitePath is where the embedded store lives inside a data dir.
func SQLitePath(dataDir string) string { return filepath.Join(dataDir, "trawl.db") }

// SQLiteFile is the file an SQLite database URL names ("sqlite:///x.db",
// "sqlite:x.db" or a path); empty when it names none (the data directory's).
func SQLiteFile(dsn string) string {
	return strings.TrimPrefix(strings.TrimPrefix(dsn, "sqlite://"), "sqlite:")
}

// Open connects and applies the embedded migrations.
func Open(ctx context.Context, o Options) (*Store, error) {
	s, err := Connect(o)
	if err != nil {
		return nil, err
	}
	if err := s.Migrate(ctx); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// Connect opens the database without migrating.
func Connect(o Options) (*Store, error) {
	timeout := o.QueryTimeout
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	dsn := strings.TrimSpace(o.DatabaseURL)
	switch DialectOf(dsn) {
	case Postgres:
		db, err := sqlx.Open("postgres", dsn)
		if err != nil {
			return nil, fmt.Errorf("open postgres: %w", err)
		}
		o.Pool.withDefaults(Postgres).apply(db)
		s := &Store{db: db, dialect: Postgres, queryTimeout: timeout}
		s.eng = &postgresEngine{s: s}
		return s, nil
	default:
		path := SQLiteFile(dsn)
		if path == "" {
			dir := o.DataDir
			if dir == "" {
				dir = "trawl-data"
			}
			if err := os.MkdirAll(dir, 0o700); err != nil {
				return nil, fmt.Errorf("create data dir: %w", err)
			}
			path = SQLitePath(dir)
		}
		// WAL lets readers run beside the one writer; every transaction
		// begins IMMEDIATE so the credit rules get an exclusive, consistent
		// view (the SQLite counterpart of SELECT ... FOR UPDATE); the busy
		// timeout makes other processes (admin commands) wait, not fail, for
		// as long as a statement may take. The pool only reads
		// (query_only): every write goes through the writer.
		q := url.Values{}
		q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", timeout.Milliseconds()))
		q.Add("_pragma", "journal_mode(WAL)")
		q.Add("_pragma", "synchronous(NORMAL)")
		q.Add("_pragma", "foreign_keys(1)")
		q.Set("_txlock", "immediate")
		dsn := "file:" + path + "?" + q.Encode()
		db, err := sqlx.Open("sqlite", dsn+"&_pragma=query_only(1)")
		if err != nil {
			return nil, fmt.Errorf("open sqlite: %w", err)
		}
		o.Pool.withDefaults(SQLite).apply(db)
		s := &Store{db: db, dialect: SQLite, queryTimeout: timeout}
		e, err := openSQLite(s, dsn)
		if err != nil {
			db.Close()
			return nil, fmt.Errorf("open sqlite: %w", err)
		}
		s.eng = e
		return s, nil
	}
}

// Dialect reports the database in use.
func (s *Store) Dialect() Dialect { return s.dialect }

// DB exposes the handle for health checks and tests.
func (s *Store) DB() *sqlx.DB { return s.db }

// Close closes the database.
func (s *Store) Close() error {
	s.closeStatements()
	_ = s.eng.close()
	return s.db.Close()
}

// Ping checks the database answers (readiness).
func (s *Store) Ping(ctx context.Context) error {
	pctx, cancel := s.bounded(ctx, time.Time{})
	defer cancel()
	return fail(ctx, "sqlstore.Ping", s.db.PingContext(pctx))
}

// Migrate applies the embedded migrations of the store's dialect.
func (s *Store) Migrate(ctx context.Context) error {
	sub, err := fs.Sub(migrations, "migrations/"+string(s.dialect))
	if err != nil {
		return err
	}
	// On SQLite on the writer's handle, its connection handed back for the
	// run.
	return s.eng.migrate(ctx, func(d goose.Dialect, db *sql.DB) error {
		// A database that cannot be reached is not a failed migration: say so.
		pctx, cancel := s.bounded(ctx, time.Time{})
		err := db.PingContext(pctx)
		cancel()
		if err != nil {
			return fmt.Errorf("cannot open the database: %w", err)
		}
		p, err := goose.NewProvider(d, db, sub)
		if err != nil {
			return fmt.Errorf("migrations: %w", err)
		}
		if _, err := p.Up(ctx); err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
		return nil
	})
}

// execer is what both *sqlx.DB and *sqlx.Tx offer: queries run the same
// inside or outside a transaction.
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	GetContext(ctx context.Context, dest any, query string, args ...any) error
	SelectContext(ctx context.Context, dest any, query string, args ...any) error
}

// bounded limits a statement (or a transaction) to the query timeout, or,
// given a deadline (until), to it: the one bound of the store, applied by
// its execers (see the package's doc), not by the methods that use them.
// When it is this bound that runs out, the context's cause says so.
func (s *Store) bounded(ctx context.Context, until time.Time) (context.Context, context.CancelFunc) {
	if until.IsZero() {
		return context.WithTimeoutCause(ctx, s.queryTimeout, errQueryTimeout)
	}
	return context.WithDeadlineCause(ctx, until, errQueryTimeout)
}

// keyed is the context of a statement that reads or writes a few rows by
// key, on the hot path of a request (authentication, the credit view, the
// credit status). On PostgreSQL it is bounded, as every statement. On
// SQLite it is detached from ctx's cancellation (sqliteengine.Keyed).
func (s *Store) keyed(ctx context.Context) (context.Context, context.CancelFunc) {
	return s.eng.keyed(ctx)
}

// inTx runs fn in a transaction, committing on nil and rolling back otherwise
// (and on panic). The transaction (on SQLite the wait for the writer
// included) is bounded by the query timeout, and each statement run through
// tx by the transaction's deadline. On SQLite the transaction is the
// writer's, as every write of the store there.
func (s *Store) inTx(ctx context.Context, fn func(tx execer) error) error {
	return s.eng.inTx(ctx, fn)
}

// q rebinds ? placeholders for the dialect.
func (s *Store) q(query string) string { return s.eng.q(query) }

func isUnique(err error) bool {
	var pe *pq.Error
	if errors.As(err, &pe) {
		return pe.Code == "23505"
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		return se.Code() == sqlite3.SQLITE_CONSTRAINT_UNIQUE || se.Code() == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY
	}
	return false
}

func notFound(ctx context.Context, op, what string, err error) error {
	if errors.Is(err, sql.ErrNoRows) {
		return failure.E(op, failure.NotFound, what+" not found")
	}
	return fail(ctx, op, err)
}

func ms(t time.Time) int64 { return t.UnixMilli() }

func fromMS(v int64) time.Time { return time.UnixMilli(v).UTC() }

func msPtr(t *time.Time) sql.NullInt64 {
	if t == nil {
		return sql.NullInt64{}
	}
	return sql.NullInt64{Int64: t.UnixMilli(), Valid: true}
}

func timePtr(v sql.NullInt64) *time.Time {
	if !v.Valid {
		return nil
	}
	t := fromMS(v.Int64)
	return &t
}
