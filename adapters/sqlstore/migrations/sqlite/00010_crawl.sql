-- +goose Up
-- A crawl is a job of the bulk queue (kind 'crawl'), claimed and leased as
-- every job is; its request and its frontier live beside it.
ALTER TABLE bulk_jobs ADD COLUMN kind TEXT NOT NULL DEFAULT 'bulk';

CREATE TABLE crawls (
    id               TEXT    PRIMARY KEY REFERENCES bulk_jobs(id) ON DELETE CASCADE,
    url              TEXT    NOT NULL,
    page_limit       INTEGER NOT NULL,
    max_depth        INTEGER NOT NULL,
    params           TEXT    NOT NULL DEFAULT '',
    seeded           BOOLEAN NOT NULL DEFAULT FALSE,
    cancel_requested BOOLEAN NOT NULL DEFAULT FALSE,
    finished_seq     BIGINT  NOT NULL DEFAULT 0
);

-- The frontier: one row per distinct URL (key) of a crawl.
CREATE TABLE crawl_urls (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    crawl_id    TEXT    NOT NULL REFERENCES crawls(id) ON DELETE CASCADE,
    url_key     TEXT    NOT NULL,
    url         TEXT    NOT NULL,
    host        TEXT    NOT NULL,
    depth       INTEGER NOT NULL,
    parent      TEXT    NOT NULL DEFAULT '',
    state       TEXT    NOT NULL,
    reason      TEXT    NOT NULL DEFAULT '',
    status_code INTEGER NOT NULL DEFAULT 0,
    error       TEXT    NOT NULL DEFAULT '',
    content     TEXT    NOT NULL DEFAULT '',
    engine      TEXT    NOT NULL DEFAULT '',
    attempts    INTEGER NOT NULL DEFAULT 0,
    not_before  BIGINT  NOT NULL DEFAULT 0,
    lease_until BIGINT  NOT NULL DEFAULT 0,
    seq         BIGINT  NOT NULL DEFAULT 0,
    finished_at BIGINT
);
CREATE UNIQUE INDEX crawl_urls_key ON crawl_urls(crawl_id, url_key);
CREATE INDEX crawl_urls_claim ON crawl_urls(crawl_id, state, depth, id);
CREATE INDEX crawl_urls_host ON crawl_urls(crawl_id, host);
CREATE INDEX crawl_urls_seq ON crawl_urls(crawl_id, seq);

-- robots.txt as last fetched, shared by every node.
CREATE TABLE robots_txt (
    origin      TEXT    PRIMARY KEY,
    status_code INTEGER NOT NULL,
    body        BLOB,
    fetched_at  BIGINT  NOT NULL,
    expires_at  BIGINT  NOT NULL
);

-- Politeness per host across nodes: the next time a request may start,
-- and the requests in flight, each leased.
CREATE TABLE crawl_hosts (
    host       TEXT   PRIMARY KEY,
    next_start BIGINT NOT NULL DEFAULT 0
);
CREATE TABLE crawl_host_slots (
    token       TEXT   PRIMARY KEY,
    host        TEXT   NOT NULL,
    lease_until BIGINT NOT NULL
);
CREATE INDEX crawl_host_slots_host ON crawl_host_slots(host, lease_until);

-- +goose Down
DROP TABLE crawl_host_slots;
DROP TABLE crawl_hosts;
DROP TABLE robots_txt;
DROP TABLE crawl_urls;
DROP TABLE crawls;
ALTER TABLE bulk_jobs DROP COLUMN kind;
