package account_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/trawlhq/trawl/core/failure"
)

// signedUp is an account with a password, signed up from an address of its own.
func signedUp(t *testing.T, e env, email string) {
	t.Helper()
	if _, err := e.svc.SignUp(context.Background(), email, "the owner's passphrase", "192.0.2.250"); err != nil {
		t.Fatal(err)
	}
}

// TestSuccessfulSignInsNeverCount: signing in again and again, from one
// browser without a device cookie and one address, is never throttled.
func TestSuccessfulSignInsNeverCount(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	signedUp(t, e, "often@example.com")
	for i := range 40 {
		if _, err := e.svc.SignIn(ctx, "often@example.com", "the owner's passphrase", "198.51.100.5", ""); err != nil {
			t.Fatalf("sign-in %d: %v", i+1, err)
		}
	}
}

// TestStrangersCannotLockOutAKnownBrowser: after strangers used up the
// account's budget, the owner's browser that signed in before still signs
// in; strangers, the right password included, are refused.
func TestStrangersCannotLockOutAKnownBrowser(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	signedUp(t, e, "owner@example.com")
	in, err := e.svc.SignIn(ctx, "owner@example.com", "the owner's passphrase", "198.51.100.5", "")
	if err != nil || in.Device == "" || in.DeviceLifetime <= 0 {
		t.Fatalf("first sign-in: device %q, %v", in.Device, err)
	}
	limited := 0
	for i := range 60 {
		_, err := e.svc.SignIn(ctx, "owner@example.com", fmt.Sprintf("guess %d", i), fmt.Sprintf("203.0.113.%d", i), "")
		if failure.Is(err, failure.RateLimited) {
			limited++
		} else if !hasField(err, "password") {
			t.Fatalf("guess %d: %v", i, err)
		}
	}
	if limited != 50 {
		t.Fatalf("%d of 60 guesses from strangers were refused unheard, want 50 (10 an hour are checked)", limited)
	}
	if _, err := e.svc.SignIn(ctx, "owner@example.com", "the owner's passphrase", "203.0.113.200", ""); !failure.Is(err, failure.RateLimited) {
		t.Fatalf("a stranger with the password, budget spent: %v", err)
	}
	// A forged or another account's device cookie is a stranger's.
	if _, err := e.svc.SignIn(ctx, "owner@example.com", "the owner's passphrase", "198.51.100.5", in.Device+"x"); !failure.Is(err, failure.RateLimited) {
		t.Fatalf("a forged device cookie: %v", err)
	}
	// The owner's browser: a typo of its own, then the password.
	if _, err := e.svc.SignIn(ctx, "owner@example.com", "a typo", "198.51.100.5", in.Device); !hasField(err, "password") {
		t.Fatalf("the owner's typo: %v", err)
	}
	again, err := e.svc.SignIn(ctx, "owner@example.com", "the owner's passphrase", "198.51.100.5", in.Device)
	if err != nil {
		t.Fatalf("the owner's browser was locked out: %v", err)
	}
	if again.Device == "" || again.Device == in.Device {
		t.Fatal("the device cookie was not renewed")
	}
	// The used cookie is spent; the renewed one works.
	if _, err := e.svc.SignIn(ctx, "owner@example.com", "the owner's passphrase", "198.51.100.5", in.Device); !failure.Is(err, failure.RateLimited) {
		t.Fatalf("a replaced device cookie: %v", err)
	}
	if _, err := e.svc.SignIn(ctx, "owner@example.com", "the owner's passphrase", "198.51.100.5", again.Device); err != nil {
		t.Fatalf("the renewed device cookie: %v", err)
	}
}

// TestKnownBrowserHasItsOwnBudget: guessing from a browser with a device
// cookie is bounded too, by the browser's own budget, and does not touch
// the strangers'.
func TestKnownBrowserHasItsOwnBudget(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	signedUp(t, e, "shared@example.com")
	in, err := e.svc.SignIn(ctx, "shared@example.com", "the owner's passphrase", "198.51.100.5", "")
	if err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		if _, err := e.svc.SignIn(ctx, "shared@example.com", fmt.Sprintf("typo %d", i), "198.51.100.5", in.Device); !hasField(err, "password") {
			t.Fatalf("typo %d: %v", i, err)
		}
	}
	if _, err := e.svc.SignIn(ctx, "shared@example.com", "the owner's passphrase", "198.51.100.5", in.Device); !failure.Is(err, failure.RateLimited) {
		t.Fatalf("the eleventh attempt of one browser: %v", err)
	}
	if _, err := e.svc.SignIn(ctx, "shared@example.com", "the owner's passphrase", "198.51.100.6", ""); err != nil {
		t.Fatalf("another browser: %v", err)
	}
}

// TestGuessingBoundedUnderConcurrency: a burst of parallel guesses gets no
// more password checks than the hour's budget.
func TestGuessingBoundedUnderConcurrency(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	signedUp(t, e, "target@example.com")
	var mu sync.Mutex
	checked := 0
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := e.svc.SignIn(ctx, "target@example.com", fmt.Sprintf("guess %d", i), fmt.Sprintf("203.0.113.%d", i), "")
			if hasField(err, "password") {
				mu.Lock()
				checked++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if checked != 10 {
		t.Fatalf("%d of 40 parallel guesses were checked, want 10", checked)
	}
}

// TestSignUpDoesNotRevealAccounts: signing up with a registered email gets
// the answer a new address gets, and its owner a message.
func TestSignUpDoesNotRevealAccounts(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	signedUp(t, e, "taken@example.com")
	before := len(e.mail.mail)
	acct, err := e.svc.SignUp(ctx, " Taken@Example.com", "another passphrase", "192.0.2.251")
	if err != nil || acct.Email != "taken@example.com" {
		t.Fatalf("sign-up with a registered email: %+v %v", acct, err)
	}
	if len(e.mail.mail) != before+1 {
		t.Fatalf("%d mails sent, want 1 to the owner", len(e.mail.mail)-before)
	}
	m := e.mail.mail[len(e.mail.mail)-1]
	if m.To != "taken@example.com" || !strings.Contains(m.Subject, "tried to sign up") || strings.Contains(m.Text, "token=") {
		t.Fatalf("mail to the owner: %+v", m)
	}
	// The owner's password is unchanged.
	if _, err := e.svc.SignIn(ctx, "taken@example.com", "the owner's passphrase", "192.0.2.252", ""); err != nil {
		t.Fatalf("the owner: %v", err)
	}
	if _, err := e.svc.SignIn(ctx, "taken@example.com", "another passphrase", "192.0.2.252", ""); !hasField(err, "password") {
		t.Fatalf("the second sign-up's password: %v", err)
	}
}
