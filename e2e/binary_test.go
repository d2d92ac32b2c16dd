// Package e2e starts the real trawl binary and talks to it over HTTP.
package e2e

import (
	"bufio"
	"debug/buildinfo"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/trawlhq/trawl/testkit/fakellm"
	"github.com/trawlhq/trawl/testkit/fakesearch"
	"github.com/trawlhq/trawl/testkit/logtest"
	"github.com/trawlhq/trawl/testkit/pgtest"
	"github.com/trawlhq/trawl/testkit/sites"
)

var (
	buildOnce sync.Once
	binDir    string
	binPath   string
	buildErr  error
	// workDir is the working directory of every trawl process the tests
	// start, so a relative default path (./trawl-data) lands in a temporary
	// directory and never in the source tree.
	workDir string
)

// TestMain removes the binary the tests build and the processes' working
// directory, and fails the run if a test wrote a data directory into the
// source tree.
func TestMain(m *testing.M) {
	_, statErr := os.Stat("trawl-data")
	existed := statErr == nil
	var err error
	if workDir, err = os.MkdirTemp("", "trawl-e2e-work"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	if binDir != "" {
		if err := os.RemoveAll(binDir); err != nil {
			fmt.Fprintln(os.Stderr, "removing the test binary:", err)
			code = 1
		}
	}
	_ = os.RemoveAll(workDir)
	if _, err := os.Stat("trawl-data"); err == nil && !existed {
		fmt.Fprintln(os.Stderr, "a test wrote e2e/trawl-data into the source tree: give every command a --data-dir in a temporary directory")
		code = 1
	}
	os.Exit(code)
}

// binary builds app/cmd/trawl once per test run; TestMain removes it.
func binary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		binDir, buildErr = os.MkdirTemp("", "trawl-e2e-bin")
		if buildErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "trawl")
		out, err := exec.Command("go", "build", "-o", binPath, "github.com/trawlhq/trawl/app/cmd/trawl").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// trawl is a command running the built binary in workDir.
func trawl(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(binary(t), args...)
	cmd.Dir = workDir
	return cmd
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// server is a running trawl serve.
type server struct {
	cmd    *exec.Cmd
	base   string
	stdout *logtest.Buffer
	stderr *logtest.Buffer
	done   chan error
}

func start(t *testing.T, store []string) *server {
	t.Helper()
	return startEnv(t, store, nil)
}

// startEnv starts trawl serve with env added to the test's environment.
func startEnv(t *testing.T, store, env []string) *server {
	t.Helper()
	addr := freeAddr(t)
	args := append([]string{"serve", "--addr", addr}, store...)
	cmd := trawl(t, args...)
	cmd.Env = append(append(os.Environ(), "TRAWL_LOG_FORMAT=json"), env...)
	s := &server{cmd: cmd, base: "http://" + addr, stdout: &logtest.Buffer{}, stderr: &logtest.Buffer{}, done: make(chan error, 1)}
	cmd.Stdout, cmd.Stderr = s.stdout, s.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { s.done <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-s.done
		if t.Failed() {
			t.Logf("server stdout:\n%s\nstderr:\n%s", s.stdout, s.stderr)
		}
	})
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		res, err := http.Get(s.base + "/readyz")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				return s
			}
		}
		select {
		case err := <-s.done:
			t.Fatalf("server exited early: %v\n%s", err, s.stderr)
		case <-time.After(50 * time.Millisecond):
		}
	}
	t.Fatalf("server not ready:\n%s", s.stderr)
	return nil
}

func (s *server) stop(t *testing.T) {
	t.Helper()
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-s.done:
		s.done <- err
		if err != nil {
			t.Fatalf("exit after SIGTERM: %v\n%s", err, s.stderr)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("no exit 20 s after SIGTERM")
	}
}

var tokenRE = regexp.MustCompile(`trawl_[0-9A-Za-z]{40}`)

func get(t *testing.T, url, token string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	return res.StatusCode, m
}

