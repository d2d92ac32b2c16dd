package e2e

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/trawlhq/trawl/testkit/fakesearch"
	"github.com/trawlhq/trawl/testkit/sites"
)

// readmeCommands returns the commands of the README's sh blocks, with
// backslash continuations joined.
func readmeCommands(t *testing.T) []string {
	t.Helper()
	raw, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var cmds []string
	in := false
	cur := ""
	for _, line := range strings.Split(string(raw), "\n") {
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
	s.stop(t)
}
