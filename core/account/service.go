// Package account holds the rules of dashboard accounts: sign-up with a
// verified email address, passwords, sign-in with throttling, server-side
// sessions and password reset by email. API tokens stay in core/auth.
package account

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/trawlhq/trawl/core/auth"
	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/core/ratelimit"
	"github.com/trawlhq/trawl/ports"
)

// Password length rules (NIST SP 800-63B: at least 8, allow long passphrases).
const (
	MinPassword = 10
	MaxPassword = 256
)

// Options tune the service; zero values take the defaults below.
type Options struct {
	// PublicURL is the external base URL that email links point at.
	PublicURL string
	MailFrom  string
	// SessionTTL is how long a sign-in lasts (default 14 days).
	SessionTTL time.Duration
	// VerifyTTL is how long a verification link works (default 48 h).
	VerifyTTL time.Duration
	// ResetTTL is how long a password reset link works (default 1 h).
	ResetTTL time.Duration
	// PerAccount caps verification and reset emails per account in
	// ThrottleWindow (default 5 in 15 minutes); PerAddress caps the failed
	// sign-ins of one client address without a device cookie in that window
	// (default 20).
	PerAccount, PerAddress int
	ThrottleWindow         time.Duration
	// StrangerFailures caps the failed sign-ins an hour to one account from
	// browsers without its device cookie, all of them together (default 10).
	// DeviceFailures caps them for each browser that holds one (default 10),
	// so strangers cannot lock the owner out. DeviceTTL is how long a device
	// cookie is honoured after the sign-in that set it (default 180 days).
	StrangerFailures, DeviceFailures int
	DeviceTTL                        time.Duration
	// SignUpsPerHour caps new accounts per client address (default 10), so
	// the form cannot be used to mail strangers in bulk.
	SignUpsPerHour int
}

func (o Options) withDefaults() Options {
	if o.SessionTTL <= 0 {
		o.SessionTTL = 14 * 24 * time.Hour
	}
	if o.VerifyTTL <= 0 {
		o.VerifyTTL = 48 * time.Hour
	}
	if o.ResetTTL <= 0 {
		o.ResetTTL = time.Hour
	}
	if o.PerAccount <= 0 {
		o.PerAccount = 5
	}
	if o.PerAddress <= 0 {
		o.PerAddress = 20
	}
	if o.SignUpsPerHour <= 0 {
		o.SignUpsPerHour = 10
	}
	if o.StrangerFailures <= 0 {
		o.StrangerFailures = 10
	}
	if o.DeviceFailures <= 0 {
		o.DeviceFailures = 10
	}
	if o.DeviceTTL <= 0 {
		o.DeviceTTL = 180 * 24 * time.Hour
	}
	if o.ThrottleWindow <= 0 {
		o.ThrottleWindow = 15 * time.Minute
	}
	if o.MailFrom == "" {
		o.MailFrom = "Trawl <no-reply@trawl.localhost>"
	}
	o.PublicURL = strings.TrimRight(o.PublicURL, "/")
	return o
}

// Service runs the dashboard's account use cases.
type Service struct {
	accounts ports.AccountStore
	creds    ports.CredentialStore
	hasher   ports.PasswordHasher
	mailer   ports.Mailer
	limiter  ports.RateLimiter
	clock    ports.Clock
	o        Options
	// dummy is verified against when no account matches, so an unknown
	// email takes as long to refuse as a wrong password.
	dummy string
	// signIns serialises the sign-ins to one account in this process, so
	// a burst of guesses cannot all pass the failure count before any is
	// recorded.
	signIns [64]sync.Mutex
}

