package auth_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/trawlhq/trawl/core/auth"
	"github.com/trawlhq/trawl/core/billing"
	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/ports"
	"github.com/trawlhq/trawl/testkit"
	"github.com/trawlhq/trawl/testkit/memstore"
)

func TestSecretFormat(t *testing.T) {
	seen := map[string]bool{}
	for range 200 {
		s, err := auth.NewSecret()
		if err != nil {
			t.Fatal(err)
		}
		if len(s) != 46 || !strings.HasPrefix(s, "trawl_") || !auth.WellFormed(s) || seen[s] {
			t.Fatalf("bad or repeated secret %q", s)
		}
		seen[s] = true
		h := auth.HashSecret(s)
		if len(h) != 64 || strings.Contains(h, s[6:]) {
			t.Fatalf("hash %q", h)
		}
	}
}

func TestPreview(t *testing.T) {
	s := "trawl_AbCd" + strings.Repeat("0", 32) + "WxYz"
	if got := auth.Preview(s); got != "trawl_AbCd...WxYz" {
		t.Errorf("Preview = %q", got)
	}
}

func TestParseBearer(t *testing.T) {
	good := "trawl_" + strings.Repeat("a", 40)
	for _, c := range []struct {
		header string
		ok     bool
	}{
		{"Bearer " + good, true},
		{"bearer " + good, true},
		{"BEARER   " + good + "  ", true},
		{"", false},
		{good, false},
		{"Basic " + good, false},
		{"Bearer ", false},
		{"Bearer trawl_short", false},
		{"Bearer " + good + "x", false},
		{"Bearer " + strings.Replace(good, "a", "-", 1), false},
		{"Bearer sk_" + strings.Repeat("a", 43), false},
	} {
		_, ok := auth.ParseBearer(c.header)
		if ok != c.ok {
			t.Errorf("ParseBearer(%q) ok = %v, want %v", c.header, ok, c.ok)
		}
	}
}

var t0 = time.Date(2026, 4, 1, 8, 0, 0, 0, time.UTC)

func newService(t *testing.T) (*auth.Service, *memstore.Store, *testkit.Clock) {
	store := memstore.New()
	clock := testkit.NewClock(t0)
	svc, err := auth.NewService(store, store, clock, billing.DefaultPlans())
	if err != nil {
		t.Fatal(err)
	}
	return svc, store, clock
}

