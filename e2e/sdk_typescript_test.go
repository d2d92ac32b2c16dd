package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/trawlhq/trawl/adapters/mcpserver"
	"github.com/trawlhq/trawl/testkit/fakellm"
	"github.com/trawlhq/trawl/testkit/fakesearch"
	"github.com/trawlhq/trawl/testkit/sites"
)

// sdkDir is the TypeScript client, relative to this package.
var sdkDir = filepath.Join("..", "sdk", "typescript")

// requireNode returns node's path, or skips the test when Node 18+ and npm
// are missing (and fails it under CI=true, where .ci/run installs them).
func requireNode(t *testing.T) string {
	t.Helper()
	missing := func(why string) {
		if os.Getenv("CI") == "true" {
			t.Fatal(why)
		}
		t.Skip(why)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing("node is not installed (Debian: apt-get install nodejs npm)")
	}
	if _, err := exec.LookPath("npm"); err != nil {
		missing("npm is not installed (Debian: apt-get install npm)")
	}
	out, err := exec.Command(node, "-p", "process.versions.node").Output()
	if err != nil {
		t.Fatalf("node -p: %v", err)
	}
	major, _ := strconv.Atoi(strings.SplitN(strings.TrimSpace(string(out)), ".", 2)[0])
	if major < 18 {
		missing(fmt.Sprintf("node %s is too old: the TypeScript client needs 18 or later", strings.TrimSpace(string(out))))
	}
	return node
}

