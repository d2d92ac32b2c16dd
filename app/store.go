package app

import (
	"context"
	"time"

	"go.uber.org/fx"

	"github.com/trawlhq/trawl/adapters/metrics"
	"github.com/trawlhq/trawl/adapters/sqlstore"
	"github.com/trawlhq/trawl/core/crawl"
	"github.com/trawlhq/trawl/core/service"
	"github.com/trawlhq/trawl/ports"
)

// Store is the opened SQL store as the rest of the app sees it: every store
// port, its health, the limiter it can keep and the gauges it reports. This
// file is the only one of the app that knows the store is SQL.
type Store struct {
	service.Stores
	// Dialect names the database (sqlite or postgres).
	Dialect string
	Ping    func(context.Context) error
	Close   func() error
	// SharedLimiter builds the rate limiter kept in the database
	// (PostgreSQL only).
	SharedLimiter func(ports.Clock) (ports.RateLimiter, error)
	// Observe registers the store's gauges (pool, jobs, holds) with m.
	Observe func(m *metrics.Metrics)
}

// OpenStore opens (and migrates) the configured store.
func OpenStore(ctx context.Context, c Config) (Store, error) {
	if err := CheckDatabaseURL(c.DatabaseURL); err != nil {
		return Store{}, err
	}
	s, err := sqlstore.Open(ctx, c.StoreOptions())
	if err != nil {
		return Store{}, err
	}
	return SQLStore(s), nil
}

// SQLStore puts the SQL store under every store port.
// Crawls' per-host politeness is the store's on PostgreSQL, shared by a
// fleet; SQLite serves one node by construction, whose gate is held in the
// process rather than written twice per page.
func SQLStore(s *sqlstore.Store) Store {
	var hosts ports.HostGate = s
	if s.Dialect() == sqlstore.SQLite {
		hosts = crawl.NewLocalGate()
	}
	return Store{
		Stores: service.Stores{Accounts: s, Tokens: s, Ledger: s, Idempotency: s, Jobs: s, JobList: s, Credentials: s,
			PaymentEvents: s, PlanCheckouts: s, Crawls: s, Robots: s, Hosts: hosts, Cache: s, Snapshots: s, Monitors: s},
		Dialect: string(s.Dialect()), Ping: s.Ping, Close: s.Close,
		SharedLimiter: func(clk ports.Clock) (ports.RateLimiter, error) { return sqlstore.NewRateLimiter(s, clk) },
		Observe:       func(m *metrics.Metrics) { observeStore(m, s) },
	}
}

// observeStore reports the connection pool, the unfinished jobs and the
// open holds.
func observeStore(m *metrics.Metrics, store *sqlstore.Store) {
	m.DB(store.DB().DB, "trawl")
	m.Jobs(func(ctx context.Context) ([]metrics.JobState, error) {
		states, err := store.UnfinishedJobs(ctx)
		out := make([]metrics.JobState, 0, len(states))
		for _, s := range states {
			out = append(out, metrics.JobState{Status: s.Status, Count: s.Count, Oldest: s.Oldest})
		}
		return out, err
	}, store.PendingURLs, time.Now)
	m.Holds(store.OpenHolds, time.Now)
}

// StoreModule provides the SQL store and its ports, closed on stop.
func StoreModule() fx.Option {
	return fx.Module("store",
		fx.Provide(
			func(lc fx.Lifecycle, c Config) (Store, error) {
				s, err := OpenStore(context.Background(), c)
				if err != nil {
					return Store{}, err
				}
				lc.Append(fx.StopHook(s.Close))
				return s, nil
			},
			func(s Store) service.Stores { return s.Stores },
		),
	)
}

// sqliteFileOf is the SQLite file a database URL names; empty for
// PostgreSQL or for the data directory's own file.
func sqliteFileOf(databaseURL string) string {
	if sqlstore.DialectOf(databaseURL) != sqlstore.SQLite {
		return ""
	}
	return sqlstore.SQLiteFile(databaseURL)
}
