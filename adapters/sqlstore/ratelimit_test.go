package sqlstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/trawlhq/trawl/adapters/sqlstore"
	"github.com/trawlhq/trawl/ports"
	"github.com/trawlhq/trawl/testkit"
	"github.com/trawlhq/trawl/testkit/pgtest"
	"github.com/trawlhq/trawl/testkit/ratelimittest"
)

// openPostgresLimiter gives each node its own store (its own pool) over one
// fresh database, as separate processes would have.
func openPostgresLimiter(t *testing.T, clock ports.Clock) ratelimittest.Nodes {
	dsn := pgtest.NewDatabase(t)
	return func() ports.RateLimiter {
		s, err := sqlstore.Open(context.Background(), sqlstore.Options{DatabaseURL: dsn})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		l, err := sqlstore.NewRateLimiter(s, clock)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
}

func TestRateLimiterContractPostgres(t *testing.T) {
	ratelimittest.Run(t, openPostgresLimiter)
}

func TestRateLimiterNeedsPostgres(t *testing.T) {
	s, err := sqlstore.Open(context.Background(), sqlstore.Options{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := sqlstore.NewRateLimiter(s, testkit.NewClock(time.Now())); err == nil {
		t.Fatal("a SQLite store was accepted")
	}
}

// Rows of keys idle for a window are deleted as decisions go by, so the
// table holds the keys of the last minute only.
func TestRateLimiterSweepsIdleKeys(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	s, err := sqlstore.Open(context.Background(), sqlstore.Options{DatabaseURL: dsn})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	clock := testkit.NewClock(time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC))
	l, _ := sqlstore.NewRateLimiter(s, clock)
	ctx := context.Background()
	if _, err := l.Allow(ctx, "idle", 5, time.Minute); err != nil {
		t.Fatal(err)
	}
	clock.Advance(2 * time.Minute)
	for range 4096 {
		if _, err := l.Allow(ctx, "busy", 1, time.Minute); err != nil {
			t.Fatal(err)
		}
	}
	var n int
	if err := s.DB().GetContext(ctx, &n, `SELECT count(*) FROM rate_windows WHERE key = 'idle'`); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Fatal("the idle key's row is still there")
	}
}

func BenchmarkRateLimiterPostgres(b *testing.B) {
	s, err := sqlstore.Open(context.Background(), sqlstore.Options{DatabaseURL: pgtest.NewDatabase(b)})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	l, _ := sqlstore.NewRateLimiter(s, testkit.NewClock(time.Now()))
	ratelimittest.Bench(b, l)
}
