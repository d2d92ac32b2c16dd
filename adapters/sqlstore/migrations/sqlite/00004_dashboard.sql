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

-- +goose Down
DROP TABLE email_tokens;
DROP TABLE sessions;
DROP TABLE account_passwords;
