-- +goose Up
CREATE TABLE accounts (
    id                BIGSERIAL PRIMARY KEY,
    name              TEXT    NOT NULL,
    email             TEXT    NOT NULL UNIQUE,
    email_verified_at BIGINT,
    created_at        BIGINT  NOT NULL,
    updated_at        BIGINT  NOT NULL,
    plan              TEXT    NOT NULL DEFAULT '',
    plan_anchor       BIGINT,
    period_start      BIGINT,
    used              BIGINT  NOT NULL DEFAULT 0,
    allowance_used    BIGINT  NOT NULL DEFAULT 0,
    topup             BIGINT  NOT NULL DEFAULT 0 CHECK (topup >= 0)
);

CREATE TABLE tokens (
    id           BIGSERIAL PRIMARY KEY,
    account_id   BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    name         TEXT   NOT NULL,
    hash         TEXT   NOT NULL UNIQUE,
    preview      TEXT   NOT NULL,
    last_used_at BIGINT,
    created_at   BIGINT NOT NULL
);
CREATE INDEX tokens_account ON tokens(account_id);

CREATE TABLE holds (
    id         TEXT   PRIMARY KEY,
    account_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    token_id   BIGINT NOT NULL,
    amount     BIGINT NOT NULL CHECK (amount > 0),
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL
);
CREATE INDEX holds_account ON holds(account_id, expires_at);

CREATE TABLE transactions (
    id            BIGSERIAL PRIMARY KEY,
    account_id    BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    service_type  TEXT   NOT NULL,
    service_name  TEXT   NOT NULL,
    credits       BIGINT NOT NULL,
    balance_after BIGINT NOT NULL CHECK (balance_after >= 0),
    created_at    BIGINT NOT NULL,
    metadata      TEXT   NOT NULL DEFAULT '{}'
);
CREATE INDEX transactions_account ON transactions(account_id, id);

CREATE TABLE checkout_sessions (
    id           TEXT   PRIMARY KEY,
    account_id   BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    credits      BIGINT NOT NULL,
    amount_cents BIGINT NOT NULL,
    currency     TEXT   NOT NULL,
    created_at   BIGINT NOT NULL,
    paid_at      BIGINT
);

CREATE TABLE idempotency_keys (
    account_id   BIGINT  NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    key          TEXT    NOT NULL,
    fingerprint  TEXT    NOT NULL,
    done         BOOLEAN NOT NULL DEFAULT FALSE,
    status       INTEGER NOT NULL DEFAULT 0,
    content_type TEXT    NOT NULL DEFAULT '',
    body         BYTEA,
    created_at   BIGINT  NOT NULL,
    expires_at   BIGINT  NOT NULL,
    PRIMARY KEY (account_id, key)
);

-- +goose Down
DROP TABLE idempotency_keys;
DROP TABLE checkout_sessions;
DROP TABLE transactions;
DROP TABLE holds;
DROP TABLE tokens;
DROP TABLE accounts;