// NewService builds the service.
func NewService(accounts ports.AccountStore, creds ports.CredentialStore, hasher ports.PasswordHasher, mailer ports.Mailer, limiter ports.RateLimiter, clock ports.Clock, o Options) (*Service, error) {
	if accounts == nil || creds == nil || hasher == nil || mailer == nil || limiter == nil || clock == nil {
		return nil, errors.New("account.NewService: accounts, credentials, hasher, mailer, limiter and clock are required")
	}
	o = o.withDefaults()
	if o.PublicURL == "" {
		return nil, errors.New("account.NewService: a public URL is required for email links")
	}
	dummy, err := hasher.Hash("no account has this password")
	if err != nil {
		return nil, err
	}
	return &Service{accounts: accounts, creds: creds, hasher: hasher, mailer: mailer, limiter: limiter, clock: clock, o: o, dummy: dummy}, nil
}

// newSecret is 32 random bytes, URL-safe: cookie values and email links.
func newSecret() (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b[:]), nil
}

// hashSecret is what the store keeps of a session or link secret.
func hashSecret(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// ValidatePassword checks the length rules.
func ValidatePassword(field, pw string) error {
	n := utf8.RuneCountInString(pw)
	switch {
	case n < MinPassword:
		return failure.Invalidf("account.Password", field, "The password must be at least %d characters.", MinPassword)
	case len(pw) > MaxPassword:
		return failure.Invalidf("account.Password", field, "The password may not be greater than %d characters.", MaxPassword)
	}
	return nil
}

// CheckSignUp reports every problem of a sign-up form at once, each under
// its field: the email, the password's rules and its confirmation.
func CheckSignUp(email, password, confirmation string) error {
	var fe failure.FieldErrors
	if _, err := auth.NormalizeEmail(email); err != nil {
		fe.Add("email", "The email must be a valid email address.")
	}
	checkNewPassword(&fe, password, confirmation)
	return fe.Err("account.CheckSignUp")
}

// CheckNewPassword reports the problems of a new password and its
// confirmation, each under its field.
func CheckNewPassword(password, confirmation string) error {
	var fe failure.FieldErrors
	checkNewPassword(&fe, password, confirmation)
	return fe.Err("account.CheckNewPassword")
}

func checkNewPassword(fe *failure.FieldErrors, password, confirmation string) {
	if err := ValidatePassword("password", password); err != nil {
		fe.Add("password", failure.Public(err, ""))
	}
	if password != confirmation {
		fe.Add("password_confirmation", "The two passwords do not match.")
	}
}

// SignUp creates an account without a plan and mails a verification link.
// The account can sign in at once; creating API tokens waits for the
// verified address. An email that already has an account gets the same
// answer (an Account with only its Email set), and its owner a message
// saying someone tried, so the form tells no one who signed up.
func (s *Service) SignUp(ctx context.Context, email, password, clientAddr string) (ports.Account, error) {
	const op = "account.SignUp"
	if err := s.throttleIn(ctx, "signup:addr:"+clientAddr, s.o.SignUpsPerHour, time.Hour, "Too many new accounts from your network."); err != nil {
		return ports.Account{}, err
	}
	if err := CheckSignUp(email, password, password); err != nil {
		return ports.Account{}, err
	}
	e, _ := auth.NormalizeEmail(email)
	hash, err := s.hasher.Hash(password)
	if err != nil {
		return ports.Account{}, failure.Wrap(op, err)
	}
	now := s.clock.Now()
	acct, err := s.accounts.CreateAccount(ctx, ports.Account{
		Name: strings.SplitN(e, "@", 2)[0], Email: e, Plan: "", CreatedAt: now, UpdatedAt: now,
	})
	if failure.Is(err, failure.Conflict) {
		return ports.Account{Email: e}, s.tellOwner(ctx, e)
	}
	if err != nil {
		return ports.Account{}, failure.Wrap(op, err)
	}
	if err := s.creds.SetPasswordHash(ctx, acct.ID, hash); err != nil {
		return ports.Account{}, failure.Wrap(op, err)
	}
	if err := s.SendVerification(ctx, acct.ID); err != nil {
		return acct, err
	}
	return acct, nil
}

// tellOwner mails the owner of an address that someone tried to sign up
// with it. Nothing it meets reaches the caller, whose answer must read as
// a new account's: the mail is capped like verification emails and a
// failure is only dropped.
func (s *Service) tellOwner(ctx context.Context, email string) error {
	acct, err := s.accounts.AccountByEmail(ctx, email)
	if err != nil {
		return nil
	}
	if s.throttleIn(ctx, "verify:"+strconv.FormatInt(acct.ID, 10), s.o.PerAccount, s.o.ThrottleWindow, "") != nil {
		return nil
	}
	_ = s.mailer.Send(ctx, ports.Mail{
		From: s.o.MailFrom, To: acct.Email, Subject: "Someone tried to sign up to Trawl with your email",
		Text: fmt.Sprintf("Someone tried to create a Trawl account with this address, which already has one.\n\nIf it was you, sign in at %s/dashboard/signin (or choose a new password at %s/dashboard/forgot).\nIf it was not you, ignore this message: nothing changed.\n", s.o.PublicURL, s.o.PublicURL),
	})
	return nil
}

// emailLink stores a one-time link and returns its URL.
func (s *Service) emailLink(ctx context.Context, accountID int64, purpose ports.EmailPurpose, path string, ttl time.Duration) (string, error) {
	return storeLink(ctx, s.creds, s.clock.Now(), s.o.PublicURL, accountID, purpose, path, ttl)
}

func storeLink(ctx context.Context, creds ports.CredentialStore, now time.Time, publicURL string, accountID int64, purpose ports.EmailPurpose, path string, ttl time.Duration) (string, error) {
	secret, err := newSecret()
	if err != nil {
		return "", err
	}
	if err := creds.PutEmailToken(ctx, ports.EmailToken{
		Hash: hashSecret(secret), AccountID: accountID, Purpose: purpose, CreatedAt: now, ExpiresAt: now.Add(ttl),
	}); err != nil {
		return "", err
	}
	return strings.TrimRight(publicURL, "/") + path + "?token=" + url.QueryEscape(secret), nil
}

// PasswordLinkTTL is how long the bootstrap account's password link works.
const PasswordLinkTTL = 24 * time.Hour

// PasswordLink stores a one-time link to the page that sets an account's
// password, for the operator who starts a new store: the bootstrap
// account has no password and no mailbox, so its link is printed, not
// mailed. It works for PasswordLinkTTL, once, like a reset link.
func PasswordLink(ctx context.Context, creds ports.CredentialStore, now time.Time, publicURL string, accountID int64) (string, error) {
	link, err := storeLink(ctx, creds, now, publicURL, accountID, ports.EmailReset, "/dashboard/reset", PasswordLinkTTL)
	return link, failure.Wrap("account.PasswordLink", err)
}

// SendVerification mails a fresh verification link (none when already verified).
func (s *Service) SendVerification(ctx context.Context, accountID int64) error {
	const op = "account.SendVerification"
	acct, err := s.accounts.AccountByID(ctx, accountID)
	if err != nil {
		return failure.Wrap(op, err)
	}
	if acct.EmailVerifiedAt != nil {
		return nil
	}
	if err := s.throttleIn(ctx, "verify:"+strconv.FormatInt(acct.ID, 10), s.o.PerAccount, s.o.ThrottleWindow, "Too many verification emails."); err != nil {
		return err
	}
	link, err := s.emailLink(ctx, acct.ID, ports.EmailVerify, "/dashboard/verify", s.o.VerifyTTL)
	if err != nil {
		return failure.Wrap(op, err)
	}
	err = s.mailer.Send(ctx, ports.Mail{
		From: s.o.MailFrom, To: acct.Email, Subject: "Verify your email for Trawl",
		Text: fmt.Sprintf("Welcome to Trawl.\n\nOpen this link to verify your email address (it works for %s, once):\n\n%s\n\nIf you did not sign up, ignore this message.\n", human(s.o.VerifyTTL), link),
	})
	if err != nil {
		return failure.Unable(op, failure.ReasonDeliveryFailed, "The verification email could not be sent; try again from the dashboard.", err)
	}
	return nil
}

// VerifyEmail consumes a verification link and marks the address verified.
func (s *Service) VerifyEmail(ctx context.Context, secret string) (ports.Account, error) {
	const op = "account.VerifyEmail"
	now := s.clock.Now()
	t, err := s.creds.UseEmailToken(ctx, hashSecret(secret), ports.EmailVerify, now)
	if failure.Is(err, failure.NotFound) {
		return ports.Account{}, failure.E(op, failure.NotFound, "This verification link is invalid, used or expired. Sign in to get a new one.")
	}
	if err != nil {
		return ports.Account{}, failure.Wrap(op, err)
	}
	if err := s.creds.MarkEmailVerified(ctx, t.AccountID, now); err != nil {
		return ports.Account{}, failure.Wrap(op, err)
	}
	acct, err := s.accounts.AccountByID(ctx, t.AccountID)
	return acct, failure.Wrap(op, err)
}

// SignedIn is a new session: Secret goes into the cookie and nowhere else.
type SignedIn struct {
	Account   ports.Account
	Secret    string
	ExpiresAt time.Time
	// Lifetime is how long the session lasts from now (the cookie's Max-Age).
	Lifetime time.Duration
	// Device is the browser's new device cookie: it keeps a budget of
	// failed sign-ins of its own for DeviceLifetime.
	Device         string
	DeviceLifetime time.Duration
}

func (s *Service) throttle(ctx context.Context, key string, limit int) error {
	return s.throttleIn(ctx, key, limit, s.o.ThrottleWindow, "Too many sign-in attempts.")
}

func (s *Service) throttleIn(ctx context.Context, key string, limit int, window time.Duration, what string) error {
	d, err := s.limiter.Allow(ctx, key, limit, window)
	if err != nil {
		return ratelimit.Failure("account.throttle", err)
	}
	if !d.Allowed {
		secs := int(d.RetryAfter.Round(time.Second) / time.Second)
		if secs < 1 {
			secs = 1
		}
		e := failure.E("account.throttle", failure.RateLimited, fmt.Sprintf("%s Try again in %s.", what, human(time.Duration(secs)*time.Second)))
		e.RetryAfterSeconds = secs
		return e
	}
	return nil
}

func (s *Service) openSession(ctx context.Context, acct ports.Account) (SignedIn, error) {
	secret, err := newSecret()
	if err != nil {
		return SignedIn{}, failure.Wrap("account.SignIn", err)
	}
	now := s.clock.Now()
	sess := ports.Session{Hash: hashSecret(secret), AccountID: acct.ID, CreatedAt: now, ExpiresAt: now.Add(s.o.SessionTTL)}
	if err := s.creds.CreateSession(ctx, sess); err != nil {
		return SignedIn{}, failure.Wrap("account.SignIn", err)
	}
	return SignedIn{Account: acct, Secret: secret, ExpiresAt: sess.ExpiresAt, Lifetime: s.o.SessionTTL}, nil
}

// Session resolves a session cookie to its account; failure.Unauthenticated
// when the session is unknown, signed out or expired.
func (s *Service) Session(ctx context.Context, secret string) (ports.Account, error) {
	const op = "account.Session"
	if secret == "" {
		return ports.Account{}, failure.E(op, failure.Unauthenticated, "Sign in to continue.")
	}
	sess, err := s.creds.Session(ctx, hashSecret(secret), s.clock.Now())
	if failure.Is(err, failure.NotFound) {
		return ports.Account{}, failure.E(op, failure.Unauthenticated, "Sign in to continue.")
	}
	if err != nil {
		return ports.Account{}, failure.Wrap(op, err)
	}
	acct, err := s.accounts.AccountByID(ctx, sess.AccountID)
	if failure.Is(err, failure.NotFound) {
		return ports.Account{}, failure.E(op, failure.Unauthenticated, "Sign in to continue.")
	}
	return acct, failure.Wrap(op, err)
}

// SignOut ends a session.
func (s *Service) SignOut(ctx context.Context, secret string) error {
	if secret == "" {
		return nil
	}
	return failure.Wrap("account.SignOut", s.creds.DeleteSession(ctx, hashSecret(secret)))
}

// RequestPasswordReset mails a reset link when the address has an account;
// the answer is the same either way, so the form tells no one who signed up.
func (s *Service) RequestPasswordReset(ctx context.Context, email string) error {
	const op = "account.RequestPasswordReset"
	e, err := auth.NormalizeEmail(email)
	if err != nil {
		return failure.Invalidf(op, "email", "The email must be a valid email address.")
	}
	if err := s.throttle(ctx, "reset:"+e, s.o.PerAccount); err != nil {
		return nil // quietly: no more mail to this address for a while
	}
	acct, err := s.accounts.AccountByEmail(ctx, e)
	if failure.Is(err, failure.NotFound) {
		return nil
	}
	if err != nil {
		return failure.Wrap(op, err)
	}
	link, err := s.emailLink(ctx, acct.ID, ports.EmailReset, "/dashboard/reset", s.o.ResetTTL)
	if err != nil {
		return failure.Wrap(op, err)
	}
	err = s.mailer.Send(ctx, ports.Mail{
		From: s.o.MailFrom, To: acct.Email, Subject: "Reset your Trawl password",
		Text: fmt.Sprintf("Someone asked to reset the password of your Trawl account.\n\nOpen this link to choose a new one (it works for %s, once):\n\n%s\n\nIf it was not you, ignore this message: your password stays as it is.\n", human(s.o.ResetTTL), link),
	})
	if err != nil {
		return failure.Unable(op, failure.ReasonDeliveryFailed, "The email could not be sent; try again later.", err)
	}
	return nil
}

// ResetPassword consumes a reset link, sets the new password and signs
// every browser of the account out. Opening the link proves the address, so
// it also counts as verification.
func (s *Service) ResetPassword(ctx context.Context, secret, password string) error {
	const op = "account.ResetPassword"
	if err := ValidatePassword("password", password); err != nil {
		return err
	}
	now := s.clock.Now()
	t, err := s.creds.UseEmailToken(ctx, hashSecret(secret), ports.EmailReset, now)
	if failure.Is(err, failure.NotFound) {
		return failure.E(op, failure.NotFound, "This reset link is invalid, used or expired. Ask for a new one.")
	}
	if err != nil {
		return failure.Wrap(op, err)
	}
	hash, err := s.hasher.Hash(password)
	if err != nil {
		return failure.Wrap(op, err)
	}
	if err := s.creds.SetPasswordHash(ctx, t.AccountID, hash); err != nil {
		return failure.Wrap(op, err)
	}
	if err := s.creds.DeleteAccountSessions(ctx, t.AccountID); err != nil {
		return failure.Wrap(op, err)
	}
	return failure.Wrap(op, s.creds.MarkEmailVerified(ctx, t.AccountID, now))
}

// human writes a duration as people say it.
func human(d time.Duration) string {
	switch {
	case d >= 48*time.Hour && d%(24*time.Hour) == 0:
		return fmt.Sprintf("%d days", d/(24*time.Hour))
	case d >= 2*time.Hour:
		return fmt.Sprintf("%d hours", d/time.Hour)
	case d >= time.Hour:
		return "1 hour"
	case d >= 2*time.Minute:
		return fmt.Sprintf("%d minutes", (d+time.Minute-1)/time.Minute)
	case d > time.Second:
		return fmt.Sprintf("%d seconds", d/time.Second)
	}
	return "a moment"
}
