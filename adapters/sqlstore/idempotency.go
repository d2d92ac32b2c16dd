package sqlstore

import (
	"context"

	"github.com/trawlhq/trawl/ports"
)

type idemRow struct {
	AccountID   int64  `db:"account_id"`
	Key         string `db:"key"`
	Fingerprint string `db:"fingerprint"`
	Done        bool   `db:"done"`
	Status      int    `db:"status"`
	ContentType string `db:"content_type"`
	Body        []byte `db:"body"`
	CreatedAt   int64  `db:"created_at"`
	ExpiresAt   int64  `db:"expires_at"`
}

// BeginIdempotent claims a key unless a live record holds it.
func (s *Store) BeginIdempotent(ctx context.Context, rec ports.IdempotencyRecord) (ports.IdempotencyRecord, bool, error) {
	const op = "sqlstore.BeginIdempotent"
	var existing ports.IdempotencyRecord
	claimed := false
	err := s.inTx(ctx, func(tx execer) error {
		if _, err := tx.ExecContext(ctx, s.q(`DELETE FROM idempotency_keys WHERE account_id = ? AND key = ? AND expires_at <= ?`),
			rec.AccountID, rec.Key, ms(rec.CreatedAt)); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, s.q(`INSERT INTO idempotency_keys (account_id, key, fingerprint, done, created_at, expires_at)
			VALUES (?, ?, ?, FALSE, ?, ?) ON CONFLICT (account_id, key) DO NOTHING`),
			rec.AccountID, rec.Key, rec.Fingerprint, ms(rec.CreatedAt), ms(rec.ExpiresAt))
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 1 {
			claimed = true
			return nil
		}
		var r idemRow
		if err := tx.GetContext(ctx, &r, s.q(`SELECT account_id, key, fingerprint, done, status, content_type, body, created_at, expires_at
			FROM idempotency_keys WHERE account_id = ? AND key = ?`), rec.AccountID, rec.Key); err != nil {
			return err
		}
		existing = ports.IdempotencyRecord{AccountID: r.AccountID, Key: r.Key, Fingerprint: r.Fingerprint, Done: r.Done,
			Status: r.Status, ContentType: r.ContentType, Body: r.Body, CreatedAt: fromMS(r.CreatedAt), ExpiresAt: fromMS(r.ExpiresAt)}
		return nil
	})
	if err != nil {
		return ports.IdempotencyRecord{}, false, fail(ctx, op, err)
	}
	return existing, claimed, nil
}

// CompleteIdempotent stores a claimed key's response.
func (s *Store) CompleteIdempotent(ctx context.Context, accountID int64, key string, status int, contentType string, body []byte) error {
	_, err := s.w().ExecContext(ctx, s.q(`UPDATE idempotency_keys SET done = TRUE, status = ?, content_type = ?, body = ? WHERE account_id = ? AND key = ?`),
		status, contentType, body, accountID, key)
	return fail(ctx, "sqlstore.CompleteIdempotent", err)
}

// AbandonIdempotent forgets a claimed key that has not completed.
func (s *Store) AbandonIdempotent(ctx context.Context, accountID int64, key string) error {
	_, err := s.w().ExecContext(ctx, s.q(`DELETE FROM idempotency_keys WHERE account_id = ? AND key = ? AND done = FALSE`), accountID, key)
	return fail(ctx, "sqlstore.AbandonIdempotent", err)
}
