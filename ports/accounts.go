package ports

import (
	"context"
	"time"
)

// Account is a customer of Trawl: one credit balance, one plan, several tokens.
type Account struct {
	ID              int64
	Name            string
	Email           string
	Plan            string // "basic", "pro", "business", or "" for no plan
	EmailVerifiedAt *time.Time
	CreatedAt       time.Time
	UpdatedAt       time.Time
}

// Token is an API token record. The secret itself is never stored: only its
// SHA-256 (Hash, hex) and a short Preview.
type Token struct {
	ID         int64
	AccountID  int64
	Name       string
	Hash       string
	Preview    string
	LastUsedAt *time.Time
	CreatedAt  time.Time
}

// AccountStore keeps accounts.
type AccountStore interface {
	// CreateAccount inserts a new account with its credit row; an email already
	// taken is a failure.Conflict.
	CreateAccount(ctx context.Context, a Account) (Account, error)
	AccountByID(ctx context.Context, id int64) (Account, error)
	AccountByEmail(ctx context.Context, email string) (Account, error)
	ListAccounts(ctx context.Context) ([]Account, error)
	CountAccounts(ctx context.Context) (int, error)
	// WebhookSecret returns the account's webhook signing secret, creating
	// it with newSecret when it has none; failure.NotFound for no account.
	WebhookSecret(ctx context.Context, accountID int64, newSecret func() string) (string, error)
	// SetWebhookSecret replaces the account's webhook signing secret.
	SetWebhookSecret(ctx context.Context, accountID int64, secret string) error
}

// TokenStore keeps API tokens.
type TokenStore interface {
	// CreateToken inserts t unless the account already holds maxActive tokens
	// (failure.Conflict); the check and the insert are atomic.
	CreateToken(ctx context.Context, t Token, maxActive int) (Token, error)
	// PrincipalByTokenHash finds a live token and its account in one lookup
	// (authentication runs on every request).
	PrincipalByTokenHash(ctx context.Context, hash string) (Principal, error)
	ListTokens(ctx context.Context, accountID int64) ([]Token, error)
	// DeleteToken revokes a token at once; failure.NotFound if the account has no such token.
	DeleteToken(ctx context.Context, accountID, tokenID int64) error
	// TouchToken records a use of the token.
	TouchToken(ctx context.Context, tokenID int64, at time.Time) error
}

// Principal is who is calling: the account and the token that authenticated
// the request. TokenID 0 means the system itself (operator commands, jobs).
// It holds what authorisation, limits and billing read on every request,
// nothing more, so authentication reads no profile columns; the account's
// profile and the token's name are read where they are shown.
type Principal struct {
	Account PrincipalAccount
	Token   PrincipalToken
	// Credits is the account's credit row as read with the token, so a
	// request that only reports it needs no second read. Its AccountID is 0
	// when the reader did not load it.
	Credits CreditState
}

// PrincipalAccount is the calling account as a request needs it.
type PrincipalAccount struct {
	ID   int64
	Plan string
}

// PrincipalToken is the token that authenticated a request, as a request
// needs it: the stored hash to compare again, and when it was last used.
type PrincipalToken struct {
	ID         int64
	AccountID  int64
	Hash       string
	LastUsedAt *time.Time
}

// Caller is the account as a request's principal carries it.
func (a Account) Caller() PrincipalAccount { return PrincipalAccount{ID: a.ID, Plan: a.Plan} }

// Caller is the token as a request's principal carries it.
func (t Token) Caller() PrincipalToken {
	return PrincipalToken{ID: t.ID, AccountID: t.AccountID, Hash: t.Hash, LastUsedAt: t.LastUsedAt}
}
