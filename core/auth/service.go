package auth

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"net/mail"
	"strings"
	"time"

	"github.com/trawlhq/trawl/core/billing"
	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/ports"
)

// LastUsedResolution is how stale last_used_at may get: a token is touched at
// most once per this interval, so authentication is not a write per request.
const LastUsedResolution = time.Minute

// Service authenticates requests and runs the account and token use cases.
type Service struct {
	accounts ports.AccountStore
	tokens   ports.TokenStore
	clock    ports.Clock
	plans    billing.Plans
}

// NewService builds the auth service over a plan table (its token caps).
func NewService(accounts ports.AccountStore, tokens ports.TokenStore, clock ports.Clock, plans billing.Plans) (*Service, error) {
	if accounts == nil || tokens == nil || clock == nil {
		return nil, errors.New("auth.NewService: accounts, tokens and clock are required")
	}
	return &Service{accounts: accounts, tokens: tokens, clock: clock, plans: plans}, nil
}

// Account reads the calling account whole (its profile, which a principal
// does not carry).
func (s *Service) Account(ctx context.Context, p ports.Principal) (ports.Account, error) {
	a, err := s.accounts.AccountByID(ctx, p.Account.ID)
	if err != nil {
		return ports.Account{}, failure.Wrap("auth.Account", err)
	}
	return a, nil
}

// Plans is the plan table in force.
func (s *Service) Plans() billing.Plans { return s.plans }

func unauthenticated(op string, cause error) error {
	return failure.E(op, failure.Unauthenticated, "Unauthenticated.", cause)
}

// Authenticate resolves an Authorization header to a principal.
func (s *Service) Authenticate(ctx context.Context, header string) (ports.Principal, error) {
	const op = "auth.Authenticate"
	secret, ok := ParseBearer(header)
	if !ok {
		return ports.Principal{}, unauthenticated(op, nil)
	}
	hash := HashSecret(secret)
	p, err := s.tokens.PrincipalByTokenHash(ctx, hash)
	if failure.Is(err, failure.NotFound) {
		return ports.Principal{}, unauthenticated(op, nil)
	}
	if err != nil {
		return ports.Principal{}, failure.Wrap(op, err)
	}
	// The lookup is by an index on the hash; compare again in constant time
	// so no code path depends on how much of a hash matched.
	if !sameHash(p.Token.Hash, hash) {
		return ports.Principal{}, unauthenticated(op, nil)
	}
	tok, acct := p.Token, p.Account
	now := s.clock.Now()
	if tok.LastUsedAt == nil || now.Sub(*tok.LastUsedAt) >= LastUsedResolution {
		// Best effort: a failed touch must not fail the request.
		if err := s.tokens.TouchToken(ctx, tok.ID, now); err == nil {
			tok.LastUsedAt = &now
		}
	}
	return ports.Principal{Account: acct, Token: tok, Credits: p.Credits}, nil
}

// sameHash compares two hashes in constant time, without copying them.
func sameHash(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	var v byte
	for i := 0; i < len(a); i++ {
		v |= a[i] ^ b[i]
	}
	return subtle.ConstantTimeByteEq(v, 0) == 1
}

// NormalizeEmail lower-cases and validates an email address.
func NormalizeEmail(email string) (string, error) {
	e := strings.ToLower(strings.TrimSpace(email))
	addr, err := mail.ParseAddress(e)
	if err != nil || addr.Address != e || !strings.Contains(e, "@") {
		return "", failure.Invalidf("auth.NormalizeEmail", "email", "The email must be a valid email address.")
	}
	return e, nil
}

// CreateAccount creates an account, verified, on a plan ("" or "none" for none).
func (s *Service) CreateAccount(ctx context.Context, email, name, plan string) (ports.Account, error) {
	const op = "auth.CreateAccount"
	e, err := NormalizeEmail(email)
	if err != nil {
		return ports.Account{}, err
	}
	p, ok := s.plans.ByName(plan)
	if !ok {
		return ports.Account{}, failure.Invalidf(op, "plan", "The plan must be one of: %s.", strings.Join(s.plans.Names(), ", "))
	}
	if strings.TrimSpace(name) == "" {
		name = strings.SplitN(e, "@", 2)[0]
	}
	now := s.clock.Now()
	return s.accounts.CreateAccount(ctx, ports.Account{
		Name: strings.TrimSpace(name), Email: e, Plan: p.Name,
		EmailVerifiedAt: &now, CreatedAt: now, UpdatedAt: now,
	})
}

// AccountByEmail finds an account by email.
func (s *Service) AccountByEmail(ctx context.Context, email string) (ports.Account, error) {
	e, err := NormalizeEmail(email)
	if err != nil {
		return ports.Account{}, err
	}
	return s.accounts.AccountByEmail(ctx, e)
}

// The account created on the first start of an empty store.
const (
	BootstrapEmail = "local@localhost"
	BootstrapName  = "Local"
	BootstrapPlan  = "business"
)

// Bootstrapped is the first account of a store and its first token.
type Bootstrapped struct {
	Account ports.Account
	Plan    billing.Plan
	Token   NewToken
}

