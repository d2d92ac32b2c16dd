-- +goose Up
-- The account row counts what its holds reserve (held) and bounds when the
-- first of them expires (holds_expire_from: no hold expires before it; it
-- may be earlier than the first that does). The row lock that serialises a
-- balance then also reads the held amount, with no sum over the holds while
-- the lock is held. A trigger keeps the counter, so every writer of holds
-- (a node of the previous version in a rolling upgrade too) keeps it right.
ALTER TABLE accounts ADD COLUMN held BIGINT NOT NULL DEFAULT 0;
ALTER TABLE accounts ADD COLUMN holds_expire_from BIGINT;
UPDATE accounts SET
    held = (SELECT COALESCE(SUM(amount), 0) FROM holds WHERE holds.account_id = accounts.id),
    holds_expire_from = (SELECT MIN(expires_at) FROM holds WHERE holds.account_id = accounts.id);

-- +goose StatementBegin
CREATE FUNCTION holds_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        UPDATE accounts SET held = held + NEW.amount,
            holds_expire_from = LEAST(COALESCE(holds_expire_from, NEW.expires_at), NEW.expires_at)
        WHERE id = NEW.account_id;
    ELSIF TG_OP = 'DELETE' THEN
        UPDATE accounts SET held = held - OLD.amount WHERE id = OLD.account_id;
    ELSE
        UPDATE accounts SET held = held - OLD.amount WHERE id = OLD.account_id;
        UPDATE accounts SET held = held + NEW.amount,
            holds_expire_from = LEAST(COALESCE(holds_expire_from, NEW.expires_at), NEW.expires_at)
        WHERE id = NEW.account_id;
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER holds_count AFTER INSERT OR UPDATE OR DELETE ON holds
    FOR EACH ROW EXECUTE FUNCTION holds_count();

-- +goose Down
DROP TRIGGER holds_count ON holds;
DROP FUNCTION holds_count();
ALTER TABLE accounts DROP COLUMN holds_expire_from;
ALTER TABLE accounts DROP COLUMN held;
