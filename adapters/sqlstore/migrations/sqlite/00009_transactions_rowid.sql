-- +goose Up
-- A transaction's id is its rowid, without AUTOINCREMENT: writing a
-- charge no longer reads and updates sqlite_sequence, so its commit writes
-- one page fewer to the WAL. Ids still only grow: a new one is one more
-- than the largest, and transactions are never deleted but with their
-- account.
CREATE TABLE transactions_rowid (
    id            INTEGER PRIMARY KEY,
    account_id    BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    service_type  TEXT   NOT NULL,
    service_name  TEXT   NOT NULL,
    credits       BIGINT NOT NULL,
    balance_after BIGINT NOT NULL CHECK (balance_after >= 0),
    created_at    BIGINT NOT NULL,
    metadata      TEXT   NOT NULL DEFAULT '{}',
    charge_key    TEXT
);
INSERT INTO transactions_rowid (id, account_id, service_type, service_name, credits, balance_after, created_at, metadata, charge_key)
    SELECT id, account_id, service_type, service_name, credits, balance_after, created_at, metadata, charge_key FROM transactions;
DROP TABLE transactions;
ALTER TABLE transactions_rowid RENAME TO transactions;
CREATE INDEX transactions_account ON transactions(account_id, id);
CREATE UNIQUE INDEX transactions_charge_key ON transactions(account_id, charge_key) WHERE charge_key IS NOT NULL;
DELETE FROM sqlite_sequence WHERE name = 'transactions';

-- +goose Down
CREATE TABLE transactions_autoincrement (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id    BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    service_type  TEXT   NOT NULL,
    service_name  TEXT   NOT NULL,
    credits       BIGINT NOT NULL,
    balance_after BIGINT NOT NULL CHECK (balance_after >= 0),
    created_at    BIGINT NOT NULL,
    metadata      TEXT   NOT NULL DEFAULT '{}',
    charge_key    TEXT
);
INSERT INTO transactions_autoincrement (id, account_id, service_type, service_name, credits, balance_after, created_at, metadata, charge_key)
    SELECT id, account_id, service_type, service_name, credits, balance_after, created_at, metadata, charge_key FROM transactions;
DROP TABLE transactions;
ALTER TABLE transactions_autoincrement RENAME TO transactions;
CREATE INDEX transactions_account ON transactions(account_id, id);
CREATE UNIQUE INDEX transactions_charge_key ON transactions(account_id, charge_key) WHERE charge_key IS NOT NULL;
