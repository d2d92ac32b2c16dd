package e2e

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/trawlhq/trawl/testkit/sites"
)

// shots is where page screenshots go: $TRAWL_ARTIFACTS/dashboard when set
// (CI keeps them), else a temporary directory.
func shots(t *testing.T) func(ctx context.Context, name string) {
	dir := t.TempDir()
	if a := os.Getenv("TRAWL_ARTIFACTS"); a != "" {
		dir = filepath.Join(a, "dashboard")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return func(ctx context.Context, name string) {
		t.Helper()
		png := run(t, ctx, chromedp.FullScreenshot(90))
		if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

var mailLinkRE = regexp.MustCompile(`(http://[^\s]+/dashboard/verify\?token=)(?:3D)?([A-Za-z0-9_-]+)`)

// verificationLink reads the newest message in the server's outbox.
func verificationLink(t *testing.T, dataDir string) string {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		files, _ := filepath.Glob(filepath.Join(dataDir, "outbox", "*.eml"))
		if len(files) > 0 {
			raw, err := os.ReadFile(files[len(files)-1])
			if err != nil {
				t.Fatal(err)
			}
			// Undo quoted-printable soft line breaks and the escaped "=".
			text := strings.ReplaceAll(string(raw), "=\r\n", "")
			if m := mailLinkRE.FindStringSubmatch(text); m != nil {
				return m[1] + m[2]
			}
			t.Fatalf("no verification link in %s", text)
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("no mail in the outbox")
	return ""
}

// TestBrowserDashboard is a customer's first visit: sign up, verify the
// address from the email, sign in, create a token and call the API with it,
// see its last use, hit the plan's cap, subscribe to a plan, use the API,
// read the usage, buy a top-up, see the bulk job and the webhook secret,
// delete the token and be refused.
func TestBrowserDashboard(t *testing.T) {
	ctx := browser(t)
	shot := shots(t)
	dataDir := t.TempDir()
	site, pages, _ := articleSite(t, "articles.test", 3, 0)
	s := start(t, []string{"--data-dir", dataDir, "--resolve", sites.ResolveFlags(site)[0]})
	notice := chromedp.CSS(".notice")
	submit := func(form string) chromedp.Action[chromedp.Void] {
		return chromedp.Click(chromedp.CSS(`form[action="` + form + `"] button[type="submit"]`))
	}

	// The front page leads to the dashboard.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1100, 800), chromedp.Navigate(s.base+"/"), chromedp.WaitVisible(chromedp.CSS(`main a[href="/docs"]`)),
		chromedp.Click(chromedp.CSS(`main a[href="/dashboard/"]`)), chromedp.WaitVisible(chromedp.CSS("#password"))); err != nil {
		t.Fatalf("open the dashboard from the front page: %v", err)
	}
	if loc := run(t, ctx, chromedp.Location()); loc != s.base+"/dashboard/signin" {
		t.Fatalf("signed out, /dashboard/ went to %s", loc)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(s.base+"/dashboard/signup"), chromedp.WaitVisible(chromedp.CSS("#password_confirmation")),
		chromedp.SendKeys(chromedp.CSS("#email"), "ada@example.com"), chromedp.SendKeys(chromedp.CSS("#password"), "short"),
		chromedp.SendKeys(chromedp.CSS("#password_confirmation"), "short"), submit("/dashboard/signup"),
		chromedp.WaitVisible(chromedp.CSS("#password-error"))); err != nil {
		t.Fatalf("sign up with a short password: %v", err)
	}
	if msg := run(t, ctx, chromedp.Text(chromedp.CSS("#password-error"))); !strings.Contains(msg, "at least 10 characters") {
		t.Fatalf("password error %q", msg)
	}
	shot(ctx, "01-signup-error")
	if err := chromedp.Do(ctx, chromedp.SendKeys(chromedp.CSS("#password"), "a long passphrase"),
		chromedp.SendKeys(chromedp.CSS("#password_confirmation"), "a long passphrase"), submit("/dashboard/signup"), chromedp.WaitVisible(notice)); err != nil {
		t.Fatalf("sign up: %v", err)
	}
	shot(ctx, "02-signed-up")

	link := verificationLink(t, dataDir)
	if err := chromedp.Do(ctx, chromedp.Navigate(link), chromedp.WaitVisible(chromedp.CSS(`form[action="/dashboard/verify"]`))); err != nil {
		t.Fatalf("open the link: %v", err)
	}
	shot(ctx, "03-verify")
	if err := chromedp.Do(ctx, submit("/dashboard/verify"), chromedp.WaitVisible(notice)); err != nil {
		t.Fatalf("verify: %v", err)
	}
	if msg := run(t, ctx, chromedp.Text(notice)); !strings.Contains(msg, "Your email is verified") {
		t.Fatalf("after verifying: %q", msg)
	}
	if err := chromedp.Do(ctx, chromedp.SendKeys(chromedp.CSS("#email"), "ada@example.com"), chromedp.SendKeys(chromedp.CSS("#password"), "a long passphrase"), submit("/dashboard/signin"),
		chromedp.WaitVisible(chromedp.CSS("#name"))); err != nil {
		t.Fatalf("sign in: %v", err)
	}
	shot(ctx, "04-tokens-empty")

	if err := chromedp.Do(ctx, chromedp.SendKeys(chromedp.CSS("#name"), "e2e crawler"), submit("/dashboard/tokens"), chromedp.WaitVisible(chromedp.CSS("#secret"))); err != nil {
		t.Fatalf("create a token: %v", err)
	}
	token := run(t, ctx, chromedp.Value(chromedp.CSS("#secret")))
	if !tokenRE.MatchString(token) {
		t.Fatalf("secret field holds %q", token)
	}
	// The form answered with a redirect: the page is a GET, so a reload
	// sends nothing again, and the secret is not shown a second time.
	if loc := run(t, ctx, chromedp.Location()); loc != s.base+"/dashboard/tokens?created=1" {
		t.Fatalf("after creating a token the browser is at %s", loc)
	}
	// The script that shows the button arrives after the page: wait for it.
	if shown := run(t, ctx, chromedp.Poll[bool](`!document.querySelector("[data-copy]").hidden`, chromedp.WithPollingTimeout(10*time.Second))); !shown {
		t.Fatal("the copy button stayed hidden with scripts on")
	}
	shot(ctx, "05-token-created")
	if err := chromedp.Do(ctx, chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS("table"))); err != nil {
		t.Fatalf("reload: %v", err)
	}
	if secrets, rows := run(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll("#secret").length`)), run(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll("tbody tr").length`)); secrets != 0 || rows != 1 {
		t.Fatalf("after a reload: %d secrets shown, %d tokens", secrets, rows)
	}

	if code, body := get(t, s.base+"/v1/credits", token); code != 200 || body["plan"] != nil && body["plan"] != "" {
		t.Fatalf("GET /v1/credits with the new token: %d %v", code, body)
	}
	if code, body := get(t, s.base+"/v1/content?url=https://example.com/", token); code != 402 {
		t.Fatalf("billed call without a plan: %d %v", code, body)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(s.base+"/dashboard/tokens"), chromedp.WaitVisible(chromedp.CSS("table"))); err != nil {
		t.Fatal(err)
	}
	lastUsed := run(t, ctx, chromedp.Text(chromedp.CSS(`td[data-label="Last used"]`)))
	if !strings.HasSuffix(lastUsed, "UTC") {
		t.Fatalf("last used = %q after a call", lastUsed)
	}
	if page := run(t, ctx, chromedp.Text(chromedp.CSS("main"))); strings.Contains(page, token) {
		t.Fatal("the list shows the secret")
	}
	shot(ctx, "06-tokens-used")

	if err := chromedp.Do(ctx, chromedp.SendKeys(chromedp.CSS("#name"), "second"), submit("/dashboard/tokens"), chromedp.WaitVisible(chromedp.CSS("#name-error"))); err != nil {
		t.Fatal(err)
	}
	if msg := run(t, ctx, chromedp.Text(chromedp.CSS("#name-error"))); !strings.Contains(msg, "Without a plan Trawl allows 1 active token") {
		t.Fatalf("cap message %q", msg)
	}
	shot(ctx, "07-token-cap")

	// The account subscribes through the local checkout, then uses the
	// API: the usage page shows it.
	proButton := chromedp.Search(`//button[normalize-space(.)="Subscribe to Pro"]`)
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`nav a[href="/dashboard/billing"]`)), chromedp.WaitVisible(proButton)); err != nil {
		t.Fatalf("billing page: %v", err)
	}
	shot(ctx, "08-plans")
	if err := chromedp.Do(ctx, chromedp.Click(proButton), chromedp.WaitVisible(chromedp.CSS(`form[action$="/pay"] button`))); err != nil {
		t.Fatalf("subscribe: %v", err)
	}
	shot(ctx, "08-plan-checkout")
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`form[action$="/pay"] button`)), chromedp.WaitVisible(notice)); err != nil {
		t.Fatalf("pay for the plan: %v", err)
	}
	if msg := run(t, ctx, chromedp.Text(notice)); !strings.Contains(msg, "You are on the Pro plan") {
		t.Fatalf("after subscribing: %q", msg)
	}
	for _, path := range []string{"/v1/content?url=" + pages[0], "/v1/content?url=" + pages[1], "/v1/scrape?url=" + pages[2]} {
		if code, body := get(t, s.base+path, token); code != 200 {
			t.Fatalf("GET %s: %d %v", path, code, body)
		}
	}
	code, ack := postJSON(t, s.base+"/v1/content/bulk", token, map[string]any{"urls": pages, "email": true})
	if code != 202 {
		t.Fatalf("bulk: %d %v", code, ack)
	}
	jobID, _ := ack["job_id"].(string)
	waitStatus(t, s.base, token, jobID, func(m map[string]any) bool { return m["status"] == "completed" }, 60*time.Second)

	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`nav a[href="/dashboard/usage"]`)), chromedp.WaitVisible(chromedp.CSS("#transactions"))); err != nil {
		t.Fatalf("usage page: %v", err)
	}
	bars := run(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll("figure.chart svg rect").length`))
	rows := run(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll("#transactions ~ .table tbody tr").length`))
	status := run(t, ctx, chromedp.Text(chromedp.CSS(".facts")))
	if bars < 2 || rows < 6 || !strings.Contains(status, "Pro plan") {
		t.Fatalf("usage page: %d bars, %d transactions, status %q", bars, rows, status)
	}
	shot(ctx, "09-usage")
	// A top-up through the local checkout: the balance and the transaction follow.
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`nav a[href="/dashboard/billing"]`)), chromedp.WaitVisible(chromedp.CSS("#credits"))); err != nil {
		t.Fatalf("billing page: %v", err)
	}
	if cur := run(t, ctx, chromedp.Text(chromedp.CSS(".plan.current h3"))); cur != "Pro" {
		t.Fatalf("current plan card %q", cur)
	}
	shot(ctx, "10-billing")
	if err := chromedp.Do(ctx, chromedp.SendKeys(chromedp.CSS("#credits"), "1500"), submit("/dashboard/billing/topup"),
		chromedp.WaitVisible(chromedp.CSS(`form[action$="/pay"] button`))); err != nil {
		t.Fatalf("top-up: %v", err)
	}
	shot(ctx, "10-checkout")
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`form[action$="/pay"] button`)), chromedp.WaitVisible(chromedp.Search(`//strong[contains(., "Payment complete")]`)),
		chromedp.Navigate(s.base+"/dashboard/usage"), chromedp.WaitVisible(chromedp.CSS("#transactions"))); err != nil {
		t.Fatalf("pay: %v", err)
	}
	if big := run(t, ctx, chromedp.Text(chromedp.CSS(".big"))); big != "You have 21,489 credits." {
		t.Fatalf("after the top-up: %q", big)
	}
	if first := run(t, ctx, chromedp.Text(chromedp.CSS(`#transactions ~ .table tbody tr td[data-label="Credits"]`))); first != "+1,500" {
		t.Fatalf("newest transaction %q", first)
	}
	shot(ctx, "11-usage-after-top-up")

	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`nav a[href="/dashboard/jobs"]`)), chromedp.WaitVisible(chromedp.CSS(".state"))); err != nil {
		t.Fatalf("jobs page: %v", err)
	}
	if st := run(t, ctx, chromedp.Text(chromedp.CSS(".state"))); st != "completed" {
		t.Fatalf("job state %q", st)
	}
	if n := run(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll('a[href*="/files/"]').length`)); n != 1 {
		t.Fatalf("%d download links", n)
	}
	shot(ctx, "12-jobs")
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`nav a[href="/dashboard/webhooks"]`)), submit("/dashboard/webhooks/secret"), chromedp.WaitVisible(chromedp.CSS("#secret"))); err != nil {
		t.Fatalf("webhook secret: %v", err)
	}
	if sec := run(t, ctx, chromedp.Value(chromedp.CSS("#secret"))); !strings.HasPrefix(sec, "whsec_") {
		t.Fatalf("secret %q", sec)
	}
	shot(ctx, "13-webhooks")

	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`nav a[href="/dashboard/tokens"]`)), chromedp.WaitVisible(chromedp.CSS("table")),
		chromedp.Click(chromedp.CSS(`a[aria-label="Delete e2e crawler"]`)), chromedp.WaitVisible(chromedp.CSS("button.danger"))); err != nil {
		t.Fatalf("open the confirmation: %v", err)
	}
	shot(ctx, "14-delete-confirm")
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("button.danger")), chromedp.WaitVisible(notice)); err != nil {
		t.Fatalf("delete: %v", err)
	}
	shot(ctx, "15-deleted")
	if code, _ := get(t, s.base+"/v1/credits", token); code != 401 {
		t.Fatalf("deleted token: %d, want 401", code)
	}

	// A phone: the same page, one column.
	for i, page := range []string{"/dashboard/tokens", "/dashboard/usage"} {
		if err := chromedp.Do(ctx, chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2)), chromedp.Navigate(s.base+page), chromedp.WaitVisible(chromedp.CSS("h1"))); err != nil {
			t.Fatal(err)
		}
		if wide := run(t, ctx, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > window.innerWidth`)); wide {
			t.Fatalf("%s scrolls sideways on a phone", page)
		}
		shot(ctx, "16-phone-"+strings.TrimPrefix(page, "/dashboard/")+string(rune('a'+i)))
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`form[action="/dashboard/signout"] button`)), chromedp.WaitVisible(notice)); err != nil {
		t.Fatalf("sign out: %v", err)
	}
	s.stop(t)
	logs := s.stdout.String() + s.stderr.String()
	secretOfLink := link[strings.Index(link, "token=")+len("token="):]
	for what, secret := range map[string]string{"token": token, "password": "a long passphrase", "verification link": secretOfLink} {
		if strings.Contains(logs, secret) {
			t.Errorf("the server log holds the %s", what)
		}
	}
	if !strings.Contains(logs, `"path":"/dashboard/verify"`) {
		t.Error("the access log did not see the dashboard: the check above proves nothing")
	}
}
