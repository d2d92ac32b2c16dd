package e2e

import (
	"encoding/json"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/trawlhq/trawl/testkit/fakesearch"
	"github.com/trawlhq/trawl/testkit/sites"
)

// readmeDocs are the README and the reference pages its examples moved
// to: every sh block in them is an example a reader pastes.
var readmeDocs = []string{
	"../README.md", "../docs/api.md", "../docs/clients.md", "../docs/configuration.md",
	"../docs/dashboard.md", "../docs/development.md", "../docs/extraction.md", "../docs/search.md",
	"../docs/bulk.md", "../docs/fleet.md", "../docs/operations.md", "../docs/performance.md",
	"../docs/decisions.md",
}

// readmeCommands returns the commands of the sh blocks of the README and
// readmeDocs, with backslash continuations joined.
func readmeCommands(t *testing.T) []string {
	t.Helper()
	var cmds []string
	for _, name := range readmeDocs {
		raw, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, shCommands(string(raw))...)
	}
	return cmds
}

// shCommands returns the commands of a Markdown page's sh blocks.
func shCommands(page string) []string {
	var cmds []string
	in := false
	cur := ""
	for _, line := range strings.Split(page, "\n") {
		switch {
		case !in && strings.HasPrefix(line, "```sh"):
			in = true
		case in && strings.HasPrefix(line, "```"):
			in = false
		case in:
			l := strings.TrimSpace(line)
			if strings.HasSuffix(l, "\\") {
				cur += strings.TrimSuffix(l, "\\") + " "
				continue
			}
			if c := strings.TrimSpace(cur + l); c != "" && !strings.HasPrefix(c, "#") {
				cmds = append(cmds, c)
			}
			cur = ""
		}
	}
	return cmds
}

// TestREADMEExamplesUseOneStyle: every request example is written against
// $B and $T, which the README sets once, so each line pastes as it is.
func TestREADMEExamplesUseOneStyle(t *testing.T) {
	cmds := readmeCommands(t)
	var sawB, sawT bool
	requests := 0
	for _, c := range cmds {
		sawB = sawB || strings.HasPrefix(c, "B=http://127.0.0.1:8080")
		sawT = sawT || strings.HasPrefix(c, "T=trawl_")
		if !strings.HasPrefix(c, "curl ") && !strings.HasPrefix(c, "grpcurl ") {
			continue
		}
		requests++
		if strings.Contains(c, "{base}") || strings.Contains(c, "127.0.0.1") || !strings.Contains(c, "$B") && !strings.Contains(c, "${B") {
			t.Errorf("example not written against $B: %s", c)
		}
		if strings.Contains(c, "Bearer") && !strings.Contains(c, "Bearer $T") {
			t.Errorf("example not written with $T: %s", c)
		}
	}
	if !sawB || !sawT || requests < 15 {
		t.Fatalf("README sets B: %v, T: %v; %d request examples", sawB, sawT, requests)
	}
}

