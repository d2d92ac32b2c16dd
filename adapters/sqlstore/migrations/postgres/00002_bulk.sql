-- +goose Up
ALTER TABLE accounts ADD COLUMN webhook_secret TEXT NOT NULL DEFAULT '';
ALTER TABLE transactions ADD COLUMN charge_key TEXT;
CREATE UNIQUE INDEX transactions_charge_key ON transactions(account_id, charge_key);

CREATE TABLE bulk_jobs (
    id             TEXT    PRIMARY KEY,
    account_id     BIGINT  NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    token_id       BIGINT  NOT NULL,
    status         TEXT    NOT NULL,
    url_source     TEXT    NOT NULL,
    sitemap        TEXT    NOT NULL DEFAULT '',
    email          BOOLEAN NOT NULL,
    callback_url   TEXT    NOT NULL DEFAULT '',
    sync           BOOLEAN NOT NULL DEFAULT FALSE,
    hold_id        TEXT    NOT NULL DEFAULT '',
    urls_count     INTEGER NOT NULL,
    request_id     TEXT    NOT NULL DEFAULT '',
    error          TEXT    NOT NULL DEFAULT '',
    archive_key    TEXT    NOT NULL DEFAULT '',
    lease_owner    TEXT    NOT NULL DEFAULT '',
    lease_until    BIGINT  NOT NULL DEFAULT 0,
    queued_at      BIGINT  NOT NULL,
    started_at     BIGINT,
    completed_at   BIGINT,
    failed_at      BIGINT
);
CREATE INDEX bulk_jobs_queue ON bulk_jobs(status, lease_until, queued_at);
CREATE INDEX bulk_jobs_account ON bulk_jobs(account_id, queued_at);

CREATE TABLE bulk_job_urls (
    job_id      TEXT    NOT NULL REFERENCES bulk_jobs(id) ON DELETE CASCADE,
    idx         INTEGER NOT NULL,
    url         TEXT    NOT NULL,
    status      TEXT    NOT NULL DEFAULT 'pending',
    status_code INTEGER NOT NULL DEFAULT 0,
    error       TEXT    NOT NULL DEFAULT '',
    content     TEXT    NOT NULL DEFAULT '',
    finished_at BIGINT,
    PRIMARY KEY (job_id, idx)
);

CREATE TABLE delivery_attempts (
    id          BIGSERIAL PRIMARY KEY,
    job_id      TEXT    NOT NULL REFERENCES bulk_jobs(id) ON DELETE CASCADE,
    channel     TEXT    NOT NULL,
    attempt     INTEGER NOT NULL,
    target      TEXT    NOT NULL,
    status_code INTEGER NOT NULL DEFAULT 0,
    error       TEXT    NOT NULL DEFAULT '',
    duration_ms BIGINT  NOT NULL DEFAULT 0,
    at          BIGINT  NOT NULL
);
CREATE INDEX delivery_attempts_job ON delivery_attempts(job_id, id);

-- +goose Down
DROP TABLE delivery_attempts;
DROP TABLE bulk_job_urls;
DROP TABLE bulk_jobs;
DROP INDEX transactions_charge_key;
ALTER TABLE transactions DROP COLUMN charge_key;
ALTER TABLE accounts DROP COLUMN webhook_secret;
