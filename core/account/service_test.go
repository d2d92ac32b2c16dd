package account_test

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/trawlhq/trawl/adapters/limiter"
	"github.com/trawlhq/trawl/adapters/password"
	"github.com/trawlhq/trawl/core/account"
	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/ports"
	"github.com/trawlhq/trawl/testkit"
	"github.com/trawlhq/trawl/testkit/memstore"
)

type outbox struct {
	mu   sync.Mutex
	mail []ports.Mail
}

func (o *outbox) Send(_ context.Context, m ports.Mail) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.mail = append(o.mail, m)
	return nil
}

var linkRE = regexp.MustCompile(`https://trawl\.test(/dashboard/\w+)\?token=(\S+)`)

// link returns the path and secret of the last link mailed.
func (o *outbox) link(t *testing.T) (string, string) {
	t.Helper()
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.mail) == 0 {
		t.Fatal("no mail sent")
	}
	m := linkRE.FindStringSubmatch(o.mail[len(o.mail)-1].Text)
	if m == nil {
		t.Fatalf("no link in %q", o.mail[len(o.mail)-1].Text)
	}
	secret, _ := url.QueryUnescape(m[2])
	return m[1], secret
}

type env struct {
	svc   *account.Service
	store *memstore.Store
	mail  *outbox
	clock *testkit.Clock
}

func newEnv(t *testing.T) env {
	t.Helper()
	clk := testkit.NewClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	store := memstore.New()
	lim, _ := limiter.NewMemory(clk)
	mail := &outbox{}
	svc, err := account.NewService(store, store, password.New(password.Params{MemoryKiB: 256, Time: 1, Threads: 1}), mail, lim, clk,
		account.Options{PublicURL: "https://trawl.test/"})
	if err != nil {
		t.Fatal(err)
	}
	return env{svc: svc, store: store, mail: mail, clock: clk}
}

func TestSignUpVerifySignIn(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	acct, err := e.svc.SignUp(ctx, " Ada@Example.com ", "a long passphrase", "192.0.2.200")
	if err != nil {
		t.Fatal(err)
	}
	if acct.Email != "ada@example.com" || acct.Plan != "" || acct.EmailVerifiedAt != nil {
		t.Fatalf("new account %+v: want normalised email, no plan, unverified", acct)
	}
	if e.mail.mail[0].To != "ada@example.com" || !strings.Contains(e.mail.mail[0].Subject, "Verify") {
		t.Fatalf("mail %+v", e.mail.mail[0])
	}
	path, secret := e.mail.link(t)
	if path != "/dashboard/verify" {
		t.Fatalf("link path %q", path)
	}
	if _, err := e.svc.VerifyEmail(ctx, secret+"x"); !failure.Is(err, failure.NotFound) {
		t.Fatalf("a wrong link verified: %v", err)
	}
	got, err := e.svc.VerifyEmail(ctx, secret)
	if err != nil || got.EmailVerifiedAt == nil {
		t.Fatalf("verify: %+v %v", got, err)
	}
	if _, err := e.svc.VerifyEmail(ctx, secret); !failure.Is(err, failure.NotFound) {
		t.Fatalf("a link worked twice: %v", err)
	}
	if _, err := e.svc.SignIn(ctx, "ada@example.com", "a wrong passphrase", "198.51.100.1", ""); !hasField(err, "password") {
		t.Fatalf("wrong password: %v", err)
	}
	in, err := e.svc.SignIn(ctx, "ADA@example.com", "a long passphrase", "198.51.100.1", "")
	if err != nil || in.Account.ID != acct.ID || len(in.Secret) < 40 {
		t.Fatalf("sign in: %+v %v", in, err)
	}
	if who, err := e.svc.Session(ctx, in.Secret); err != nil || who.ID != acct.ID {
		t.Fatalf("session: %+v %v", who, err)
	}
	// A second sign-in is a second, different session.
	in2, _ := e.svc.SignIn(ctx, "ada@example.com", "a long passphrase", "198.51.100.1", "")
	if in2.Secret == in.Secret {
		t.Fatal("two sign-ins share a session id")
	}
	if err := e.svc.SignOut(ctx, in.Secret); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.Session(ctx, in.Secret); !failure.Is(err, failure.Unauthenticated) {
		t.Fatalf("signed-out session: %v", err)
	}
	e.clock.Advance(15 * 24 * time.Hour)
	if _, err := e.svc.Session(ctx, in2.Secret); !failure.Is(err, failure.Unauthenticated) {
		t.Fatalf("expired session: %v", err)
	}
}

func hasField(err error, field string) bool {
	for _, f := range failure.FieldNames(err) {
		if f == field {
			return true
		}
	}
	return false
}

func TestSignUpValidation(t *testing.T) {
	e := newEnv(t)
	_, err := e.svc.SignUp(context.Background(), "not an email", "short", "192.0.2.200")
	if !hasField(err, "email") || !hasField(err, "password") {
		t.Fatalf("fields %v", failure.FieldNames(err))
	}
	if len(e.mail.mail) != 0 {
		t.Fatal("mail sent for a refused sign-up")
	}
}

func TestVerificationLinkExpires(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	if _, err := e.svc.SignUp(ctx, "late@example.com", "a long passphrase", "192.0.2.200"); err != nil {
		t.Fatal(err)
	}
	_, secret := e.mail.link(t)
	e.clock.Advance(49 * time.Hour)
	if _, err := e.svc.VerifyEmail(ctx, secret); !failure.Is(err, failure.NotFound) {
		t.Fatalf("expired link: %v", err)
	}
}

