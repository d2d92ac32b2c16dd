-- +goose Up
CREATE TABLE account_passwords (
    account_id BIGINT PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,
    hash       TEXT   NOT NULL,
    updated_at BIGINT NOT NULL
);

CREATE TABLE sessions (
    hash       TEXT   PRIMARY KEY,
    account_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL
);
CREATE INDEX sessions_account ON sessions(account_id);

CREATE TABLE email_tokens (
    hash       TEXT   PRIMARY KEY,
    account_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    purpose    TEXT   NOT NULL,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL
);
CREATE INDEX email_tokens_account ON email_tokens(account_id);

CREATE TABLE payment_events (
    provider    TEXT   NOT NULL,
    event_id    TEXT   NOT NULL,
    received_at BIGINT NOT NULL,
    PRIMARY KEY (provider, event_id)
);

CREATE TABLE subscriptions (
    account_id      BIGINT PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,
    provider        TEXT   NOT NULL,
    subscription_id TEXT   NOT NULL,
    plan            TEXT   NOT NULL,
    status          TEXT   NOT NULL,
    event_at        BIGINT NOT NULL
);

CREATE TABLE plan_checkouts (
    id         TEXT   PRIMARY KEY,
    account_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    plan       TEXT   NOT NULL,
    created_at BIGINT NOT NULL,
    paid_at    BIGINT
);

-- +goose Down
DROP TABLE plan_checkouts;
DROP TABLE subscriptions;
DROP TABLE payment_events;
DROP TABLE email_tokens;
DROP TABLE sessions;
DROP TABLE account_passwords;