func admin(t *testing.T, store []string, args ...string) string {
	t.Helper()
	out, err := trawl(t, append(args, store...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("trawl %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func exercise(t *testing.T, store []string) {
	s := start(t, store)
	token := tokenRE.FindString(s.stdout.String())
	if token == "" {
		t.Fatalf("no bootstrap token printed:\n%s", s.stdout)
	}
	if !strings.Contains(s.stdout.String(), "    B="+s.base+"\n    T="+token+"\n    curl -H \"Authorization: Bearer $T\" $B/v1/credits\n") {
		t.Errorf("no curl example:\n%s", s.stdout)
	}
	if strings.Contains(s.stderr.String(), token) || strings.Contains(s.stderr.String(), token[6:]) {
		t.Fatal("the token secret reached the logs")
	}
	code, user := get(t, s.base+"/user", token)
	if code != 200 || user["email"] != "local@localhost" {
		t.Fatalf("/user = %d %v", code, user)
	}
	code, cr := get(t, s.base+"/v1/credits", token)
	if code != 200 || cr["balance"] != float64(90000) || cr["formatted_balance"] != "90,000" {
		t.Fatalf("/v1/credits = %d %v", code, cr)
	}

	// Admin commands work against the store the server is using.
	out := admin(t, store, "tokens", "create", "--email", "local@localhost", "--name", "ci", "--json")
	var created map[string]any
	if err := json.Unmarshal([]byte(out), &created); err != nil || created["token"] == nil || created["preview"] == nil || created["id"] == nil || created["name"] != "ci" {
		t.Fatalf("tokens create --json = %s", out)
	}
	second := created["token"].(string)
	if code, _ := get(t, s.base+"/user", second); code != 200 {
		t.Fatalf("new token refused: %d", code)
	}
	out = admin(t, store, "tokens", "list", "--email", "local@localhost", "--json")
	if strings.Contains(out, second) || strings.Contains(out, token) || !strings.Contains(out, "last_used_at") {
		t.Fatalf("tokens list leaks a secret or lacks fields:\n%s", out)
	}
	admin(t, store, "credits", "grant", "--email", "local@localhost", "--credits", "500")
	if _, cr := get(t, s.base+"/v1/credits", token); cr["balance"] != float64(90500) {
		t.Fatalf("grant not visible to the server: %v", cr)
	}
	admin(t, store, "tokens", "delete", "--email", "local@localhost", "--id", fmt.Sprint(created["id"]))
	if code, _ := get(t, s.base+"/user", second); code != 401 {
		t.Fatalf("deleted token still works: %d", code)
	}
	admin(t, store, "accounts", "create", "--email", "new@example.com", "--plan", "pro")
	out = admin(t, store, "accounts", "list", "--json")
	if !strings.Contains(out, "new@example.com") || !strings.Contains(out, `"plan": "pro"`) {
		t.Fatalf("accounts list:\n%s", out)
	}
	admin(t, store, "accounts", "set-plan", "--email", "new@example.com", "--plan", "business")

	// Structured logs: one JSON line per request, with the request id.
	sc := bufio.NewScanner(strings.NewReader(s.stderr.String()))
	requests := 0
	for sc.Scan() {
		var line map[string]any
		if json.Unmarshal(sc.Bytes(), &line) == nil && line["msg"] == "request" && line["request_id"] != nil {
			requests++
		}
	}
	if requests < 5 {
		t.Fatalf("%d request log lines:\n%s", requests, s.stderr)
	}
	s.stop(t)

	// A second start on the same store prints no secret.
	s2 := start(t, store)
	if tokenRE.MatchString(s2.stdout.String()) {
		t.Fatalf("restart printed a token:\n%s", s2.stdout)
	}
	if code, _ := get(t, s2.base+"/user", token); code != 200 {
		t.Fatalf("bootstrap token lost across restart: %d", code)
	}
	s2.stop(t)
}

func TestBinarySQLite(t *testing.T) {
	exercise(t, []string{"--data-dir", t.TempDir()})
}

func TestBinaryPostgres(t *testing.T) {
	// The data dir still holds local files (download links' key, outbox).
	exercise(t, []string{"--database", pgtest.NewDatabase(t), "--data-dir", t.TempDir()})
}

// TestBinaryFetchesThroughResolve: --resolve sends a made-up host to a
// local fixture site, so the real binary can scrape, extract and map it.
func TestBinaryFetchesThroughResolve(t *testing.T) {
	site := sites.New(t, "fixture.test")
	article, err := os.ReadFile("../testdata/pages/article.html")
	if err != nil {
		t.Fatal(err)
	}
	site.Handle("/tide-pools", "text/html", string(article))
	site.Handle("/sitemap.xml", "application/xml", `<urlset><url><loc>http://fixture.test/tide-pools</loc></url></urlset>`)
	store := []string{"--data-dir", t.TempDir()}
	s := start(t, append(store, "--resolve", sites.ResolveFlags(site)[0]))
	token := tokenRE.FindString(s.stdout.String())
	code, c := get(t, s.base+"/v1/content?url=http://fixture.test/tide-pools", token)
	if md, _ := c["markdown"].(string); code != 200 || !strings.Contains(md, "## Three ways to keep cool") {
		t.Fatalf("content = %d %v", code, c)
	}
	code, m := get(t, s.base+"/v1/map?url=http://fixture.test/", token)
	if code != 200 || m["total"] != float64(1) {
		t.Fatalf("map = %d %v", code, m)
	}
	// Without an override a loopback target stays refused.
	code, _ = get(t, s.base+"/v1/scrape?url=http://localhost/", token)
	if code != 422 {
		t.Fatalf("localhost = %d", code)
	}
	s.stop(t)
}

// TestBinarySearchWithContent: the binary searches a local engine
// (TRAWL_SEARCH_GOOGLE_URL), extracts the results' pages from a local site
// (--resolve) and answers a prompt through a local model server.
func TestBinarySearchWithContent(t *testing.T) {
	site := sites.New(t, "fixture.test")
	article, err := os.ReadFile("../testdata/pages/article.html")
	if err != nil {
		t.Fatal(err)
	}
	site.Handle("/tide-pools", "text/html", string(article))
	engine := fakesearch.New(t, "google")
	engine.Serve(fakesearch.Result{Title: "Tide pools", Link: "http://fixture.test/tide-pools", Snippet: "How pools survive."},
		fakesearch.Result{Title: "Elsewhere", Link: "http://other.test/", Snippet: "Filtered out."})
	model := fakellm.New(t)
	t.Setenv("TRAWL_SEARCH_GOOGLE_URL", engine.URL)
	t.Setenv("TRAWL_LLM_BASE_URL", model.BaseURL())
	t.Setenv("TRAWL_LLM_MODEL", "e2e-model")
	s := start(t, []string{"--data-dir", t.TempDir(), "--resolve", sites.ResolveFlags(site)[0]})
	token := tokenRE.FindString(s.stdout.String())
	code, m := get(t, s.base+"/v1/serp/content?q=tide+pools&whitelist_domains[]=fixture.test", token)
	if code != 200 {
		t.Fatalf("serp/content = %d %v", code, m)
	}
	org := m["organic_results"].([]any)
	first, second := org[0].(map[string]any), org[1].(map[string]any)
	c, _ := first["content"].(map[string]any)
	if len(org) != 2 || c == nil || c["success"] != true || !strings.Contains(c["markdown"].(string), "Three ways to keep cool") {
		t.Fatalf("first result content = %v", first)
	}
	if _, has := second["content"]; has {
		t.Fatal("a result outside the whitelist was fetched")
	}
	code, cr := get(t, s.base+"/v1/credits", token)
	if code != 200 || cr["balance"] != float64(90000-7) {
		t.Fatalf("balance %v, want 5 + 2", cr["balance"])
	}
	req, _ := http.NewRequest("POST", s.base+"/v1/prompt", strings.NewReader(`{"prompt":"What keeps pools cool?","url":"http://fixture.test/tide-pools"}`))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !strings.Contains(string(body), "[e2e-model] You asked: What keeps pools cool?") {
		t.Fatalf("prompt = %d %s", res.StatusCode, body)
	}
	s.stop(t)
}

func TestCLIUsage(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{nil, 2, "Usage:"},
		{[]string{"bogus"}, 2, "unknown command"},
		{[]string{"version"}, 0, "trawl "},
		{[]string{"tokens", "create", "--data-dir", t.TempDir()}, 2, "needs --email"},
		{[]string{"accounts", "create", "--email", "nope", "--data-dir", t.TempDir()}, 1, "valid email"},
		{[]string{"serve", "--resolve", "bad", "--data-dir", t.TempDir()}, 2, "host:port=ip:port"},
		{[]string{"tokens", "list", "--email", "ghost@example.com", "--data-dir", t.TempDir()}, 1, "no account"},
		{[]string{"migrate", "--data-dir", t.TempDir()}, 0, "migrations applied (sqlite)"},
		{[]string{"tokens", "create", "--help"}, 0, "Usage: trawl tokens create --email E"},
		{[]string{"serve", "--help"}, 0, "--resolve HOST:PORT=IP:PORT"},
		{[]string{"accounts", "list", "--plan", "pro", "--data-dir", t.TempDir()}, 2, "unknown flag --plan"},
		{[]string{"version", "--data-dir", t.TempDir()}, 2, "unknown flag --data-dir"},
		{[]string{"serve", "--addr", busy.Addr().String(), "--data-dir", t.TempDir()}, 1, "in use by another process"},
	} {
		cmd := trawl(t, c.args...)
		out, _ := cmd.CombinedOutput()
		if cmd.ProcessState.ExitCode() != c.code || !strings.Contains(string(out), c.want) || c.code == 1 && tokenRE.Match(out) {
			t.Errorf("trawl %v: exit %d, output %q; want exit %d containing %q", c.args, cmd.ProcessState.ExitCode(), out, c.code, c.want)
		}
	}
}

// TestBinaryVersion: built without -ldflags, the binary reports the
// module version and VCS revision Go embedded in it.
func TestBinaryVersion(t *testing.T) {
	bin := binary(t)
	info, err := buildinfo.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	out, err := trawl(t, "version").Output()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		want = append(want, v)
	}
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" {
			want = append(want, "revision "+s.Value[:12])
		}
		if s.Key == "vcs.modified" && s.Value == "true" {
			want = append(want, "modified")
		}
	}
	if len(want) == 0 {
		want = append(want, "trawl dev\n")
	}
	for _, w := range want {
		if !strings.Contains(string(out), w) {
			t.Errorf("trawl version = %q, want %q in it (build info %v)", out, w, info)
		}
	}
}
