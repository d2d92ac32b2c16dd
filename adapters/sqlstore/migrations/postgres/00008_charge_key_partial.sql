-- +goose Up
-- Only a bulk job's charges carry a charge key; the others have no entry
-- in its index now, so writing such a charge (every other billed call)
-- maintains one index fewer. A NULL key never conflicted, and a lookup by
-- key (charge_key = $n implies it is not null) uses the index as before.
DROP INDEX transactions_charge_key;
CREATE UNIQUE INDEX transactions_charge_key ON transactions(account_id, charge_key) WHERE charge_key IS NOT NULL;

-- +goose Down
DROP INDEX transactions_charge_key;
CREATE UNIQUE INDEX transactions_charge_key ON transactions(account_id, charge_key);