// Bootstrap creates BootstrapEmail on BootstrapPlan with one token when the
// store holds no account yet. It reports false, and creates nothing, when
// the store has an account (or another process bootstrapped first).
func (s *Service) Bootstrap(ctx context.Context) (Bootstrapped, bool, error) {
	const op = "auth.Bootstrap"
	n, err := s.accounts.CountAccounts(ctx)
	if err != nil || n > 0 {
		return Bootstrapped{}, false, failure.Wrap(op, err)
	}
	acct, err := s.CreateAccount(ctx, BootstrapEmail, BootstrapName, BootstrapPlan)
	if failure.Is(err, failure.Conflict) {
		return Bootstrapped{}, false, nil
	}
	if err != nil {
		return Bootstrapped{}, false, failure.Wrap(op, err)
	}
	tok, err := s.CreateToken(ctx, acct.ID, "bootstrap")
	if err != nil {
		return Bootstrapped{}, false, failure.Wrap(op, err)
	}
	return Bootstrapped{Account: acct, Plan: s.plans.Must(acct.Plan), Token: tok}, true, nil
}

// NewToken is a token just created: the only moment its secret is known.
type NewToken struct {
	Token  ports.Token
	Secret string
}

// CreateToken issues a token for an account by operator decision (the
// command line, tests), within its plan's cap on active tokens.
func (s *Service) CreateToken(ctx context.Context, accountID int64, name string) (NewToken, error) {
	return s.createToken(ctx, "auth.CreateToken", accountID, name, false)
}

// CreateOwnToken issues a token the account holder asked for (from the
// dashboard), within its plan's cap: only once the account's email address
// is verified, so every such token traces back to an address that can be
// reached.
func (s *Service) CreateOwnToken(ctx context.Context, accountID int64, name string) (NewToken, error) {
	return s.createToken(ctx, "auth.CreateOwnToken", accountID, name, true)
}

func (s *Service) createToken(ctx context.Context, op string, accountID int64, name string, verified bool) (NewToken, error) {
	acct, err := s.accounts.AccountByID(ctx, accountID)
	if err != nil {
		return NewToken{}, failure.Wrap(op, err)
	}
	if verified && acct.EmailVerifiedAt == nil {
		return NewToken{}, failure.Invalidf(op, "name", "Verify your email address first: open the link we sent to %s, or send a new one.", acct.Email)
	}
	name = strings.TrimSpace(name)
	if name == "" {
		name = "default"
	}
	if len(name) > 100 {
		return NewToken{}, failure.Invalidf(op, "name", "The name may not be greater than 100 characters.")
	}
	secret, err := NewSecret()
	if err != nil {
		return NewToken{}, failure.Wrap(op, err)
	}
	plan := s.plans.Must(acct.Plan)
	tok, err := s.tokens.CreateToken(ctx, ports.Token{
		AccountID: acct.ID, Name: name, Hash: HashSecret(secret), Preview: Preview(secret), CreatedAt: s.clock.Now(),
	}, plan.MaxTokens)
	if failure.Is(err, failure.Conflict) {
		return NewToken{}, failure.E(op, failure.Conflict, CapMessage(plan), err)
	}
	if err != nil {
		return NewToken{}, failure.Wrap(op, err)
	}
	return NewToken{Token: tok, Secret: secret}, nil
}

// ListTokens lists an account's tokens (never their secrets).
func (s *Service) ListTokens(ctx context.Context, accountID int64) ([]ports.Token, error) {
	return s.tokens.ListTokens(ctx, accountID)
}

// Token reads one of the account's own tokens (never its secret); a token
// of another account (or none) is NotFound.
func (s *Service) Token(ctx context.Context, accountID, tokenID int64) (ports.Token, error) {
	const op = "auth.Token"
	toks, err := s.tokens.ListTokens(ctx, accountID)
	if err != nil {
		return ports.Token{}, failure.Wrap(op, err)
	}
	for _, t := range toks {
		if t.ID == tokenID {
			return t, nil
		}
	}
	return ports.Token{}, noSuchToken(op, nil)
}

// AtCap says whether an account holding active tokens has as many as its
// plan allows, so a new one would be refused.
func AtCap(p billing.Plan, active int) bool {
	return active >= p.MaxTokens
}

// noSuchToken is the failure for a token id the account does not hold.
func noSuchToken(op string, cause error) error {
	return failure.E(op, failure.NotFound, "There is no such token in your account.", cause)
}

// DeleteToken revokes one of the account's own tokens at once; a token of
// another account (or none) is NotFound.
func (s *Service) DeleteToken(ctx context.Context, accountID, tokenID int64) error {
	const op = "auth.DeleteToken"
	err := s.tokens.DeleteToken(ctx, accountID, tokenID)
	if failure.Is(err, failure.NotFound) {
		return noSuchToken(op, err)
	}
	return failure.Wrap(op, err)
}

// ListAccounts lists every account.
func (s *Service) ListAccounts(ctx context.Context) ([]ports.Account, error) {
	return s.accounts.ListAccounts(ctx)
}

// CapMessage says why no more tokens can be created on a plan.
func CapMessage(p billing.Plan) string {
	tokens := fmt.Sprintf("%d active tokens", p.MaxTokens)
	if p.MaxTokens == 1 {
		tokens = "1 active token"
	}
	if p.Name == "" {
		return fmt.Sprintf("Without a plan Trawl allows %s; delete it first, or subscribe to a plan for more.", tokens)
	}
	return fmt.Sprintf("The %s plan allows %s; delete one first, or move to a larger plan.", p.DisplayName, tokens)
}
