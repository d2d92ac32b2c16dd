-- +goose Up
-- Change tracking: each account's latest answer per page (comparison
-- form of its URL) and tag, pruned past the retention.
CREATE TABLE page_snapshots (
    account_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    url_key    TEXT   NOT NULL,
    tag        TEXT   NOT NULL DEFAULT '',
    url        TEXT   NOT NULL,
    markdown   TEXT   NOT NULL DEFAULT '',
    data       BYTEA,
    taken_at   BIGINT NOT NULL,
    PRIMARY KEY (account_id, url_key, tag)
);
CREATE INDEX page_snapshots_taken ON page_snapshots (taken_at);

-- A bulk job compares its pages when it was asked to (changes, tag).
ALTER TABLE bulk_jobs ADD COLUMN changes BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE bulk_jobs ADD COLUMN change_tag TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE bulk_jobs DROP COLUMN change_tag;
ALTER TABLE bulk_jobs DROP COLUMN changes;
DROP TABLE page_snapshots;