func TestAuthenticate(t *testing.T) {
	svc, store, clock := newService(t)
	ctx := context.Background()
	acct, err := svc.CreateAccount(ctx, "  Dev@Example.COM ", "", "basic")
	if err != nil || acct.Email != "dev@example.com" || acct.Name != "dev" || acct.Plan != "basic" {
		t.Fatalf("CreateAccount = %+v, %v", acct, err)
	}
	tok, err := svc.CreateToken(ctx, acct.ID, "ci")
	if err != nil {
		t.Fatal(err)
	}
	p, err := svc.Authenticate(ctx, "Bearer "+tok.Secret)
	if err != nil || p.Account.ID != acct.ID || p.Token.ID != tok.Token.ID {
		t.Fatalf("Authenticate = %+v, %v", p, err)
	}
	if p.Credits.AccountID != acct.ID || p.Credits.Plan != "basic" {
		t.Fatalf("Authenticate dropped the credit row read with the token: %+v", p.Credits)
	}
	stored := storedToken(t, store, tok.Secret)
	if stored.LastUsedAt == nil || !stored.LastUsedAt.Equal(t0) {
		t.Fatalf("first use not recorded: %v", stored.LastUsedAt)
	}
	clock.Advance(30 * time.Second)
	_, _ = svc.Authenticate(ctx, "Bearer "+tok.Secret)
	stored = storedToken(t, store, tok.Secret)
	if !stored.LastUsedAt.Equal(t0) {
		t.Fatal("last_used_at written again within a minute")
	}
	clock.Advance(31 * time.Second)
	_, _ = svc.Authenticate(ctx, "Bearer "+tok.Secret)
	stored = storedToken(t, store, tok.Secret)
	if !stored.LastUsedAt.Equal(t0.Add(61 * time.Second)) {
		t.Fatalf("last_used_at not refreshed after a minute: %v", stored.LastUsedAt)
	}

	for _, h := range []string{"", "Bearer nope", "Bearer trawl_" + strings.Repeat("Z", 40)} {
		if _, err := svc.Authenticate(ctx, h); !failure.Is(err, failure.Unauthenticated) {
			t.Errorf("Authenticate(%q) = %v", h, err)
		}
	}
	other, err := svc.CreateAccount(ctx, "other@example.com", "", "basic")
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.DeleteToken(ctx, other.ID, tok.Token.ID); !failure.Is(err, failure.NotFound) || failure.Public(err, "") != "There is no such token in your account." {
		t.Fatalf("another account's token deleted: %v", err)
	}
	if err := svc.DeleteToken(ctx, acct.ID, tok.Token.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Authenticate(ctx, "Bearer "+tok.Secret); !failure.Is(err, failure.Unauthenticated) {
		t.Fatalf("deleted token: %v", err)
	}
	if err := svc.DeleteToken(ctx, acct.ID, tok.Token.ID); !failure.Is(err, failure.NotFound) {
		t.Fatalf("deleted twice: %v", err)
	}
}

func TestTokenCapPerPlan(t *testing.T) {
	svc, _, _ := newService(t)
	ctx := context.Background()
	for plan, cap := range map[string]int{"": 1, "basic": 1, "pro": 3, "business": 5} {
		acct, err := svc.CreateAccount(ctx, "cap-"+plan+"@example.com", "", plan)
		if err != nil {
			t.Fatal(err)
		}
		for i := range cap {
			if _, err := svc.CreateToken(ctx, acct.ID, ""); err != nil {
				t.Fatalf("%s token %d: %v", plan, i+1, err)
			}
		}
		_, err = svc.CreateToken(ctx, acct.ID, "")
		if !failure.Is(err, failure.Conflict) || !strings.Contains(err.Error(), "allows") {
			t.Errorf("%s over cap: %v", plan, err)
		}
	}
}

// Only an account with a verified address creates its own tokens; an
// operator issues them to any account.
func TestCreateOwnTokenNeedsAVerifiedAddress(t *testing.T) {
	svc, store, _ := newService(t)
	ctx := context.Background()
	// Signed up on the dashboard: the address is not verified yet.
	acct, err := store.CreateAccount(ctx, ports.Account{Email: "own@example.com", Plan: "pro", CreatedAt: t0, UpdatedAt: t0})
	if err != nil {
		t.Fatal(err)
	}
	_, err = svc.CreateOwnToken(ctx, acct.ID, "mine")
	if fe, ok := failure.As(err); !ok || fe.Kind != failure.Invalid || !strings.Contains(fe.Fields["name"][0], "Verify your email address first") ||
		!strings.Contains(fe.Fields["name"][0], "own@example.com") {
		t.Fatalf("unverified = %v", err)
	}
	if _, err := svc.CreateToken(ctx, acct.ID, "by operator"); err != nil {
		t.Fatalf("operator token for an unverified account: %v", err)
	}
	if err := store.MarkEmailVerified(ctx, acct.ID, t0); err != nil {
		t.Fatal(err)
	}
	tok, err := svc.CreateOwnToken(ctx, acct.ID, "mine")
	if err != nil || tok.Token.Name != "mine" {
		t.Fatalf("verified = %+v, %v", tok, err)
	}
	got, err := svc.Token(ctx, acct.ID, tok.Token.ID)
	if err != nil || got.ID != tok.Token.ID || got.Name != "mine" {
		t.Fatalf("Token = %+v, %v", got, err)
	}
	other, _ := svc.CreateAccount(ctx, "other@example.com", "", "basic")
	for _, c := range []struct{ account, token int64 }{{other.ID, tok.Token.ID}, {acct.ID, 0}, {acct.ID, tok.Token.ID + 100}} {
		if _, err := svc.Token(ctx, c.account, c.token); !failure.Is(err, failure.NotFound) || failure.Public(err, "") != "There is no such token in your account." {
			t.Errorf("Token(%d, %d) = %v", c.account, c.token, err)
		}
	}
}

func TestAtCap(t *testing.T) {
	pro, _ := billing.DefaultPlans().ByName("pro")
	for active, want := range map[int]bool{0: false, pro.MaxTokens - 1: false, pro.MaxTokens: true, pro.MaxTokens + 1: true} {
		if got := auth.AtCap(pro, active); got != want {
			t.Errorf("AtCap(pro, %d) = %v, want %v", active, got, want)
		}
	}
}

func TestCreateAccountValidation(t *testing.T) {
	svc, _, _ := newService(t)
	ctx := context.Background()
	for _, c := range []struct{ email, plan, field string }{
		{"not-an-email", "basic", "email"},
		{"a b@example.com", "basic", "email"},
		{"Name <x@example.com>", "basic", "email"},
		{"ok@example.com", "gold", "plan"},
	} {
		_, err := svc.CreateAccount(ctx, c.email, "", c.plan)
		if names := failure.FieldNames(err); len(names) != 1 || names[0] != c.field {
			t.Errorf("CreateAccount(%q, %q) = %v", c.email, c.plan, err)
		}
	}
	if _, err := svc.CreateAccount(ctx, "dup@example.com", "", "none"); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreateAccount(ctx, "DUP@example.com", "", "none"); !failure.Is(err, failure.Conflict) {
		t.Fatalf("duplicate (case-insensitive) email: %v", err)
	}
	acct, _ := svc.AccountByEmail(ctx, "dup@example.com")
	if _, err := svc.CreateToken(ctx, acct.ID, strings.Repeat("n", 101)); !failure.Is(err, failure.Invalid) {
		t.Fatalf("long token name: %v", err)
	}
}

func TestCapMessage(t *testing.T) {
	for plan, want := range map[string]string{
		"":         "Without a plan Trawl allows 1 active token; delete it first, or subscribe to a plan for more.",
		"basic":    "The Basic plan allows 1 active token; delete one first, or move to a larger plan.",
		"business": "The Business plan allows 5 active tokens; delete one first, or move to a larger plan.",
	} {
		if got := auth.CapMessage(billing.DefaultPlans().Must(plan)); got != want {
			t.Errorf("CapMessage(%q) = %q, want %q", plan, got, want)
		}
	}
}

// storedToken reads the token row as the store keeps it.
func storedToken(t *testing.T, store ports.TokenStore, secret string) ports.PrincipalToken {
	t.Helper()
	p, err := store.PrincipalByTokenHash(context.Background(), auth.HashSecret(secret))
	if err != nil {
		t.Fatalf("token not found: %v", err)
	}
	return p.Token
}

// Bootstrap creates the local account with one token on an empty store only.
func TestBootstrap(t *testing.T) {
	svc, store, _ := newService(t)
	ctx := context.Background()
	b, created, err := svc.Bootstrap(ctx)
	if err != nil || !created || b.Account.Email != auth.BootstrapEmail || b.Account.Plan != auth.BootstrapPlan ||
		b.Plan.Name != auth.BootstrapPlan || b.Token.Secret == "" {
		t.Fatalf("Bootstrap = %+v, %v, %v", b, created, err)
	}
	if p, err := svc.Authenticate(ctx, "Bearer "+b.Token.Secret); err != nil || p.Account.ID != b.Account.ID {
		t.Fatalf("bootstrap token: %+v, %v", p, err)
	}
	if _, created, err := svc.Bootstrap(ctx); err != nil || created {
		t.Fatalf("second Bootstrap = %v, %v", created, err)
	}
	if n, _ := store.CountAccounts(ctx); n != 1 {
		t.Fatalf("accounts = %d", n)
	}
}

func TestWellFormedRefusesWhatIsNotBase62(t *testing.T) {
	body := strings.Repeat("aZ09", 10)
	if !auth.WellFormed("trawl_" + body) {
		t.Fatal("a token of base62 characters refused")
	}
	for _, s := range []string{
		"trawl_" + body[:39] + "-", "trawl_" + body[:39] + "_", "trawl_" + body[:38] + "é", "trawl_" + body[:39] + "\xff",
		"trawl_" + body[:39] + " ", "Trawl_" + body, "trawl_" + body[:39], "trawl_" + body + "a",
	} {
		if auth.WellFormed(s) {
			t.Errorf("WellFormed(%q) = true", s)
		}
	}
}

func TestHashSecretIsHexSHA256(t *testing.T) {
	for s, want := range map[string]string{
		"":    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
		"abc": "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
		// longer than a token: hashed all the same
		strings.Repeat("a", 1000): "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3",
	} {
		if got := auth.HashSecret(s); got != want {
			t.Errorf("HashSecret(%.10q...) = %s, want %s", s, got, want)
		}
	}
	secret := "trawl_" + strings.Repeat("aZ09", 10)
	if n := testing.AllocsPerRun(100, func() { _ = auth.HashSecret(secret) }); n > 1 {
		t.Errorf("HashSecret allocates %.0f times, want the string only", n)
	}
}

// hashBending answers a lookup with the token whose hash differs from the
// one asked for in one place: a store whose index matched loosely.
type hashBending struct {
	*memstore.Store
	flip int
}

func (h hashBending) PrincipalByTokenHash(ctx context.Context, hash string) (ports.Principal, error) {
	p, err := h.Store.PrincipalByTokenHash(ctx, hash)
	b := []byte(p.Token.Hash)
	b[h.flip] ^= 1
	p.Token.Hash = string(b)
	return p, err
}

// The hash the store answers with is compared again, whole: a difference
// anywhere in it, first byte or last, refuses the token.
func TestAuthenticateComparesTheStoredHash(t *testing.T) {
	_, store, clock := newService(t)
	ctx := context.Background()
	plain, _ := auth.NewService(store, store, clock, billing.DefaultPlans())
	acct, _ := plain.CreateAccount(ctx, "dev@example.com", "", "basic")
	tok, err := plain.CreateToken(ctx, acct.ID, "ci")
	if err != nil {
		t.Fatal(err)
	}
	for _, flip := range []int{0, 31, 63} {
		bent := hashBending{Store: store, flip: flip}
		svc, _ := auth.NewService(store, bent, clock, billing.DefaultPlans())
		if _, err := svc.Authenticate(ctx, "Bearer "+tok.Secret); !failure.Is(err, failure.Unauthenticated) {
			t.Errorf("stored hash differing at byte %d: %v, want Unauthenticated", flip, err)
		}
	}
	if _, err := plain.Authenticate(ctx, "Bearer "+tok.Secret); err != nil {
		t.Fatalf("the token itself: %v", err)
	}
}
