-- +goose Up
-- The page cache's index: one row per kept response, its body in the blob
-- store under body_key. Eviction reads the rows by last use.
CREATE TABLE page_cache (
    cache_key     TEXT    PRIMARY KEY,
    url           TEXT    NOT NULL,
    final_url     TEXT    NOT NULL,
    engine        TEXT    NOT NULL,
    status_code   INTEGER NOT NULL,
    content_type  TEXT    NOT NULL,
    charset       TEXT    NOT NULL,
    etag          TEXT    NOT NULL DEFAULT '',
    last_modified TEXT    NOT NULL DEFAULT '',
    body_key      TEXT    NOT NULL,
    size          BIGINT  NOT NULL,
    stored_at     BIGINT  NOT NULL,
    used_at       BIGINT  NOT NULL
);
CREATE INDEX page_cache_used ON page_cache (used_at, cache_key);

-- A bulk job's pages are read with the max_age and store it was given.
ALTER TABLE bulk_jobs ADD COLUMN cache_max_age BIGINT NOT NULL DEFAULT 0;
ALTER TABLE bulk_jobs ADD COLUMN cache_no_store BOOLEAN NOT NULL DEFAULT FALSE;

-- +goose Down
ALTER TABLE bulk_jobs DROP COLUMN cache_no_store;
ALTER TABLE bulk_jobs DROP COLUMN cache_max_age;
DROP TABLE page_cache;
