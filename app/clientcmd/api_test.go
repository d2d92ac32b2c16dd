package clientcmd_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trawlhq/trawl/app"
	"github.com/trawlhq/trawl/app/clientcmd"
	"github.com/trawlhq/trawl/testkit/apitest"
	"github.com/trawlhq/trawl/testkit/fakesearch"
	"github.com/trawlhq/trawl/testkit/memstore"
	"github.com/trawlhq/trawl/testkit/sites"
)

// shore is the fixture site of these tests, with a tide pools page, and a
// search engine that finds it.
func shore(t *testing.T) (*sites.Site, *fakesearch.Engine) {
	site := sites.New(t, "shore.test")
	site.Handle("/tides", "text/html", `<html><head><title>Tide pools</title></head><body><article><h1>Tide pools</h1>
<p>Tides rise and fall twice a day, and the pools they leave behind are full of life, from anemones to crabs and snails.</p>
<p>Shade and depth decide which animals survive the summer heat in those pools, researchers found in a study of forty pools.</p></article></body></html>`)
	eng := fakesearch.New(t, "google")
	eng.Serve(fakesearch.Result{Title: "Tide pools", Link: "http://shore.test/tides", Snippet: "Life in the pools."})
	return site, eng
}

// TestAPICommands runs the client commands against the real handler.
func TestAPICommands(t *testing.T) {
	site, eng := shore(t)
	site.Handle("/", "text/html", `<html><head><title>Shore</title></head><body><article><h1>The shore</h1>
<p>The shore is where the land meets the sea, and every tide changes it: read about <a href="/tides">tide pools</a> and the <a href="/challenge">challenge</a>.</p>
<p>Rocks, sand and the creatures of both live along it, from crabs under the stones to birds above the waves, all year round.</p></article></body></html>`)
	site.Handle("/challenge", "text/html", `<html><head><title>Just a moment...</title></head><body><script>window._cf_chl_opt={}</script></body></html>`)
	site.Handle("/sitemap.xml", "application/xml", `<urlset><url><loc>http://shore.test/tides</loc></url><url><loc>http://shore.test/crabs</loc></url></urlset>`)
	e := apitest.Start(t, memstore.New(), apitest.Options{Resolve: sites.Resolve(site), Engines: map[string]string{"google": eng.URL}})
	_, tok := e.Account("cli@example.com", "business")
	env := map[string]string{"TRAWL_API_URL": e.Server.URL, "TRAWL_API_KEY": tok}
	run := func(env map[string]string, args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := app.CLI{Stdout: &out, Stderr: &errb, Getenv: func(k string) string { return env[k] }, Client: clientcmd.Commands{}}.Main(args)
		return code, out.String(), errb.String()
	}
	urls := filepath.Join(t.TempDir(), "urls.txt")
	if err := os.WriteFile(urls, []byte("# pages\nhttp://shore.test/tides\n\nhttp://shore.test/challenge\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args        []string
		code        int
		out, errOut string
	}{
		{[]string{"api", "content", "http://shore.test/tides"}, 0, "Tides rise and fall twice a day", ""},
		{[]string{"api", "content", "http://shore.test/tides", "--format", "html"}, 0, "<p>Tides rise and fall twice a day", ""},
		{[]string{"api", "content", "--format", "json", "http://shore.test/tides"}, 0, `"success": true`, ""},
		{[]string{"api", "content", "http://shore.test/tides", "--format", "pdf"}, 2, "", "--format must be"},
		{[]string{"api", "content"}, 2, "", "needs URL"},
		{[]string{"api", "content", "http://shore.test/challenge"}, 1, "", "reason: captcha"},
		{[]string{"api", "content", "http://10.0.0.1/"}, 3, "", "url:"},
		{[]string{"api", "map", "http://shore.test/"}, 0, "http://shore.test/tides\nhttp://shore.test/crabs\n", ""},
		{[]string{"api", "serp", "tide pools"}, 0, "1\tTide pools\thttp://shore.test/tides\n", ""},
		{[]string{"api", "bulk", "--file", urls, "--email", "--wait"}, 0, "completed 2/2 (1 ok, 1 failed)\n", ""},
		{[]string{"api", "bulk", "--file", urls}, 3, "", "delivery"},
		{[]string{"api", "credits"}, 0, "balance 89,984 (used 16 of 90,000", ""},
		{[]string{"api", "crawl", "http://shore.test/", "--limit", "10001"}, 3, "", "limit:"},
		{[]string{"api", "crawl", "http://shore.test/", "--scope", "world", "--exclude", "re:("}, 3, "", "exclude.0:"},
		{[]string{"api", "crawl", "http://shore.test/", "--limit", "5", "--depth", "1", "--exclude", "/challenge", "--wait"}, 0, "http://shore.test/\nhttp://shore.test/tides\n", "completed 2/5 pages (0 failed, 1 skipped, 4 credits)"},
		{[]string{"api", "credits"}, 0, "balance 89,980 (used 20 of 90,000", ""},
	} {
		code, out, errOut := run(env, c.args...)
		if code != c.code || !strings.Contains(out, c.out) || !strings.Contains(errOut, c.errOut) {
			t.Errorf("trawl %s = %d\nstdout %q\nstderr %q\nwant %d, %q, %q", strings.Join(c.args, " "), code, out, errOut, c.code, c.out, c.errOut)
		}
	}
	if code, _, errOut := run(map[string]string{"TRAWL_API_URL": e.Server.URL}, "api", "credits"); code != 2 || !strings.Contains(errOut, "TRAWL_API_KEY") {
		t.Errorf("without a key = %d %q", code, errOut)
	}
	if code, _, errOut := run(map[string]string{"TRAWL_API_URL": e.Server.URL, "TRAWL_API_KEY": "trawl_nope"}, "api", "credits"); code != 3 || !strings.Contains(errOut, "401") {
		t.Errorf("a bad key = %d %q", code, errOut)
	}
}

// TestAPICacheAndChanges: the page cache's and change tracking's flags
// reach the API, and what they did is told on stderr.
func TestAPICacheAndChanges(t *testing.T) {
	site, eng := shore(t)
	e := apitest.Start(t, memstore.New(), apitest.Options{Resolve: sites.Resolve(site), Engines: map[string]string{"google": eng.URL}, CacheMaxBytes: 64 << 20})
	_, tok := e.Account("cli@example.com", "business")
	env := map[string]string{"TRAWL_API_URL": e.Server.URL, "TRAWL_API_KEY": tok}
	checkCommands(t, env, []command{
		{[]string{"api", "content", "http://shore.test/tides", "--changes", "--max-age", "3600"}, 0, "Tides rise and fall", "change: new\n"},
		{[]string{"api", "content", "http://shore.test/tides", "--changes", "--max-age", "3600"}, 0, "Tides rise and fall", "cache: hit, 0 s old\nchange: same since 2026-06-15T12:00:00Z\n"},
		{[]string{"api", "content", "http://shore.test/tides", "--changes", "--tag", "weekly", "--no-store"}, 0, "Tides rise and fall", "change: new\n"},
		{[]string{"api", "content", "http://shore.test/tides", "--format", "json", "--max-age", "3600"}, 0, `"hit": true`, ""},
		{[]string{"api", "content", "http://shore.test/tides", "--changes", "--tag", strings.Repeat("x", 101)}, 3, "", "tag:"},
		{[]string{"api", "serp", "tide pools", "--max-age", "3600", "--json"}, 0, `"hit": false`, ""},
		{[]string{"api", "serp", "tide pools", "--max-age", "3600", "--json"}, 0, `"hit": true`, ""},
		{[]string{"api", "serp", "tide pools", "--max-age", "-1"}, 3, "", "max_age:"},
		{[]string{"api", "crawl", "http://shore.test/", "--max-age", "9999999"}, 3, "", "max_age:"},
	})
}

// command is a client command line and what it must give: its exit code
// and text its stdout and stderr hold.
type command struct {
	args        []string
	code        int
	out, errOut string
}

// checkCommands runs each command with env and checks what it gave.
func checkCommands(t *testing.T, env map[string]string, cmds []command) {
	t.Helper()
	for _, c := range cmds {
		var out, errb bytes.Buffer
		code := app.CLI{Stdout: &out, Stderr: &errb, Getenv: func(k string) string { return env[k] }, Client: clientcmd.Commands{}}.Main(c.args)
		if code != c.code || !strings.Contains(out.String(), c.out) || !strings.Contains(errb.String(), c.errOut) {
			t.Errorf("trawl %s = %d\nstdout %q\nstderr %q\nwant %d, %q, %q", strings.Join(c.args, " "), code, out.String(), errb.String(), c.code, c.out, c.errOut)
		}
	}
}
