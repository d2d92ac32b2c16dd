-- +goose Up
-- The shared per-minute limiter for deployments on PostgreSQL without Redis:
-- one row per account and endpoint group, holding the times (microseconds)
-- of the requests counted in its sliding window. Unlogged: a window is a
-- minute of state, not worth the write-ahead log; after a crash or a
-- fail-over the windows start empty. The fill factor leaves room for the
-- row's next version on its page (every decision rewrites it).
CREATE UNLOGGED TABLE rate_windows (
    key        TEXT     PRIMARY KEY,
    hits       BIGINT[] NOT NULL,
    allowed    BOOLEAN  NOT NULL,
    expires_us BIGINT   NOT NULL
) WITH (fillfactor = 50);

-- +goose Down
DROP TABLE rate_windows;