// TestREADMEExamplesRun pastes the README's curl examples into a shell
// against the real binary. Examples that need the internet (example.com)
// or stand for a value the reader fills in (…) are left out; search goes to
// local engines whose results point at a local site.
func TestREADMEExamplesRun(t *testing.T) {
	bash, errBash := exec.LookPath("bash")
	_, errCurl := exec.LookPath("curl")
	if errBash != nil || errCurl != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("bash and curl are needed and CI=true (.ci/run installs curl)")
		}
		t.Skip("no bash or curl on this machine")
	}
	site := sites.New(t, "fixture.test")
	article, err := os.ReadFile("../testdata/pages/article.html")
	if err != nil {
		t.Fatal(err)
	}
	site.Handle("/tide-pools", "text/html", string(article))
	result := fakesearch.Result{Title: "Tide pools", Link: "http://fixture.test/tide-pools", Snippet: "How pools survive."}
	google, bing := fakesearch.New(t, "google"), fakesearch.New(t, "bing")
	google.Serve(result)
	bing.Serve(result)
	t.Setenv("TRAWL_SEARCH_GOOGLE_URL", google.URL)
	t.Setenv("TRAWL_SEARCH_BING_URL", bing.URL)
	s := start(t, []string{"--data-dir", t.TempDir(), "--resolve", sites.ResolveFlags(site)[0]})
	token := tokenRE.FindString(s.stdout.String())

	ran := 0
	for _, c := range readmeCommands(t) {
		if !strings.HasPrefix(c, "curl ") || strings.Contains(c, "example.com") || strings.Contains(c, "…") {
			continue
		}
		ran++
		// A failing status makes curl exit non-zero, with the body on stdout.
		cmd := exec.Command(bash, "-c", `curl() { command curl -sS --fail-with-body "$@"; }; `+c)
		cmd.Env = append(os.Environ(), "B="+s.base, "T="+token)
		out, err := cmd.CombinedOutput()
		if err != nil || !regexp.MustCompile(`^\s*\{`).Match(out) {
			t.Errorf("%s\n  -> %v: %s", c, err, out)
		}
	}
	t.Logf("ran %d README examples", ran)
	if ran < 8 {
		t.Fatalf("ran %d README examples", ran)
	}
	readmeListsEveryEndpoint(t, s.base)
	s.stop(t)
}

// readmeListsEveryEndpoint: every operation of the served OpenAPI document
// has its line in the README's endpoint table.
func readmeListsEveryEndpoint(t *testing.T, base string) {
	t.Helper()
	res, err := http.Get(base + "/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.NewDecoder(res.Body).Decode(&doc); err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for path, ops := range doc.Paths {
		for method := range ops {
			m := strings.ToUpper(method)
			if m != "GET" && m != "POST" && m != "PUT" && m != "PATCH" && m != "DELETE" {
				continue
			}
			n++
			if !strings.Contains(string(readme), "`"+m+" "+path) {
				t.Errorf("the README's endpoint table lacks %s %s", m, path)
			}
		}
	}
	if n < 20 {
		t.Fatalf("the OpenAPI document lists %d operations", n)
	}
}

var passwordLinkRE = regexp.MustCompile(`(http://\S+)/dashboard/reset\?token=(\S+)`)

// TestBootstrapReachesTheDashboard: the first start names the dashboard and
// the API reference and prints a link that sets the bootstrap account's
// password, with which it signs in; the link works once.
func TestBootstrapReachesTheDashboard(t *testing.T) {
	s := start(t, []string{"--data-dir", t.TempDir()})
	out := s.stdout.String()
	if !strings.Contains(out, s.base+"/dashboard/") || !strings.Contains(out, s.base+"/docs") {
		t.Fatalf("the banner does not name the dashboard and the docs:\n%s", out)
	}
	m := passwordLinkRE.FindStringSubmatch(out)
	if m == nil || m[1] != s.base {
		t.Fatalf("no password link in the banner:\n%s", out)
	}
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	form := func(path string, v url.Values) *http.Response {
		t.Helper()
		req, _ := http.NewRequest("POST", s.base+path, strings.NewReader(v.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", s.base)
		res, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res
	}
	token, _ := url.QueryUnescape(m[2])
	pw := url.Values{"token": {token}, "password": {"the operator's passphrase"}, "password_confirmation": {"the operator's passphrase"}}
	if res := form("/dashboard/reset", pw); res.Request.URL.Path != "/dashboard/signin" {
		t.Fatalf("setting the password ended at %s (%d)", res.Request.URL, res.StatusCode)
	}
	if res := form("/dashboard/signin", url.Values{"email": {"local@localhost"}, "password": {"the operator's passphrase"}}); res.StatusCode != 200 || res.Request.URL.Path != "/dashboard/tokens" {
		t.Fatalf("sign-in ended at %s (%d)", res.Request.URL, res.StatusCode)
	}
	if res := form("/dashboard/reset", pw); res.StatusCode != http.StatusNotFound {
		t.Fatalf("the link worked twice: %d", res.StatusCode)
	}
	s.stop(t)
}