// npm runs npm in the client's directory and fails the test on an error.
func npm(t *testing.T, ctx context.Context, args ...string) {
	t.Helper()
	cmd := exec.CommandContext(ctx, "npm", args...)
	cmd.Dir = sdkDir
	cmd.Env = append(os.Environ(), "NO_COLOR=1", "npm_config_update_notifier=false")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npm %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// TestSDKTypeScript builds the TypeScript client with the versions of its
// lockfile, runs its own tests (the retry policy against a scripted
// server, webhook signatures, and the check that src/schema.ts is what
// openapi-typescript makes of the current OpenAPI document), then runs it
// against the real binary: billed calls (content, scrape, map, prompt,
// extract, search) and their credits headers, errors, a retry after a
// failed model answer, search with domain lists, a bulk job with progress
// and a signed webhook it verifies, a bulk job read with render=never whose
// missing page carries its reason and retryable flag, transaction pages,
// the usage stats and the per-minute limit.
func TestSDKTypeScript(t *testing.T) {
	node := requireNode(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()

	// npm ci when node_modules is missing or older than the lockfile.
	lock, err := os.Stat(filepath.Join(sdkDir, "package-lock.json"))
	if err != nil {
		t.Fatal(err)
	}
	if installed, err := os.Stat(filepath.Join(sdkDir, "node_modules", ".package-lock.json")); err != nil || installed.ModTime().Before(lock.ModTime()) {
		npm(t, ctx, "ci", "--no-audit", "--no-fund")
	}
	npm(t, ctx, "test")

	site, urls, _ := articleSite(t, "sdk.test", 12, 0)
	var sitemap strings.Builder
	sitemap.WriteString(`<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
	for _, u := range urls {
		sitemap.WriteString("<url><loc>" + u + "</loc></url>")
	}
	sitemap.WriteString("</urlset>")
	site.Handle("/sitemap.xml", "application/xml", sitemap.String())

	engine := fakesearch.New(t, "google")
	engine.Serve(fakesearch.Result{Title: "Post 1", Link: "http://sdk.test/blog/2026/post-1", Snippet: "Story number 1."},
		fakesearch.Result{Title: "Elsewhere", Link: "http://other.test/", Snippet: "Not on the whitelist."})
	model := fakellm.New(t)
	model.FailNext(400) // the first prompt gets a retryable 503 the client retries
	// An extraction is answered from the page the model was given: its
	// post number, which the client's test checks against the URL it asked
	// for. A prompt is echoed.
	story := regexp.MustCompile(`Story number (\d+)`)
	model.Answer = func(r fakellm.Request) string {
		text := r.Messages[len(r.Messages)-1].Content
		if len(r.ResponseFormat) > 0 {
			var page strings.Builder
			for _, m := range r.Messages {
				page.WriteString(m.Content)
			}
			if m := story.FindStringSubmatch(page.String()); m != nil {
				return fmt.Sprintf(`{"title":"Post %s","story":%s}`, m[1], m[1])
			}
			return `{}`
		}
		line, _, _ := strings.Cut(text, "\n")
		return fmt.Sprintf("[%s] You asked: %s", r.Model, line)
	}
	t.Setenv("TRAWL_SEARCH_GOOGLE_URL", engine.URL)
	t.Setenv("TRAWL_LLM_BASE_URL", model.BaseURL())
	t.Setenv("TRAWL_LLM_MODEL", "e2e-model")

	// The webhook receiver is the client's test itself, listening on a port
	// chosen here so the server can be told where hooks.test is.
	hookAddr := freeAddr(t)
	_, hookPort, _ := net.SplitHostPort(hookAddr)
	store := []string{"--data-dir", t.TempDir()}
	s := start(t, append([]string{"--resolve", sites.ResolveFlags(site)[0], "--resolve", "hooks.test:" + hookPort + "=" + hookAddr}, store...))
	token := tokenRE.FindString(s.stdout.String())
	if token == "" {
		t.Fatalf("no bootstrap token printed:\n%s", s.stdout)
	}
	secret := strings.TrimSpace(admin(t, store, "webhooks", "secret", "--email", "local@localhost"))
	if !regexp.MustCompile(`^whsec_\w+$`).MatchString(secret) {
		t.Fatalf("webhooks secret printed %q", secret)
	}
	admin(t, store, "accounts", "create", "--email", "basic@example.com", "--plan", "basic")
	var basic struct{ Token string }
	if err := json.Unmarshal([]byte(admin(t, store, "tokens", "create", "--email", "basic@example.com", "--name", "sdk", "--json")), &basic); err != nil || basic.Token == "" {
		t.Fatalf("tokens create --json: %v", err)
	}

	cmd := exec.CommandContext(ctx, node, "--test", "--test-reporter=spec", filepath.Join("build-test", "live.test.js"))
	cmd.Dir = sdkDir
	cmd.Env = append(os.Environ(),
		"NO_COLOR=1",
		"TRAWL_SDK_LIVE_URL="+s.base,
		"TRAWL_SDK_LIVE_TOKEN="+token,
		"TRAWL_SDK_LIVE_BASIC_TOKEN="+basic.Token,
		"TRAWL_SDK_LIVE_SITE="+site.Host,
		"TRAWL_SDK_LIVE_HOOK_PORT="+hookPort,
		"TRAWL_SDK_LIVE_HOOK_SECRET="+secret,
	)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node --test live.test.js: %v\n%s", err, out)
	}
	// A skipped suite would pass silently: make sure it ran.
	if !strings.Contains(string(out), "transactions: every charge once") || strings.Contains(string(out), "# skipped 1") {
		t.Fatalf("the live tests did not run:\n%s", out)
	}
	t.Logf("%s", out)

	// The official MCP client, pinned in the same lockfile, against /mcp on
	// this server and against `trawl mcp` on stdio, with an account of its
	// own so its charges do not mix with the client's.
	admin(t, store, "accounts", "create", "--email", "agent@example.com", "--plan", "business")
	var agent struct{ Token string }
	if err := json.Unmarshal([]byte(admin(t, store, "tokens", "create", "--email", "agent@example.com", "--name", "mcp", "--json")), &agent); err != nil || agent.Token == "" {
		t.Fatalf("tokens create --json: %v", err)
	}
	cmd = exec.CommandContext(ctx, node, "--test", "--test-reporter=spec", filepath.Join("build-test", "mcp.test.js"))
	cmd.Dir = sdkDir
	cmd.Env = append(os.Environ(),
		"NO_COLOR=1",
		"TRAWL_SDK_MCP_URL="+s.base,
		"TRAWL_SDK_MCP_TOKEN="+agent.Token,
		"TRAWL_SDK_MCP_BIN="+binary(t),
		"TRAWL_SDK_MCP_SITE="+site.Host,
		"TRAWL_SDK_MCP_TOOLS="+strings.Join(mcpserver.Tools, ","),
	)
	out, err = cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node --test mcp.test.js: %v\n%s", err, out)
	}
	for _, tool := range mcpserver.Tools {
		for _, transport := range []string{"http", "stdio"} {
			if !strings.Contains(string(out), "✔ "+transport+": "+tool+" ") {
				t.Fatalf("the MCP client did not call %s over %s:\n%s", tool, transport, out)
			}
		}
	}
	t.Logf("%s", out)
}