func TestSignInThrottledPerAccount(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	if _, err := e.svc.SignUp(ctx, "t@example.com", "a long passphrase", "192.0.2.200"); err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		// Different addresses: the account's stranger budget is what stops the eleventh.
		if _, err := e.svc.SignIn(ctx, "t@example.com", "guess number "+string(rune('a'+i)), "203.0.113."+string(rune('1'+i)), ""); !hasField(err, "password") {
			t.Fatalf("attempt %d: %v", i+1, err)
		}
	}
	_, err := e.svc.SignIn(ctx, "t@example.com", "a long passphrase", "203.0.113.99", "")
	fe, _ := failure.As(err)
	if !failure.Is(err, failure.RateLimited) || fe.RetryAfterSeconds < 1 {
		t.Fatalf("eleventh attempt, right password: %v", err)
	}
	e.clock.Advance(61 * time.Minute)
	if _, err := e.svc.SignIn(ctx, "t@example.com", "a long passphrase", "203.0.113.99", ""); err != nil {
		t.Fatalf("after the window: %v", err)
	}
}

func TestSignInThrottledPerAddress(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	for i := range 20 {
		_, err := e.svc.SignIn(ctx, "user"+string(rune('a'+i))+"@example.com", "whatever password", "192.0.2.7", "")
		if failure.Is(err, failure.RateLimited) {
			t.Fatalf("attempt %d limited", i+1)
		}
	}
	if _, err := e.svc.SignIn(ctx, "fresh@example.com", "whatever password", "192.0.2.7", ""); !failure.Is(err, failure.RateLimited) {
		t.Fatalf("21st attempt from one address: %v", err)
	}
	if _, err := e.svc.SignIn(ctx, "fresh@example.com", "whatever password", "192.0.2.8", ""); failure.Is(err, failure.RateLimited) {
		t.Fatal("another address was limited")
	}
}

func TestPasswordReset(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	if _, err := e.svc.SignUp(ctx, "r@example.com", "the old passphrase", "192.0.2.200"); err != nil {
		t.Fatal(err)
	}
	in, _ := e.svc.SignIn(ctx, "r@example.com", "the old passphrase", "192.0.2.1", "")
	// Unknown addresses get the same answer and no mail.
	sent := len(e.mail.mail)
	if err := e.svc.RequestPasswordReset(ctx, "nobody@example.com"); err != nil || len(e.mail.mail) != sent {
		t.Fatalf("reset of an unknown address: %v, %d mails", err, len(e.mail.mail)-sent)
	}
	if err := e.svc.RequestPasswordReset(ctx, "r@example.com"); err != nil {
		t.Fatal(err)
	}
	path, secret := e.mail.link(t)
	if path != "/dashboard/reset" {
		t.Fatalf("path %q", path)
	}
	if _, err := e.svc.VerifyEmail(ctx, secret); err == nil {
		t.Fatal("a reset link verified an email")
	}
	if err := e.svc.ResetPassword(ctx, secret, "short"); !hasField(err, "password") {
		t.Fatalf("short password: %v", err)
	}
	if err := e.svc.ResetPassword(ctx, secret, "the new passphrase"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.Session(ctx, in.Secret); !failure.Is(err, failure.Unauthenticated) {
		t.Fatalf("session survived a reset: %v", err)
	}
	if err := e.svc.ResetPassword(ctx, secret, "a third passphrase"); !failure.Is(err, failure.NotFound) {
		t.Fatalf("reset link used twice: %v", err)
	}
	if _, err := e.svc.SignIn(ctx, "r@example.com", "the old passphrase", "192.0.2.1", ""); err == nil {
		t.Fatal("old password still works")
	}
	if _, err := e.svc.SignIn(ctx, "r@example.com", "the new passphrase", "192.0.2.1", ""); err != nil {
		t.Fatal(err)
	}
	a, _ := e.store.AccountByEmail(ctx, "r@example.com")
	if a.EmailVerifiedAt == nil {
		t.Fatal("a reset did not verify the address")
	}
}

func TestSignUpsAndVerificationMailsLimited(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	for i := range 10 {
		if _, err := e.svc.SignUp(ctx, fmt.Sprintf("u%d@example.com", i), "a long passphrase", "198.51.100.9"); err != nil {
			t.Fatalf("sign-up %d: %v", i+1, err)
		}
	}
	if _, err := e.svc.SignUp(ctx, "u10@example.com", "a long passphrase", "198.51.100.9"); !failure.Is(err, failure.RateLimited) {
		t.Fatalf("11th sign-up from one address: %v", err)
	}
	if _, err := e.svc.SignUp(ctx, "u10@example.com", "a long passphrase", "198.51.100.10"); err != nil {
		t.Fatalf("another address: %v", err)
	}
	a, _ := e.store.AccountByEmail(ctx, "u0@example.com")
	sent := len(e.mail.mail)
	for i := range 4 { // the sign-up mail was the first of five
		if err := e.svc.SendVerification(ctx, a.ID); err != nil {
			t.Fatalf("resend %d: %v", i+1, err)
		}
	}
	if err := e.svc.SendVerification(ctx, a.ID); !failure.Is(err, failure.RateLimited) {
		t.Fatalf("sixth verification mail: %v", err)
	}
	if len(e.mail.mail)-sent != 4 {
		t.Fatalf("%d mails sent, want 4", len(e.mail.mail)-sent)
	}
}
