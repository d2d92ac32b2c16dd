package app

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/trawlhq/trawl/core/auth"
	"github.com/trawlhq/trawl/core/billing"
	"github.com/trawlhq/trawl/testkit/pgtest"
)

func runCLI(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = CLI{Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" }}.Main(args)
	return code, out.String(), errb.String()
}

// The flags each command takes, written out here rather than read from the
// command table, so a flag that leaks into or drops out of a command fails.
var wantFlags = map[string][]string{
	"serve":               {"addr", "data-dir", "database", "resolve"},
	"migrate":             {"data-dir", "database"},
	"accounts create":     {"data-dir", "database", "email", "json", "name", "plan"},
	"accounts list":       {"data-dir", "database", "json"},
	"accounts set-plan":   {"data-dir", "database", "email", "plan"},
	"tokens create":       {"data-dir", "database", "email", "json", "name"},
	"tokens list":         {"data-dir", "database", "email", "json"},
	"tokens delete":       {"data-dir", "database", "email", "id"},
	"credits grant":       {"credits", "data-dir", "database", "email"},
	"webhooks secret":     {"data-dir", "database", "email", "rotate"},
	"mcp":                 {},
	"api content":         {"changes", "format", "max-age", "no-store", "tag"},
	"api map":             {"json", "limit"},
	"api serp":            {"engine", "json", "max-age", "no-store"},
	"api bulk":            {"callback", "changes", "email", "file", "max-age", "no-store", "tag", "wait"},
	"api crawl":           {"callback", "changes", "depth", "email", "exclude", "include", "json", "limit", "max-age", "no-store", "scope", "tag", "wait"},
	"api credits":         {"json"},
	"api monitors create": {"all-pages", "callback", "crawl", "email", "json", "limit", "name", "schedule", "url"},
	"api monitors list":   {"json"},
	"api monitors get":    {"json"},
	"api monitors pause":  {},
	"api monitors resume": {},
	"api monitors delete": {},
	"version":             {},
}

var allFlags = []string{"addr", "all-pages", "callback", "changes", "crawl", "credits", "data-dir", "database", "depth", "email", "engine", "exclude", "file", "format", "id", "include", "json", "limit", "max-age", "name", "no-store", "plan", "resolve", "rotate", "schedule", "scope", "tag", "url", "wait"}

var helpFlagRE = regexp.MustCompile(`(?m)^  --([a-z-]+)`)

func TestSubcommandHelpListsItsOwnFlags(t *testing.T) {
	if len(wantFlags) != len(commands) {
		t.Fatalf("%d commands, %d in this table", len(commands), len(wantFlags))
	}
	for name, want := range wantFlags {
		args := strings.Fields(name)
		for _, help := range [][]string{append(slices.Clone(args), "--help"), append(slices.Clone(args), "-h"), append([]string{"help"}, args...)} {
			code, out, errOut := runCLI(help...)
			if code != 0 || errOut != "" {
				t.Errorf("trawl %v: exit %d, stderr %q; want 0 and nothing on stderr", help, code, errOut)
			}
			if !strings.HasPrefix(out, "Usage: trawl "+name) {
				t.Errorf("trawl %v does not start with its own usage:\n%s", help, out)
			}
			var got []string
			for _, m := range helpFlagRE.FindAllStringSubmatch(out, -1) {
				got = append(got, m[1])
			}
			if !slices.Equal(got, want) {
				t.Errorf("trawl %v lists flags %v, want %v", help, got, want)
			}
		}
	}
}

func TestFlagsOfOtherCommandsAreErrors(t *testing.T) {
	for name, own := range wantFlags {
		for _, f := range allFlags {
			if slices.Contains(own, f) {
				continue
			}
			args := append(strings.Fields(name), "--"+f, "x")
			code, out, errOut := runCLI(args...)
			if code != 2 || out != "" || !strings.Contains(errOut, "unknown flag --"+f) || !strings.Contains(errOut, "trawl "+name+" --help") {
				t.Errorf("trawl %v: exit %d, stdout %q, stderr %q; want exit 2 naming the flag", args, code, out, errOut)
			}
		}
	}
}

func TestCLIUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{nil, 2, "Usage:"},
		{[]string{"bogus"}, 2, `unknown command "bogus"`},
		{[]string{"tokens"}, 2, "tokens needs a command"},
		{[]string{"tokens", "bogus"}, 2, `unknown command "tokens bogus"`},
		{[]string{"tokens", "create"}, 2, "needs --email"},
		{[]string{"tokens", "create", "--email", ""}, 2, "needs --email"},
		{[]string{"tokens", "delete", "--email", "a@example.com"}, 2, "needs --id"},
		{[]string{"tokens", "delete", "--email", "a@example.com", "--id", "x"}, 2, `invalid value "x" for flag --id`},
		{[]string{"accounts", "set-plan", "--email", "a@example.com"}, 2, "needs --plan"},
		{[]string{"tokens", "list", "--email"}, 2, "flag needs an argument: --email"},
		{[]string{"version", "extra"}, 2, `unexpected argument "extra"`},
		{[]string{"serve", "--addr", "nowhere", "--data-dir", "unused"}, 2, "want host:port"},
	} {
		code, out, errOut := runCLI(c.args...)
		if code != c.code || out != "" || !strings.Contains(errOut, c.want) {
			t.Errorf("trawl %q: exit %d, stdout %q, stderr %q; want exit %d with %q", c.args, code, out, errOut, c.code, c.want)
		}
	}
	for _, args := range [][]string{{"help"}, {"--help"}, {"-h"}} {
		if code, out, _ := runCLI(args...); code != 0 || !strings.Contains(out, "trawl tokens create") {
			t.Errorf("trawl %v: exit %d\n%s", args, code, out)
		}
	}
	if code, out, _ := runCLI("tokens", "--help"); code != 0 || !strings.Contains(out, "trawl tokens delete") || strings.Contains(out, "trawl serve") {
		t.Errorf("trawl tokens --help: exit %d\n%s", code, out)
	}
}

