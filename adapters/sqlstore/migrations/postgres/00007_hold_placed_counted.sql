-- +goose Up
-- A hold can be placed by one statement that counts it on the account row
-- itself (the row's UPDATE re-checks the balance on the locked row): such a
-- hold is marked counted, and the trigger counts only the holds inserted
-- unmarked. A node of the previous version inserts them unmarked, so in a
-- rolling upgrade (this migration first, then the new nodes) every hold is
-- counted once. Changes and deletions are counted by the trigger as before.
ALTER TABLE holds ADD COLUMN counted BOOLEAN NOT NULL DEFAULT false;
DROP TRIGGER holds_count ON holds;
CREATE TRIGGER holds_count AFTER UPDATE OR DELETE ON holds
    FOR EACH ROW EXECUTE FUNCTION holds_count();
CREATE TRIGGER holds_count_insert AFTER INSERT ON holds
    FOR EACH ROW WHEN (NOT NEW.counted) EXECUTE FUNCTION holds_count();

-- +goose Down
DROP TRIGGER holds_count_insert ON holds;
DROP TRIGGER holds_count ON holds;
CREATE TRIGGER holds_count AFTER INSERT OR UPDATE OR DELETE ON holds
    FOR EACH ROW EXECUTE FUNCTION holds_count();
ALTER TABLE holds DROP COLUMN counted;
