package sqlstore

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/lib/pq"

	"github.com/trawlhq/trawl/ports"
)

// RateLimiter is the shared per-minute limiter on PostgreSQL, for fleets
// without Redis: the exact sliding-window log of the in-memory limiter, one
// row per key. A decision is one statement, an upsert: PostgreSQL locks the
// key's row and evaluates the update against its latest committed version,
// so requests racing on several nodes are counted one after the other and
// never more than the limit get through.
type RateLimiter struct {
	store *Store
	clock ports.Clock
	calls atomic.Uint64
}

var _ ports.RateLimiter = (*RateLimiter)(nil)

// NewRateLimiter builds the limiter over a PostgreSQL store (migrated).
func NewRateLimiter(s *Store, clock ports.Clock) (*RateLimiter, error) {
	if s == nil || clock == nil {
		return nil, errors.New("sqlstore.NewRateLimiter: store and clock are required")
	}
	if s.dialect != Postgres {
		return nil, errors.New("sqlstore.NewRateLimiter: the shared limiter needs PostgreSQL")
	}
	return &RateLimiter{store: s, clock: clock}, nil
}

// allowQuery: $1 key, $2 now, $3 the cut (entries at or before it have left
// the window), $4 the limit, $5 when the row holds nothing that counts any
// more (all in microseconds). Every SET expression sees the row as it was
// before this statement.
const allowQuery = `
INSERT INTO rate_windows AS w (key, hits, allowed, expires_us)
VALUES ($1, CASE WHEN $4::int > 0 THEN ARRAY[$2::bigint] ELSE '{}'::bigint[] END, $4::int > 0, $5::bigint)
ON CONFLICT (key) DO UPDATE SET
    hits = (SELECT CASE WHEN count(*) < $4::int
                        THEN coalesce(array_agg(h ORDER BY h), '{}') || $2::bigint
                        ELSE coalesce(array_agg(h ORDER BY h), '{}') END
              FROM unnest(w.hits) AS h WHERE h > $3::bigint),
    allowed = (SELECT count(*) < $4::int FROM unnest(w.hits) AS h WHERE h > $3::bigint),
    expires_us = CASE WHEN (SELECT count(*) < $4::int FROM unnest(w.hits) AS h WHERE h > $3::bigint)
                      THEN $5::bigint ELSE w.expires_us END
RETURNING hits, allowed`

// rateSweepEvery: how many decisions between deletions of rows whose
// window is empty, so the table tracks the keys active in the last window.
const rateSweepEvery = 4096

// Allow counts a request for key if fewer than limit were counted in the
// last window, across every node on the database.
func (l *RateLimiter) Allow(ctx context.Context, key string, limit int, window time.Duration) (ports.RateDecision, error) {
	now := l.clock.Now()
	nowUs := now.UnixMicro()
	if l.calls.Add(1)%rateSweepEvery == 0 {
		if _, err := l.store.x().ExecContext(ctx, `DELETE FROM rate_windows WHERE expires_us <= $1`, nowUs); err != nil {
			return ports.RateDecision{}, fail(ctx, "sqlstore.RateLimiter", err)
		}
	}
	var hits pq.Int64Array
	var allowed bool
	err := l.store.x().scanRow(ctx, allowQuery, []any{key, nowUs, nowUs - window.Microseconds(), limit, nowUs + window.Microseconds()}, &hits, &allowed)
	if err != nil {
		return ports.RateDecision{}, fail(ctx, "sqlstore.RateLimiter", err)
	}
	d := ports.RateDecision{Allowed: allowed, Limit: limit, Used: len(hits), Remaining: max(0, limit-len(hits))}
	if len(hits) == 0 {
		return d, nil
	}
	if !allowed {
		d.RetryAfter = time.UnixMicro(hits[0]).Add(window).Sub(now)
	}
	d.Reset = time.UnixMicro(hits[len(hits)-1]).Add(window).Sub(now)
	return d, nil
}
