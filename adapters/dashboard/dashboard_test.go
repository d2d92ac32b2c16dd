package dashboard_test

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/trawlhq/trawl/adapters/dashboard"
	"github.com/trawlhq/trawl/core/auth"
	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/ports"
	"github.com/trawlhq/trawl/testkit"
	"github.com/trawlhq/trawl/testkit/apitest"
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

var linkRE = regexp.MustCompile(`http://\S+/dashboard/(verify|reset)\?token=(\S+)`)

func (o *outbox) lastToken(t *testing.T) string {
	t.Helper()
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.mail) == 0 {
		t.Fatal("no mail")
	}
	m := linkRE.FindStringSubmatch(o.mail[len(o.mail)-1].Text)
	if m == nil {
		t.Fatalf("no link in %q", o.mail[len(o.mail)-1].Text)
	}
	tok, _ := url.QueryUnescape(m[2])
	return tok
}

type env struct {
	srv   *httptest.Server
	api   *apitest.Env
	store *memstore.Store
	auth  *auth.Service
	mail  *outbox
	clock *testkit.Clock
}

// newEnv serves the dashboard beside the whole JSON API, over one
// in-memory store, as the server does.
func newEnv(t *testing.T) *env {
	t.Helper()
	store := memstore.New()
	mail := &outbox{}
	api := apitest.Start(t, store, apitest.Options{NoWorker: true, Mailer: mail})
	e := &env{srv: api.Server, api: api, store: store, auth: api.Auth, mail: mail, clock: api.Clock}
	d, err := dashboard.New(api.Services, dashboard.Options{PublicURL: api.Server.URL})
	if err != nil {
		t.Fatal(err)
	}
	api.API.Mount(dashboard.Prefix, d.Handler())
	for _, p := range dashboard.RootPatterns {
		api.API.Mount(p, d.Handler())
	}
	return e
}

// browser is a client with cookies that does not follow redirects, so
// tests see each answer.
type browser struct {
	t   *testing.T
	e   *env
	c   *http.Client
	jar *cookiejar.Jar
}

