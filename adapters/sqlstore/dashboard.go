package sqlstore

import (
	"context"
	"time"

	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/ports"
)

var _ ports.CredentialStore = (*Store)(nil)

// SetPasswordHash sets or replaces an account's password hash.
func (s *Store) SetPasswordHash(ctx context.Context, accountID int64, hash string) error {
	const op = "sqlstore.SetPasswordHash"
	_, err := s.w().ExecContext(ctx, s.q(`INSERT INTO account_passwords (account_id, hash, updated_at) VALUES (?, ?, ?)
		ON CONFLICT (account_id) DO UPDATE SET hash = excluded.hash, updated_at = excluded.updated_at`),
		accountID, hash, ms(time.Now()))
	return fail(ctx, op, err)
}

// PasswordHash returns an account's password hash.
func (s *Store) PasswordHash(ctx context.Context, accountID int64) (string, error) {
	var h string
	err := s.x().GetContext(ctx, &h, s.q(`SELECT hash FROM account_passwords WHERE account_id = ?`), accountID)
	if err != nil {
		return "", notFound(ctx, "sqlstore.PasswordHash", "password", err)
	}
	return h, nil
}

// MarkEmailVerified sets email_verified_at once.
func (s *Store) MarkEmailVerified(ctx context.Context, accountID int64, at time.Time) error {
	_, err := s.w().ExecContext(ctx, s.q(`UPDATE accounts SET email_verified_at = ?, updated_at = ? WHERE id = ? AND email_verified_at IS NULL`),
		ms(at), ms(at), accountID)
	return fail(ctx, "sqlstore.MarkEmailVerified", err)
}

// CreateSession stores a session, and drops the account's sessions that
// expired by its creation, so the table does not grow without end.
func (s *Store) CreateSession(ctx context.Context, x ports.Session) error {
	err := s.inTx(ctx, func(tx execer) error {
		if _, err := tx.ExecContext(ctx, s.q(`DELETE FROM sessions WHERE account_id = ? AND expires_at <= ?`), x.AccountID, ms(x.CreatedAt)); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, s.q(`INSERT INTO sessions (hash, account_id, created_at, expires_at) VALUES (?, ?, ?, ?)`),
			x.Hash, x.AccountID, ms(x.CreatedAt), ms(x.ExpiresAt))
		return err
	})
	return fail(ctx, "sqlstore.CreateSession", err)
}

type signInRow struct {
	Hash      string `db:"hash"`
	AccountID int64  `db:"account_id"`
	CreatedAt int64  `db:"created_at"`
	ExpiresAt int64  `db:"expires_at"`
}

// Session finds a live session.
func (s *Store) Session(ctx context.Context, hash string, now time.Time) (ports.Session, error) {
	var r signInRow
	err := s.x().GetContext(ctx, &r, s.q(`SELECT hash, account_id, created_at, expires_at FROM sessions WHERE hash = ? AND expires_at > ?`), hash, ms(now))
	if err != nil {
		return ports.Session{}, notFound(ctx, "sqlstore.Session", "session", err)
	}
	return ports.Session{Hash: r.Hash, AccountID: r.AccountID, CreatedAt: fromMS(r.CreatedAt), ExpiresAt: fromMS(r.ExpiresAt)}, nil
}

// DeleteSession ends a session (no error when it is already gone).
func (s *Store) DeleteSession(ctx context.Context, hash string) error {
	_, err := s.w().ExecContext(ctx, s.q(`DELETE FROM sessions WHERE hash = ?`), hash)
	return fail(ctx, "sqlstore.DeleteSession", err)
}

// DeleteAccountSessions ends every session of an account.
func (s *Store) DeleteAccountSessions(ctx context.Context, accountID int64) error {
	_, err := s.w().ExecContext(ctx, s.q(`DELETE FROM sessions WHERE account_id = ?`), accountID)
	return fail(ctx, "sqlstore.DeleteAccountSessions", err)
}

// PutEmailToken stores a one-time email link, and drops the account's
// links that expired by its creation.
func (s *Store) PutEmailToken(ctx context.Context, t ports.EmailToken) error {
	err := s.inTx(ctx, func(tx execer) error {
		if _, err := tx.ExecContext(ctx, s.q(`DELETE FROM email_tokens WHERE account_id = ? AND expires_at <= ?`), t.AccountID, ms(t.CreatedAt)); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, s.q(`INSERT INTO email_tokens (hash, account_id, purpose, created_at, expires_at) VALUES (?, ?, ?, ?, ?)`),
			t.Hash, t.AccountID, t.Purpose, ms(t.CreatedAt), ms(t.ExpiresAt))
		return err
	})
	return fail(ctx, "sqlstore.PutEmailToken", err)
}

type emailTokenRow struct {
	AccountID int64 `db:"account_id"`
	CreatedAt int64 `db:"created_at"`
	ExpiresAt int64 `db:"expires_at"`
}

// UseEmailToken deletes a live token and returns it: one statement, so two
// concurrent uses cannot both succeed.
func (s *Store) UseEmailToken(ctx context.Context, hash string, purpose ports.EmailPurpose, now time.Time) (ports.EmailToken, error) {
	const op = "sqlstore.UseEmailToken"
	var r emailTokenRow
	err := s.w().GetContext(ctx, &r, s.q(`DELETE FROM email_tokens WHERE hash = ? AND purpose = ? AND expires_at > ?
		RETURNING account_id, created_at, expires_at`), hash, purpose, ms(now))
	if err != nil {
		return ports.EmailToken{}, notFound(ctx, op, "email token", err)
	}
	if r.AccountID == 0 {
		return ports.EmailToken{}, failure.E(op, failure.NotFound, "email token not found")
	}
	return ports.EmailToken{Hash: hash, AccountID: r.AccountID, Purpose: purpose, CreatedAt: fromMS(r.CreatedAt), ExpiresAt: fromMS(r.ExpiresAt)}, nil
}
