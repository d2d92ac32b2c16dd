package e2e

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/trawlhq/trawl/testkit/fakellm"
	"github.com/trawlhq/trawl/testkit/fakesearch"
	"github.com/trawlhq/trawl/testkit/sites"
)

// TestSDKPython runs the Python SDK's own test suite (sdk/python/tests)
// against the real binary: every method of the client on fixture sites, a
// local search engine and a local model, errors and the retry policy on
// real 503, 422, 402, 401 and 429 answers, a bulk job whose signed webhook
// the suite receives and verifies, and the OpenAPI document the server
// serves against the SDK's types. It skips without python3, except under
// CI=true, where it fails.
func TestSDKPython(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err == nil {
		// The SDK needs Python 3.11 or later (typing.NotRequired).
		if out, verr := exec.Command(python, "-c", "import sys; sys.exit(sys.version_info < (3, 11))").CombinedOutput(); verr != nil {
			err = fmt.Errorf("%s is older than 3.11: %v %s", python, verr, out)
		}
	}
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("the Python SDK's tests need python3 (3.11 or later): %v", err)
		}
		t.Skipf("no usable python3: %v", err)
	}

	article, err := os.ReadFile("../testdata/pages/article.html")
	if err != nil {
		t.Fatal(err)
	}
	site := sites.New(t, "fixture.test")
	site.Handle("/tide-pools", "text/html", string(article))
	site.Handle("/challenge", "text/html", `<html><head><title>Just a moment...</title></head><body><script>window._cf_chl_opt={}</script></body></html>`)
	var bulk []string
	for i := range 3 {
		path := fmt.Sprintf("/pools/%d", i)
		site.Handle(path, "text/html", fmt.Sprintf(`<html><head><title>Pool %d</title></head><body><article><h1>Pool %d</h1>
<p>Pool number %d sits high on the shore. The tide leaves it twice a day, and the water warms while the sun is up, so only hardy animals live there.</p>
<p>Anemones close, crabs hide under the weed, and the snails wait for the sea to come back over the rocks in the evening.</p></article></body></html>`, i, i, i))
		bulk = append(bulk, site.URL(path))
	}
	site.Handle("/sitemap.xml", "application/xml", `<urlset><url><loc>`+site.URL("/tide-pools")+`</loc></url><url><loc>`+bulk[0]+`</loc></url></urlset>`)

	engine := fakesearch.New(t, "google")
	engine.Serve(fakesearch.Result{Title: "Tide pools", Link: site.URL("/tide-pools"), Snippet: "How pools survive."},
		fakesearch.Result{Title: "Elsewhere", Link: "http://other.test/", Snippet: "Filtered out."})
	const promptAnswer = "Shade and depth keep pools cool."
	const extractAnswer = `{"title":"Tide pools"}`
	model := fakellm.New(t)
	model.Answer = func(r fakellm.Request) string {
		if len(r.ResponseFormat) > 0 {
			return extractAnswer
		}
		return promptAnswer
	}

	// The suite receives the webhook on a loopback port that the server
	// reaches as hooks.test, through a resolve override.
	hookAddr := freeAddr(t)
	_, hookPort, _ := net.SplitHostPort(hookAddr)
	store := []string{"--data-dir", t.TempDir()}
	s := startEnv(t, append(append([]string{}, store...), "--resolve", sites.ResolveFlags(site)[0], "--resolve", "hooks.test:"+hookPort+"="+hookAddr),
		[]string{"TRAWL_SEARCH_GOOGLE_URL=" + engine.URL, "TRAWL_LLM_BASE_URL=" + model.BaseURL(), "TRAWL_LLM_MODEL=e2e-model",
			"TRAWL_WEBHOOK_BACKOFF=20ms", "TRAWL_BROWSER_OFF=true"})
	token := tokenRE.FindString(s.stdout.String())
	if token == "" {
		t.Fatalf("no token printed:\n%s", s.stdout)
	}
	secret := strings.TrimSpace(admin(t, store, "webhooks", "secret", "--email", "local@localhost"))
	admin(t, store, "accounts", "create", "--email", "basic@example.com", "--plan", "basic")
	basic := tokenRE.FindString(admin(t, store, "tokens", "create", "--email", "basic@example.com"))
	admin(t, store, "accounts", "create", "--email", "noplan@example.com", "--plan", "none")
	noPlan := tokenRE.FindString(admin(t, store, "tokens", "create", "--email", "noplan@example.com"))
	if secret == "" || basic == "" || noPlan == "" {
		t.Fatal("could not set up the webhook secret and the extra tokens")
	}

	cmd := exec.Command(python, "-m", "unittest", "discover", "-s", "tests", "-v")
	cmd.Dir = "../sdk/python"
	cmd.Env = append(os.Environ(),
		"PYTHONPATH=src", "PYTHONDONTWRITEBYTECODE=1", "TRAWL_SDK_REQUIRE_SERVER=1",
		"TRAWL_API_URL="+s.base, "TRAWL_API_KEY="+token,
		"TRAWL_TEST_BASIC_KEY="+basic, "TRAWL_TEST_NOPLAN_KEY="+noPlan,
		"TRAWL_TEST_ARTICLE_URL="+site.URL("/tide-pools"), "TRAWL_TEST_SITE_URL="+site.URL("/"),
		"TRAWL_TEST_CAPTCHA_URL="+site.URL("/challenge"), "TRAWL_TEST_MISSING_URL="+site.URL("/gone"),
		"TRAWL_TEST_BULK_URLS="+strings.Join(bulk, ","), "TRAWL_TEST_SEARCH_DOMAIN="+site.Host,
		"TRAWL_TEST_PROMPT_ANSWER="+promptAnswer, "TRAWL_TEST_EXTRACT_ANSWER="+extractAnswer,
		"TRAWL_TEST_WEBHOOK_LISTEN="+hookAddr, "TRAWL_TEST_WEBHOOK_URL=http://hooks.test:"+hookPort+"/trawl",
		"TRAWL_TEST_WEBHOOK_SECRET="+secret,
	)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the Python SDK's tests failed: %v\n%s", err, out)
	}
	// Every test ran: none skipped for want of the server or a fixture (only
	// the offline install may skip outside CI, on a python3 that cannot make
	// a venv with pip).
	for _, line := range strings.Split(string(out), "\n") {
		if strings.Contains(line, "... skipped") && (os.Getenv("CI") == "true" || !strings.Contains(line, "test_installs_offline_in_a_plain_venv")) {
			t.Fatalf("a test of the Python SDK was skipped: %s\n%s", line, out)
		}
	}
	t.Logf("%s", out)
	// The server is still healthy after the suite.
	res, err := http.Get(s.base + "/readyz")
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("readyz after the suite: %v %v", res, err)
	}
	res.Body.Close()
	s.stop(t)
}

// TestSDKPythonTypes: the Python SDK, its examples and its tests pass mypy
// --strict, so the annotations users' type checkers read are complete and
// consistent. It skips without mypy, except under CI=true, where it fails.
func TestSDKPythonTypes(t *testing.T) {
	mypy, err := exec.LookPath("mypy")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("the Python SDK's type check needs mypy (Debian: python3-mypy): %v", err)
		}
		t.Skipf("no mypy: %v", err)
	}
	cmd := exec.Command(mypy, "--strict", "--python-version", "3.11", "--cache-dir", t.TempDir(), "src/trawl", "examples", "tests", "build_backend")
	cmd.Dir = "../sdk/python"
	cmd.Env = append(os.Environ(), "MYPYPATH=src:tests")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("mypy --strict: %v\n%s", err, out)
	}
}