// TestSynopsesNameTheirFlags keeps the one-line usage of each command in
// step with the flags it registers.
func TestSynopsesNameTheirFlags(t *testing.T) {
	for _, c := range commands {
		for _, f := range wantFlags[c.name] {
			if f != "database" && f != "data-dir" && !strings.Contains(c.synopsis, "--"+f) {
				t.Errorf("synopsis of %s lacks --%s: %q", c.name, f, c.synopsis)
			}
		}
	}
}

// TestREADMECommandLine: the README's command list is the binary's.
func TestREADMECommandLine(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	squash := regexp.MustCompile(`\s+`)
	lines := map[string]bool{}
	for _, l := range strings.Split(string(readme), "\n") {
		lines[squash.ReplaceAllString(strings.TrimSpace(l), " ")] = true
	}
	for _, c := range commands {
		want := strings.TrimSpace("trawl " + c.name + " " + c.synopsis)
		found := false
		for l := range lines {
			if l == want || strings.HasPrefix(l, want+" ") {
				found = true
			}
		}
		if !found {
			t.Errorf("README has no line %q", want)
		}
	}
}

// TestServeBusyPortFailsBeforeBootstrap: with the address taken, serve
// exits 1 saying so, prints no token and leaves the store untouched.
func TestServeBusyPortFailsBeforeBootstrap(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	dir := filepath.Join(t.TempDir(), "data")
	code, out, errOut := runCLI("serve", "--addr", ln.Addr().String(), "--data-dir", dir)
	if code != 1 || !strings.Contains(errOut, "in use by another process") || !strings.Contains(errOut, ln.Addr().String()) {
		t.Fatalf("exit %d, stderr %q; want 1 naming the busy address", code, errOut)
	}
	if out != "" {
		t.Fatalf("printed before failing:\n%s", out)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("the store was created for a server that never started (%v)", err)
	}
}

