-- +goose Up
-- Monitors: pages (a URL list as JSON, or a crawl body as JSON) checked on
-- a cron schedule. next_run_at is what every node compares and sets to
-- take a scheduled run, so each run yields one check.
CREATE TABLE monitors (
    id            TEXT    PRIMARY KEY,
    account_id    BIGINT  NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    name          TEXT    NOT NULL DEFAULT '',
    urls          TEXT    NOT NULL DEFAULT '',
    crawl         TEXT    NOT NULL DEFAULT '',
    schedule      TEXT    NOT NULL,
    callback_url  TEXT    NOT NULL DEFAULT '',
    email         BOOLEAN NOT NULL DEFAULT FALSE,
    changes_only  BOOLEAN NOT NULL DEFAULT TRUE,
    status        TEXT    NOT NULL,
    paused_reason TEXT    NOT NULL DEFAULT '',
    next_run_at   BIGINT  NOT NULL,
    created_at    BIGINT  NOT NULL,
    updated_at    BIGINT  NOT NULL
);
CREATE INDEX monitors_account ON monitors (account_id, created_at);
CREATE INDEX monitors_due ON monitors (status, next_run_at);

-- One row per check; its id is its job's on the bulk queue.
CREATE TABLE monitor_checks (
    id           TEXT    PRIMARY KEY,
    monitor_id   TEXT    NOT NULL REFERENCES monitors(id) ON DELETE CASCADE,
    account_id   BIGINT  NOT NULL,
    scheduled_at BIGINT  NOT NULL,
    status       TEXT    NOT NULL,
    hold_id      TEXT    NOT NULL DEFAULT '',
    started_at   BIGINT,
    finished_at  BIGINT,
    pages        INTEGER NOT NULL DEFAULT 0,
    changed      INTEGER NOT NULL DEFAULT 0,
    credits      BIGINT  NOT NULL DEFAULT 0,
    error        TEXT    NOT NULL DEFAULT '',
    delivered    BOOLEAN NOT NULL DEFAULT FALSE
);
CREATE INDEX monitor_checks_monitor ON monitor_checks (monitor_id, scheduled_at);

-- A job's snapshot keeps the one it was compared with, so a job resumed
-- after its node died compares a page it read again with the same one.
ALTER TABLE page_snapshots ADD COLUMN writer TEXT NOT NULL DEFAULT '';
ALTER TABLE page_snapshots ADD COLUMN prev_markdown TEXT NOT NULL DEFAULT '';
ALTER TABLE page_snapshots ADD COLUMN prev_taken_at BIGINT NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE page_snapshots DROP COLUMN prev_taken_at;
ALTER TABLE page_snapshots DROP COLUMN prev_markdown;
ALTER TABLE page_snapshots DROP COLUMN writer;
DROP TABLE monitor_checks;
DROP TABLE monitors;
