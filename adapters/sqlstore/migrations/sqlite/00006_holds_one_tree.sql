-- +goose Up
-- Holds are written on every billed call (placed, then dropped), so their
-- table is one b-tree keyed by the account first: a hold written dirties
-- one page instead of three (the row, its id's index and the account's
-- index), and a commit writes that much less to the WAL. Every statement
-- on holds names the account.
CREATE TABLE holds_by_account (
    account_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    id         TEXT   NOT NULL,
    token_id   BIGINT NOT NULL,
    amount     BIGINT NOT NULL CHECK (amount > 0),
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    PRIMARY KEY (account_id, id)
) WITHOUT ROWID;
INSERT INTO holds_by_account (account_id, id, token_id, amount, created_at, expires_at)
    SELECT account_id, id, token_id, amount, created_at, expires_at FROM holds;
DROP TABLE holds;
ALTER TABLE holds_by_account RENAME TO holds;

-- +goose Down
CREATE TABLE holds_by_id (
    id         TEXT   PRIMARY KEY,
    account_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    token_id   BIGINT NOT NULL,
    amount     BIGINT NOT NULL CHECK (amount > 0),
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL
);
INSERT INTO holds_by_id (id, account_id, token_id, amount, created_at, expires_at)
    SELECT id, account_id, token_id, amount, created_at, expires_at FROM holds;
DROP TABLE holds;
ALTER TABLE holds_by_id RENAME TO holds;
CREATE INDEX holds_account ON holds(account_id, expires_at);