// TestAdminCommandsWriteOnlyTheStore: admin commands open the store and
// nothing else, so no link-signing key or outbox appears in the data dir,
// and with --database nothing appears in the working directory.
func TestAdminCommandsWriteOnlyTheStore(t *testing.T) {
	admin := func(store ...string) {
		t.Helper()
		for _, args := range [][]string{
			{"accounts", "create", "--email", "ops@example.com", "--plan", "pro"},
			{"tokens", "create", "--email", "ops@example.com"},
			{"credits", "grant", "--email", "ops@example.com", "--credits", "10"},
			{"webhooks", "secret", "--email", "ops@example.com"},
		} {
			if code, _, errOut := runCLI(append(args, store...)...); code != 0 {
				t.Fatalf("trawl %v: exit %d: %s", args, code, errOut)
			}
		}
	}
	dir := t.TempDir()
	admin("--data-dir", dir)
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), "trawl.db") {
			t.Errorf("an admin command wrote %s into the data dir", e.Name())
		}
	}

	db := pgtest.NewDatabase(t)
	wd := t.TempDir()
	t.Chdir(wd)
	admin("--database", db)
	if entries, _ := os.ReadDir(wd); len(entries) > 0 {
		t.Errorf("admin commands on PostgreSQL wrote %s into the working directory", entries[0].Name())
	}
}

