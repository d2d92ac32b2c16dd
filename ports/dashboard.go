package ports

import (
	"context"
	"time"
)

// EmailPurpose is what a one-time email link is for.
type EmailPurpose string

// Purposes of one-time email links.
const (
	EmailVerify EmailPurpose = "verify"
	EmailReset  EmailPurpose = "reset"
	// EmailDevice is not mailed: it is the device cookie of a browser that
	// signed in to the account, kept like a link so it can be checked.
	EmailDevice EmailPurpose = "device"
)

// Session is a browser signed in to the dashboard. The store keeps only the
// hex SHA-256 of the cookie value, so a copy of the store signs no one in.
type Session struct {
	Hash      string
	AccountID int64
	CreatedAt time.Time
	ExpiresAt time.Time
}

// EmailToken is a one-time link sent by email (address verification or
// password reset); like sessions, only its hash is kept.
type EmailToken struct {
	Hash      string
	AccountID int64
	Purpose   EmailPurpose
	CreatedAt time.Time
	ExpiresAt time.Time
}

// CredentialStore keeps what signs a person in to the dashboard: password
// hashes, sessions and one-time email links.
type CredentialStore interface {
	// SetPasswordHash sets (or replaces) the account's password hash.
	SetPasswordHash(ctx context.Context, accountID int64, hash string) error
	// PasswordHash returns the account's password hash; failure.NotFound when it has none.
	PasswordHash(ctx context.Context, accountID int64) (string, error)
	// MarkEmailVerified sets email_verified_at unless it is already set.
	MarkEmailVerified(ctx context.Context, accountID int64, at time.Time) error

	CreateSession(ctx context.Context, s Session) error
	// Session finds a session that has not expired at now; failure.NotFound otherwise.
	Session(ctx context.Context, hash string, now time.Time) (Session, error)
	DeleteSession(ctx context.Context, hash string) error
	// DeleteAccountSessions signs every browser of the account out.
	DeleteAccountSessions(ctx context.Context, accountID int64) error

	PutEmailToken(ctx context.Context, t EmailToken) error
	// UseEmailToken consumes a live token of the purpose, exactly once:
	// failure.NotFound when it is unknown, used, expired or of another purpose.
	UseEmailToken(ctx context.Context, hash string, purpose EmailPurpose, now time.Time) (EmailToken, error)
}

// PasswordHasher hashes passwords with a slow, salted function.
type PasswordHasher interface {
	Hash(password string) (string, error)
	// Verify reports whether password matches hash.
	Verify(hash, password string) (bool, error)
}

// JobSummary is a bulk job with its URL and delivery counts, for listings.
type JobSummary struct {
	Job        BulkJob
	Succeeded  int
	Failed     int
	Deliveries int
}

// JobLister pages through an account's bulk jobs.
type JobLister interface {
	// ListJobs returns an account's jobs newest first, and their total count.
	ListJobs(ctx context.Context, accountID int64, limit, offset int) ([]JobSummary, int, error)
}