func (e *env) browser(t *testing.T) *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{t: t, e: e, jar: jar, c: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

type page struct {
	status int
	body   string
	header http.Header
}

func (b *browser) do(req *http.Request) page {
	b.t.Helper()
	res, err := b.c.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	return page{status: res.StatusCode, body: string(raw), header: res.Header}
}

func (b *browser) get(path string) page {
	req, _ := http.NewRequest("GET", b.e.srv.URL+path, nil)
	req.Header.Set("Sec-Fetch-Site", "none")
	return b.do(req)
}

// post sends a form the way a browser does from one of the dashboard's own
// pages: same-origin fetch metadata and Origin.
func (b *browser) post(path string, form url.Values, headers ...string) page {
	req, _ := http.NewRequest("POST", b.e.srv.URL+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	req.Header.Set("Origin", b.e.srv.URL)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	return b.do(req)
}

// posted sends a form and checks the answer is a redirect to want (post,
// redirect, get: a reload never sends the form again), then follows it.
func (b *browser) posted(path string, form url.Values, want string) page {
	b.t.Helper()
	p := b.post(path, form)
	if p.status != http.StatusSeeOther || p.header.Get("Location") != want {
		b.t.Fatalf("POST %s: %d to %q, want 303 to %q\n%s", path, p.status, p.header.Get("Location"), want, p.body)
	}
	return b.get(want)
}

func (b *browser) session() string {
	u, _ := url.Parse(b.e.srv.URL)
	for _, c := range b.jar.Cookies(u) {
		if c.Name == "trawl_session" {
			return c.Value
		}
	}
	return ""
}

// signUp creates a verified account and signs the browser in.
func (b *browser) signUp(email string) {
	b.t.Helper()
	p := b.post("/dashboard/signup", url.Values{"email": {email}, "password": {"a long passphrase"}, "password_confirmation": {"a long passphrase"}})
	if p.status != http.StatusSeeOther || p.header.Get("Location") != "/dashboard/signin?signedup=1" {
		b.t.Fatalf("sign up: %d %v %s", p.status, p.header, p.body)
	}
	if p := b.post("/dashboard/verify", url.Values{"token": {b.e.mail.lastToken(b.t)}}); p.status != http.StatusSeeOther || p.header.Get("Location") != "/dashboard/signin?verified=1" {
		b.t.Fatalf("verify: %d %v %s", p.status, p.header, p.body)
	}
	b.signIn(email, "a long passphrase")
}

func (b *browser) signIn(email, pw string) {
	b.t.Helper()
	p := b.post("/dashboard/signin", url.Values{"email": {email}, "password": {pw}})
	if p.status != http.StatusSeeOther || p.header.Get("Location") != "/dashboard/tokens" {
		b.t.Fatalf("sign in: %d %s", p.status, p.body)
	}
}

var secretRE = regexp.MustCompile(`value="(trawl_[0-9A-Za-z]{40})"`)

func TestTokenLifecycle(t *testing.T) {
	e := newEnv(t)
	b := e.browser(t)
	if p := b.get("/dashboard/tokens"); p.status != http.StatusSeeOther || p.header.Get("Location") != "/dashboard/signin" {
		t.Fatalf("signed out: %d %v", p.status, p.header)
	}
	b.signUp("ada@example.com")
	p := b.get("/dashboard/tokens")
	if p.status != 200 || !strings.Contains(p.body, "You have no tokens yet") || !strings.Contains(p.body, "0 of 1 active token allowed on no plan") {
		t.Fatalf("tokens page: %d %s", p.status, p.body)
	}
	if p.header.Get("Cache-Control") != "no-store" || p.header.Get("Referrer-Policy") != "no-referrer" {
		t.Fatalf("headers %v", p.header)
	}
	p = b.posted("/dashboard/tokens", url.Values{"name": {"production crawler"}}, "/dashboard/tokens?created=1")
	m := secretRE.FindStringSubmatch(p.body)
	if p.status != http.StatusOK || m == nil || !strings.Contains(p.body, "only time it is shown") {
		t.Fatalf("create: %d %s", p.status, p.body)
	}
	secret := m[1]
	// A reload shows it no more.
	if p := b.get("/dashboard/tokens?created=1"); strings.Contains(p.body, secret) || strings.Contains(p.body, "only time it is shown") {
		t.Fatalf("the secret was shown twice: %s", p.body)
	}
	principal, err := e.auth.Authenticate(context.Background(), "Bearer "+secret)
	if err != nil {
		t.Fatalf("the new token does not authenticate: %v", err)
	}
	if tok, err := e.auth.Token(context.Background(), principal.Account.ID, principal.Token.ID); err != nil || tok.Name != "production crawler" {
		t.Fatalf("the new token = %+v, %v", tok, err)
	}
	if r := e.api.Do("GET", "/v1/credits", secret, nil); r.Status != 200 {
		t.Fatalf("the API with the new token: %d %s", r.Status, r.Body)
	}
	if r := e.api.Do("GET", "/v1/content?url=https://example.com/", secret, nil); r.Status != http.StatusPaymentRequired {
		t.Fatalf("a billed call without a plan: %d %s", r.Status, r.Body)
	}
	// Afterwards the list shows the preview and last use, never the secret.
	p = b.get("/dashboard/tokens")
	if strings.Contains(p.body, secret) || !strings.Contains(p.body, auth.Preview(secret)) || !strings.Contains(p.body, "2026-06-15 12:00 UTC") {
		t.Fatalf("list after create: %s", p.body)
	}
	// The plan's cap, with the reason beside the name field.
	p = b.post("/dashboard/tokens", url.Values{"name": {"second"}})
	if p.status != http.StatusConflict || !strings.Contains(p.body, `id="name-error">Without a plan Trawl allows 1 active token`) {
		t.Fatalf("over the cap: %d %s", p.status, p.body)
	}
	// Delete: a confirmation page, then the token stops working at once.
	id := principal.Token.ID
	path := "/dashboard/tokens/" + strconv.FormatInt(id, 10) + "/delete"
	if p := b.get(path); p.status != 200 || !strings.Contains(p.body, "Delete the token <strong>production crawler</strong>") {
		t.Fatalf("confirm page: %d %s", p.status, p.body)
	}
	if p := b.post(path, nil); p.status != http.StatusSeeOther || p.header.Get("Location") != "/dashboard/tokens?deleted=1" {
		t.Fatalf("delete: %d %s", p.status, p.body)
	}
	if _, err := e.auth.Authenticate(context.Background(), "Bearer "+secret); !failure.Is(err, failure.Unauthenticated) {
		t.Fatalf("deleted token still authenticates: %v", err)
	}
	if r := e.api.Do("GET", "/v1/credits", secret, nil); r.Status != http.StatusUnauthorized {
		t.Fatalf("the API after deletion: %d", r.Status)
	}
	if p := b.get("/dashboard/tokens?deleted=1"); !strings.Contains(p.body, "The token was deleted") || !strings.Contains(p.body, "You have no tokens yet") {
		t.Fatalf("after delete: %s", p.body)
	}
}

func TestFieldErrorsBesideTheField(t *testing.T) {
	e := newEnv(t)
	b := e.browser(t)
	p := b.post("/dashboard/signup", url.Values{"email": {"not-an-email"}, "password": {"short"}, "password_confirmation": {"short"}})
	if p.status != http.StatusUnprocessableEntity {
		t.Fatalf("status %d", p.status)
	}
	for _, want := range []string{
		`<label for="email">Email</label>`,
		`id="email-error">The email must be a valid email address.`,
		`id="password-error">The password must be at least 10 characters.`,
		`value="not-an-email"`, `aria-invalid="true"`,
	} {
		if !strings.Contains(p.body, want) {
			t.Errorf("missing %q in %s", want, p.body)
		}
	}
	if strings.Contains(p.body, `value="short"`) {
		t.Error("the password was written back into the page")
	}
	p = b.post("/dashboard/signup", url.Values{"email": {"x@example.com"}, "password": {"a long passphrase"}, "password_confirmation": {"another one here"}})
	if p.status != http.StatusUnprocessableEntity || !strings.Contains(p.body, `id="password_confirmation-error">The two passwords do not match.`) {
		t.Fatalf("mismatch: %d %s", p.status, p.body)
	}
	// Three fields wrong at once: each says so beside itself.
	p = b.post("/dashboard/signup", url.Values{"email": {"nope"}, "password": {"short"}, "password_confirmation": {"other"}})
	for _, want := range []string{
		`id="email-error">The email must be a valid email address.`,
		`id="password-error">The password must be at least 10 characters.`,
		`id="password_confirmation-error">The two passwords do not match.`,
	} {
		if p.status != http.StatusUnprocessableEntity || !strings.Contains(p.body, want) {
			t.Errorf("three errors: %d, missing %q", p.status, want)
		}
	}
	// The reset form likewise.
	p = b.post("/dashboard/reset", url.Values{"token": {"any"}, "password": {"short"}, "password_confirmation": {"other"}})
	if p.status != http.StatusUnprocessableEntity || !strings.Contains(p.body, `id="password-error">The password must be at least 10`) ||
		!strings.Contains(p.body, `id="password_confirmation-error">The two passwords do not match.`) {
		t.Errorf("reset with two errors: %d %s", p.status, p.body)
	}
}

func TestUnverifiedAccountCannotCreateTokens(t *testing.T) {
	e := newEnv(t)
	b := e.browser(t)
	b.post("/dashboard/signup", url.Values{"email": {"new@example.com"}, "password": {"a long passphrase"}, "password_confirmation": {"a long passphrase"}})
	b.signIn("new@example.com", "a long passphrase")
	p := b.get("/dashboard/tokens")
	if !strings.Contains(p.body, "Verify your email address to create API tokens") {
		t.Fatalf("no banner: %s", p.body)
	}
	p = b.post("/dashboard/tokens", url.Values{"name": {"x"}})
	if p.status != http.StatusUnprocessableEntity || !strings.Contains(p.body, `id="name-error">Verify your email address first`) {
		t.Fatalf("create unverified: %d %s", p.status, p.body)
	}
	if toks, _ := e.store.ListTokens(context.Background(), 1); len(toks) != 0 {
		t.Fatal("a token was created")
	}
	// Resend, then the new link verifies.
	if p := b.post("/dashboard/verify/resend", nil); p.status != http.StatusSeeOther {
		t.Fatalf("resend: %d", p.status)
	}
	if p := b.post("/dashboard/verify", url.Values{"token": {e.mail.lastToken(t)}}); p.status != http.StatusSeeOther || p.header.Get("Location") != "/dashboard/tokens?verified=1" {
		t.Fatalf("verify while signed in: %d %v", p.status, p.header)
	}
	if p := b.posted("/dashboard/tokens", url.Values{"name": {"x"}}, "/dashboard/tokens?created=1"); !secretRE.MatchString(p.body) {
		t.Fatalf("create after verifying: %d %s", p.status, p.body)
	}
}

func TestCrossSiteFormsRefused(t *testing.T) {
	e := newEnv(t)
	b := e.browser(t)
	b.signUp("victim@example.com")
	for name, headers := range map[string][]string{
		"fetch metadata": {"Sec-Fetch-Site", "cross-site", "Origin", "https://evil.example"},
		"origin only":    {"Sec-Fetch-Site", "", "Origin", "https://evil.example"},
	} {
		p := b.post("/dashboard/tokens", url.Values{"name": {"planted"}}, headers...)
		if p.status != http.StatusForbidden || !strings.Contains(p.body, "sent from another site") {
			t.Errorf("%s: %d %s", name, p.status, p.body)
		}
		p = b.post("/dashboard/signout", nil, headers...)
		if p.status != http.StatusForbidden {
			t.Errorf("%s sign out: %d", name, p.status)
		}
	}
	if toks, _ := e.store.ListTokens(context.Background(), 1); len(toks) != 0 {
		t.Fatalf("a cross-site form created %d token(s)", len(toks))
	}
	if p := b.get("/dashboard/tokens"); p.status != 200 {
		t.Fatalf("a cross-site form signed the user out: %d", p.status)
	}
}

func TestSessionFixation(t *testing.T) {
	e := newEnv(t)
	victim := e.browser(t)
	victim.post("/dashboard/signup", url.Values{"email": {"fix@example.com"}, "password": {"a long passphrase"}, "password_confirmation": {"a long passphrase"}})
	// An attacker plants a session id in the victim's browser.
	u, _ := url.Parse(e.srv.URL)
	planted := "attacker-chosen-session-id-0123456789abcdef"
	victim.jar.SetCookies(u, []*http.Cookie{{Name: "trawl_session", Value: planted, Path: "/"}})
	res := victim.post("/dashboard/signin", url.Values{"email": {"fix@example.com"}, "password": {"a long passphrase"}})
	c := res.header.Get("Set-Cookie")
	if !strings.Contains(c, "HttpOnly") || !strings.Contains(c, "SameSite=Lax") || !strings.Contains(c, "Path=/") {
		t.Fatalf("cookie %q", c)
	}
	got := victim.session()
	if got == "" || got == planted {
		t.Fatalf("session id after sign-in = %q (planted %q)", got, planted)
	}
	attacker := e.browser(t)
	attacker.jar.SetCookies(u, []*http.Cookie{{Name: "trawl_session", Value: planted, Path: "/"}})
	if p := attacker.get("/dashboard/tokens"); p.status != http.StatusSeeOther {
		t.Fatalf("the planted id is signed in: %d", p.status)
	}
	// Signing in again replaces the session: the first id stops working.
	first := got
	victim.signIn("fix@example.com", "a long passphrase")
	if victim.session() == first {
		t.Fatal("sign-in kept the session id")
	}
	old := e.browser(t)
	old.jar.SetCookies(u, []*http.Cookie{{Name: "trawl_session", Value: first, Path: "/"}})
	if p := old.get("/dashboard/tokens"); p.status != http.StatusSeeOther {
		t.Fatalf("the replaced session still works: %d", p.status)
	}
	// Sign out ends the session server-side.
	cur := victim.session()
	if p := victim.posted("/dashboard/signout", nil, "/dashboard/signin?signedout=1"); p.status != 200 || !strings.Contains(p.body, "You are signed out") {
		t.Fatalf("sign out: %d", p.status)
	}
	replay := e.browser(t)
	replay.jar.SetCookies(u, []*http.Cookie{{Name: "trawl_session", Value: cur, Path: "/"}})
	if p := replay.get("/dashboard/tokens"); p.status != http.StatusSeeOther {
		t.Fatalf("a signed-out session still works: %d", p.status)
	}
}

func TestAnotherAccountsTokenIsNotFound(t *testing.T) {
	e := newEnv(t)
	alice, bob := e.browser(t), e.browser(t)
	alice.signUp("alice@example.com")
	bob.signUp("bob@example.com")
	bob.posted("/dashboard/tokens", url.Values{"name": {"bob's"}}, "/dashboard/tokens?created=1")
	bobAcct, _ := e.store.AccountByEmail(context.Background(), "bob@example.com")
	toks, _ := e.store.ListTokens(context.Background(), bobAcct.ID)
	path := "/dashboard/tokens/" + strconv.FormatInt(toks[0].ID, 10) + "/delete"
	const noSuch = "There is no such token in your account."
	if p := alice.get(path); p.status != http.StatusNotFound || strings.Contains(p.body, "bob") || !strings.Contains(p.body, noSuch) {
		t.Fatalf("alice sees bob's token: %d %s", p.status, p.body)
	}
	if p := alice.post(path, nil); p.status != http.StatusNotFound || !strings.Contains(p.body, noSuch) {
		t.Fatalf("alice deletes bob's token: %d %s", p.status, p.body)
	}
	for _, bad := range []string{"/dashboard/tokens/999999/delete", "/dashboard/tokens/abc/delete"} {
		if p := alice.post(bad, nil); p.status != http.StatusNotFound || !strings.Contains(p.body, noSuch) {
			t.Fatalf("%s: %d %s", bad, p.status, p.body)
		}
		if p := alice.get(bad); p.status != http.StatusNotFound || !strings.Contains(p.body, noSuch) {
			t.Fatalf("GET %s: %d %s", bad, p.status, p.body)
		}
	}
	if left, _ := e.store.ListTokens(context.Background(), bobAcct.ID); len(left) != 1 {
		t.Fatal("bob's token is gone")
	}
}

func TestSignInThrottled(t *testing.T) {
	e := newEnv(t)
	b := e.browser(t)
	b.post("/dashboard/signup", url.Values{"email": {"slow@example.com"}, "password": {"a long passphrase"}, "password_confirmation": {"a long passphrase"}})
	// Ten failures an hour from browsers that never signed in to the account.
	for i := range 10 {
		p := b.post("/dashboard/signin", url.Values{"email": {"slow@example.com"}, "password": {"wrong guess " + strconv.Itoa(i)}})
		if p.status != http.StatusUnprocessableEntity || !strings.Contains(p.body, `id="password-error">The email or password is incorrect.`) {
			t.Fatalf("attempt %d: %d %s", i+1, p.status, p.body)
		}
	}
	p := b.post("/dashboard/signin", url.Values{"email": {"slow@example.com"}, "password": {"a long passphrase"}})
	if p.status != http.StatusTooManyRequests || p.header.Get("Retry-After") == "" || !strings.Contains(p.body, "Too many sign-in attempts") {
		t.Fatalf("eleventh attempt: %d %v %s", p.status, p.header, p.body)
	}
	if b.session() != "" {
		t.Fatal("a throttled sign-in set a session")
	}
	e.clock.Advance(61 * time.Minute)
	b.signIn("slow@example.com", "a long passphrase")
}

func TestPasswordResetFlow(t *testing.T) {
	e := newEnv(t)
	b := e.browser(t)
	b.signUp("reset@example.com")
	other := e.browser(t)
	if p := other.posted("/dashboard/forgot", url.Values{"email": {"reset@example.com"}}, "/dashboard/forgot?sent=1"); p.status != 200 || !strings.Contains(p.body, "a link to reset its password is on its way") {
		t.Fatalf("forgot: %d %s", p.status, p.body)
	}
	tok := e.mail.lastToken(t)
	if p := other.get("/dashboard/reset?token=" + url.QueryEscape(tok)); p.status != 200 || !strings.Contains(p.body, `name="token" value="`) {
		t.Fatalf("reset page: %d", p.status)
	}
	if p := other.posted("/dashboard/reset", url.Values{"token": {tok}, "password": {"a brand new passphrase"}, "password_confirmation": {"a brand new passphrase"}}, "/dashboard/signin?reset=1"); !strings.Contains(p.body, "Your password is changed") {
		t.Fatalf("reset: %d %s", p.status, p.body)
	}
	if p := b.get("/dashboard/tokens"); p.status != http.StatusSeeOther {
		t.Fatalf("the old browser is still signed in after a reset: %d", p.status)
	}
	other.signIn("reset@example.com", "a brand new passphrase")
}

func TestNotFoundPage(t *testing.T) {
	e := newEnv(t)
	if p := e.browser(t).get("/dashboard/nothing-here"); p.status != http.StatusNotFound || !strings.Contains(p.body, "<h1>Not found</h1>") {
		t.Fatalf("%d %s", p.status, p.body)
	}
}