// TestCLIReadsTheBillingTable: the plan a new account is on, the plan shown
// as none, the bootstrap account's allowance and the costs in help come
// from core's billing table, so the command line cannot drift from it.
func TestCLIReadsTheBillingTable(t *testing.T) {
	for cmd, svc := range map[string]billing.ServiceType{"content": billing.Content, "map": billing.Map, "serp": billing.Serp, "crawl": billing.Crawl} {
		_, out, errOut := runCLI("api", cmd, "--help")
		want := fmt.Sprintf("(%d credits", billing.Cost(svc))
		if !strings.Contains(out+errOut, want) {
			t.Errorf("api %s --help lacks %q:\n%s%s", cmd, want, out, errOut)
		}
	}
	dir := t.TempDir()
	code, out, errOut := runCLI("accounts", "create", "--email", "plain@example.com", "--json", "--data-dir", dir)
	if code != 0 || !strings.Contains(out, `"plan": "`+billing.DefaultPlanName+`"`) {
		t.Fatalf("accounts create = %d %s %s", code, out, errOut)
	}
	code, out, errOut = runCLI("accounts", "create", "--email", "none@example.com", "--plan", "none", "--json", "--data-dir", dir)
	if code != 0 || !strings.Contains(out, `"plan": "`+billing.NoPlanName+`"`) {
		t.Fatalf("accounts create --plan none = %d %s %s", code, out, errOut)
	}

	cfg := DefaultConfig()
	cfg.DataDir = t.TempDir()
	var buf bytes.Buffer
	c := CLI{Stdout: &buf, Stderr: &buf, Getenv: func(string) string { return "" }}
	if err := c.bootstrap(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	plan := billing.DefaultPlans().Must(auth.BootstrapPlan)
	want := fmt.Sprintf("Created the account %s (%s plan, %s credits a month)", BootstrapEmail, plan.DisplayName, billing.FormatCredits(plan.MonthlyCredits))
	if !strings.Contains(buf.String(), want) || !strings.Contains(buf.String(), "trawl_") {
		t.Fatalf("bootstrap printed:\n%s\nwant %q and a token", buf.String(), want)
	}
	buf.Reset()
	if err := c.bootstrap(context.Background(), cfg); err != nil || buf.Len() != 0 {
		t.Fatalf("second start bootstrapped again: %v\n%s", err, buf.String())
	}
}

// TestWebhookSecretCommand: the command shows the same secret until it is
// rotated, rotation prints the new one, and an unknown account is refused.
func TestWebhookSecretCommand(t *testing.T) {
	dir := t.TempDir()
	if code, _, errOut := runCLI("accounts", "create", "--email", "hooks@example.com", "--data-dir", dir); code != 0 {
		t.Fatalf("accounts create: exit %d: %s", code, errOut)
	}
	secret := func(args ...string) string {
		t.Helper()
		code, out, errOut := runCLI(append([]string{"webhooks", "secret", "--email", "hooks@example.com", "--data-dir", dir}, args...)...)
		if code != 0 {
			t.Fatalf("webhooks secret %v: exit %d: %s", args, code, errOut)
		}
		return strings.TrimSpace(out)
	}
	first := secret()
	if !strings.HasPrefix(first, "whsec_") || secret() != first {
		t.Fatalf("shown secret %q is not stable", first)
	}
	rotated := secret("--rotate")
	if !strings.HasPrefix(rotated, "whsec_") || rotated == first {
		t.Fatalf("rotated secret %q (was %q)", rotated, first)
	}
	if shown := secret(); shown != rotated {
		t.Fatalf("after rotation the command shows %q, want %q", shown, rotated)
	}
	if code, _, _ := runCLI("webhooks", "secret", "--email", "nobody@example.com", "--data-dir", dir); code == 0 {
		t.Fatal("a secret was shown for an account that does not exist")
	}
}

// TestServeRefusesBadSettingsFirst: a half-made payment provider, a public
// URL that is not an absolute http(s) URL or a database of no known kind
// stops serve before the store is created or a token printed, with one
// line naming the setting.
func TestServeRefusesBadSettingsFirst(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		args []string
		want string
	}{
		{map[string]string{"TRAWL_STRIPE_SECRET_KEY": "sk_test_1"}, nil, "TRAWL_STRIPE_SECRET_KEY is set but TRAWL_STRIPE_WEBHOOK_SECRET is not"},
		{map[string]string{"TRAWL_STRIPE_WEBHOOK_SECRET": "whsec_1"}, nil, "TRAWL_STRIPE_WEBHOOK_SECRET is set but TRAWL_STRIPE_SECRET_KEY is not"},
		{map[string]string{"TRAWL_STRIPE_PRICE_PRO": "price_1"}, nil, "TRAWL_STRIPE_PRICE_PRO is set but TRAWL_STRIPE_SECRET_KEY is not"},
		{map[string]string{"TRAWL_STRIPE_API_URL": "http://127.0.0.1:12111"}, nil, "TRAWL_STRIPE_API_URL is set but TRAWL_STRIPE_SECRET_KEY is not"},
		{map[string]string{"TRAWL_STRIPE_SECRET_KEY": "pk_test_1", "TRAWL_STRIPE_WEBHOOK_SECRET": "whsec_1"}, nil, "TRAWL_STRIPE_SECRET_KEY must be a Stripe secret key"},
		{map[string]string{"TRAWL_STRIPE_SECRET_KEY": "sk_test_1", "TRAWL_STRIPE_WEBHOOK_SECRET": "whsec_1", "TRAWL_STRIPE_API_URL": "localhost:12111"}, nil,
			"TRAWL_STRIPE_API_URL \"localhost:12111\" must be an absolute http(s) URL"},
		{map[string]string{"TRAWL_PUBLIC_URL": "trawl.example.com"}, nil, `TRAWL_PUBLIC_URL "trawl.example.com" must be an absolute http(s) URL`},
		{map[string]string{"TRAWL_PUBLIC_URL": "ftp://trawl.example.com"}, nil, "must be an absolute http(s) URL"},
		{map[string]string{"TRAWL_DATABASE_URL": "mysql://trawl:s3cret@db/trawl"}, nil, `the database URL's scheme "mysql" is not supported`},
		{nil, []string{"--database", "mysql://trawl:s3cret@db/trawl"}, `the database URL's scheme "mysql" is not supported`},
		{nil, []string{"--database", "postgres:///trawl"}, "not a valid PostgreSQL URL"},
	} {
		dir := filepath.Join(t.TempDir(), "data")
		var out, errb bytes.Buffer
		code := CLI{Stdout: &out, Stderr: &errb, Getenv: func(k string) string { return c.env[k] }}.
			Main(append([]string{"serve", "--addr", "127.0.0.1:0", "--data-dir", dir}, c.args...))
		if code != 2 || !strings.Contains(errb.String(), c.want) || strings.Count(errb.String(), "\n") != 1 || strings.Contains(errb.String(), "s3cret") {
			t.Errorf("%v %v: exit %d, stderr %q; want exit 2 and one line saying %q", c.env, c.args, code, errb.String(), c.want)
		}
		if out.Len() > 0 {
			t.Errorf("%v %v: printed before failing:\n%s", c.env, c.args, out.String())
		}
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("%v %v: the store was created for a server that never started (%v)", c.env, c.args, err)
		}
	}
}

// TestStartupErrorsAreOneSentence: a database that cannot be reached is
// said in one line, from serve (where the store is built by dependency
// injection) and from the commands that open it themselves, without the
// constructor chain and without a "migrate:" prefix, as no migration ran.
func TestStartupErrorsAreOneSentence(t *testing.T) {
	down := "postgres://trawl@127.0.0.1:1/trawl?sslmode=disable"
	env := func(k string) string { return map[string]string{"TRAWL_BOOTSTRAP": "false"}[k] }
	for _, args := range [][]string{
		{"serve", "--addr", "127.0.0.1:0", "--database", down},
		{"migrate", "--database", down},
		{"accounts", "list", "--database", down},
	} {
		var out, errb bytes.Buffer
		code := CLI{Stdout: &out, Stderr: &errb, Getenv: env}.Main(args)
		msg := errb.String()
		if code != 1 || strings.Count(msg, "\n") != 1 || !strings.Contains(msg, "cannot open the database") ||
			strings.Contains(msg, "migrate:") || strings.Contains(msg, "could not build") || strings.Contains(msg, "wiring.go") {
			t.Errorf("trawl %v: exit %d, stderr %q; want one line saying the database cannot be opened", args, code, msg)
		}
	}
	code, _, errOut := runCLI("migrate", "--database", "mysql://db/trawl")
	if code != 1 || errOut != "trawl: the database URL's scheme \"mysql\" is not supported: use postgres:// for PostgreSQL, or sqlite:// or a file path for SQLite\n" {
		t.Errorf("migrate on mysql: exit %d, %q", code, errOut)
	}
}

// TestHelpIsTrue: help shows a switch without a value, the api commands'
// help speaks of the API they call (not of a store), and a command without
// flags never sends the user to its flags.
func TestHelpIsTrue(t *testing.T) {
	_, out, _ := runCLI("api", "bulk", "--help")
	if !regexp.MustCompile(`(?m)^  --email  +email the results`).MatchString(out) || !regexp.MustCompile(`(?m)^  --wait  +wait`).MatchString(out) ||
		!strings.Contains(out, "--file FILE") {
		t.Errorf("trawl api bulk --help:\n%s", out)
	}
	_, out, _ = runCLI("api", "--help")
	if strings.Contains(out, "--database") || strings.Contains(out, "--data-dir") || !strings.Contains(out, "TRAWL_API_KEY") {
		t.Errorf("trawl api --help:\n%s", out)
	}
	for _, args := range [][]string{{"api", "content", "--help"}, {"api", "map", "--help"}, {"api", "serp", "--help"}, {"api", "credits", "--help"}} {
		if _, out, _ := runCLI(args...); strings.Contains(out, "--database") || strings.Contains(out, "--data-dir") {
			t.Errorf("trawl %v lists store flags:\n%s", args, out)
		}
	}
	if _, out, _ := runCLI("--help"); !strings.Contains(out, "TRAWL_API_URL") || strings.Contains(out, "Every command but") {
		t.Errorf("trawl --help:\n%s", out)
	}
	code, _, errOut := runCLI("mcp", "--verbose")
	if code != 2 || !strings.Contains(errOut, "this command takes no flags") || strings.Contains(errOut, "for its flags") {
		t.Errorf("trawl mcp --verbose: exit %d, %q", code, errOut)
	}
}
