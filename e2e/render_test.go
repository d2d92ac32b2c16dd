package e2e

import (
	"encoding/json"
	"fmt"
	"html"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/trawlhq/trawl/testkit/fakesearch"
)

// chromiumForRender finds Chromium for the rendering tests: they skip
// locally without it and fail under CI=true.
func chromiumForRender(t *testing.T) string {
	t.Helper()
	for _, p := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if found, err := exec.LookPath(p); err == nil {
			return found
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("no Chromium on this machine and CI=true (.ci/run installs Debian's chromium)")
	}
	t.Skip("no Chromium on this machine (apt-get install chromium)")
	return ""
}

// fixtureSite serves the built front-end fixtures (testdata/render/dist,
// rebuilt by make fixtures) with a redirect endpoint, and a canary on
// loopback that no rendered page may reach.
func fixtureSite(t *testing.T) (site string, canaryPort int, canaryHits *atomic.Int64) {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/img/", func(w http.ResponseWriter, r *http.Request) {
		imageHits.Add(1)
		w.Header().Set("Content-Type", "image/jpeg")
	})
	mux.Handle("/", http.FileServer(http.Dir("../testdata/render/dist")))
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, r.URL.Query().Get("to"), http.StatusFound)
	})
	// Script shells whose document goes to ?to= once it ran: by a script
	// and by a meta refresh.
	mux.HandleFunc("/leave/script", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `<!doctype html><html><body><div id="root"></div><script>location.href = %q;</script></body></html>`, r.URL.Query().Get("to"))
	})
	// An article drawn by a script, and 300 ms later the document sent to ?to=.
	mux.HandleFunc("/leave/late", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `<!doctype html><html><head><title>Tide pools</title></head><body><div id="root"></div><script>
document.getElementById('root').innerHTML = '<article><h1>Life in the tide pools</h1><p>' + 'Anemones close when the water leaves them, snails seal their shells and crabs hide under wet weed until the sea comes back. '.repeat(4) + '</p></article>';
setTimeout(() => { location.href = %q; }, 300);
</script></body></html>`, r.URL.Query().Get("to"))
	})
	mux.HandleFunc("/leave/meta", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `<!doctype html><html><head><meta http-equiv="refresh" content="0; url=%s"></head><body><div id="root"></div></body></html>`, html.EscapeString(r.URL.Query().Get("to")))
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: mux}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	hits := &atomic.Int64{}
	canary := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		t.Logf("canary hit: %s %s", r.Method, r.URL)
	})
	cln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := cln.Addr().(*net.TCPAddr).Port
	c := &http.Server{Handler: canary}
	go c.Serve(cln)
	t.Cleanup(func() { c.Close() })
	if ln6, err := net.Listen("tcp", fmt.Sprintf("[::1]:%d", port)); err == nil {
		c6 := &http.Server{Handler: canary}
		go c6.Serve(ln6)
		t.Cleanup(func() { c6.Close() })
	}
	return ln.Addr().String(), port, hits
}

// imageHits counts requests for the fixtures' pictures: a render loads none.
var imageHits atomic.Int64

// TestBinaryRenders runs trawl serve with a local Chromium against the
// fixture pages: client-rendered pages step up to the browser (engine
// browser, same cost), render=never keeps HTTP, the consent overlay is not
// the content, a page that never settles and a memory hog fail free within
// the budget and the next page renders, and the SSRF page reaches nothing.
func TestBinaryRenders(t *testing.T) {
	path := chromiumForRender(t)
	site, port, hits := fixtureSite(t)
	s := startEnv(t, []string{"--data-dir", t.TempDir()}, []string{
		"TRAWL_FETCH_RESOLVE=spa.test:80=" + site, "TRAWL_BROWSER_PATH=" + path, "TRAWL_FETCH_TIMEOUT=8s", "TRAWL_BROWSER_PAGES=2",
	})
	token := tokenRE.FindString(s.stdout.String())
	if !strings.Contains(s.stderr.String()+s.stdout.String(), "rendering: local Chromium at "+path) {
		t.Errorf("the start-up log does not say how pages are rendered:\n%s", s.stderr)
	}
	content := func(q string) (int, map[string]any) {
		t.Helper()
		return get(t, s.base+"/v1/content?"+q, token)
	}
	balance := func() float64 {
		_, m := get(t, s.base+"/v1/credits", token)
		return m["balance"].(float64)
	}
	for _, c := range []struct{ page, want string }{
		{"article.html", "Life in the tide pools"},
		{"xhr.html", "Tide pools, fetched late"},
		{"hash.html", "Tide pools by hash route"},
		{"consent.html", "Tide pools behind a banner"},
		{"lazy.html", "Tide pools with lazy pictures"},
	} {
		before := balance()
		code, m := content("url=http://spa.test/" + c.page)
		md, _ := m["markdown"].(string)
		if code != 200 || m["engine"] != "browser" || !strings.Contains(md, c.want) || !strings.Contains(md, "Three ways to keep cool") {
			t.Errorf("%s = %d engine %v: %.400s %v", c.page, code, m["engine"], md, m["message"])
			continue
		}
		if strings.Contains(md, "We value your privacy") || strings.Contains(md, "842 partners") {
			t.Errorf("%s: the consent overlay is in the content: %s", c.page, md)
		}
		if after := balance(); before-after != 2 {
			t.Errorf("%s cost %v credits, want 2", c.page, before-after)
		}
	}
	if n := imageHits.Load(); n != 0 {
		t.Errorf("the browser loaded %d pictures; images are not loaded", n)
	}
	if code, m := content("render=never&url=http://spa.test/article.html"); code != 503 {
		t.Errorf("render=never of a client-rendered page = %d %v", code, m)
	}
	if code, m := get(t, s.base+"/v1/scrape?render=always&url=http://spa.test/article.html", token); code != 200 || m["engine"] != "browser" || !strings.Contains(fmt.Sprint(m["html"]), "Life in the tide pools") {
		t.Errorf("scrape render=always = %d %v", code, m["engine"])
	}
	// A scrape whose render fails still has the static HTML to answer with.
	if code, m := get(t, s.base+"/v1/scrape?url=http://spa.test/never.html", token); code != 200 || m["engine"] != "http" || !strings.Contains(fmt.Sprint(m["html"]), `<div id="root"></div>`) {
		t.Errorf("scrape of a page that never settles = %d %v", code, m["engine"])
	}
	before := balance()
	for _, page := range []string{"never.html", "hog.html"} {
		start := time.Now()
		code, m := content("url=http://spa.test/" + page)
		if took := time.Since(start); code != 503 || took > 12*time.Second {
			t.Errorf("%s = %d after %s: %v", page, code, took, m["message"])
		}
		if code, _ := content("url=http://spa.test/article.html"); code != 200 {
			t.Errorf("the page after %s = %d", page, code)
		}
	}
	if after := balance(); before-after != 4 {
		t.Errorf("two failed and two good renders cost %v, want 4 (failures free)", before-after)
	}
	content(fmt.Sprintf("url=http://spa.test/ssrf.html?port=%d", port))
	time.Sleep(300 * time.Millisecond)
	if n := hits.Load(); n != 0 {
		t.Fatalf("the SSRF page reached the canary %d times", n)
	}
}

// TestBinaryRenderRefusesNonPublicNavigation: under render=always and
// auto, a page whose document goes to loopback or the metadata address, by
// a redirect, a script or a meta refresh, gets from /v1/scrape and
// /v1/content the answer a plain fetch redirected there gets: a free 422
// on url. Nothing reaches the canary.
func TestBinaryRenderRefusesNonPublicNavigation(t *testing.T) {
	path := chromiumForRender(t)
	site, port, hits := fixtureSite(t)
	s := startEnv(t, []string{"--data-dir", t.TempDir()}, []string{
		"TRAWL_FETCH_RESOLVE=spa.test:80=" + site, "TRAWL_BROWSER_PATH=" + path, "TRAWL_FETCH_TIMEOUT=20s", "TRAWL_BROWSER_PAGES=2",
	})
	token := tokenRE.FindString(s.stdout.String())
	balance := func() float64 {
		_, m := get(t, s.base+"/v1/credits", token)
		return m["balance"].(float64)
	}
	targets := []string{"http://169.254.169.254/latest/meta-data/", fmt.Sprintf("http://127.0.0.1:%d/secret", port), fmt.Sprintf("http://localhost:%d/secret", port)}
	before := balance()
	i := 0
	for _, endpoint := range []string{"scrape", "content"} {
		for _, mode := range []string{"always", "auto"} {
			for _, how := range []string{"redirect", "leave/script", "leave/meta"} {
				to := targets[i%len(targets)]
				i++
				page := "http://spa.test/" + how + "?to=" + url.QueryEscape(to)
				code, m := get(t, s.base+"/v1/"+endpoint+"?render="+mode+"&url="+url.QueryEscape(page), token)
				errs, _ := m["errors"].(map[string]any)
				if code != 422 || fmt.Sprint(errs["url"]) != "[The url resolves to a non-public address.]" {
					t.Errorf("%s render=%s, %s to %s = %d %v (final_url %v, engine %v)", endpoint, mode, how, to, code, m["message"], m["final_url"], m["engine"])
				}
			}
		}
	}
	if after := balance(); after != before {
		t.Errorf("the refused pages cost %v credits, want 0", before-after)
	}
	time.Sleep(300 * time.Millisecond)
	if n := hits.Load(); n != 0 {
		t.Fatalf("the canary was reached %d times", n)
	}
}

// TestBinaryRenderPageThatLeavesLate: a page that draws its article and
// 300 ms later sends its document to the metadata address is answered
// within the default budget (30 s) with the rendered article or the free
// 422 on url, by /v1/content and /v1/scrape, in auto and always.
func TestBinaryRenderPageThatLeavesLate(t *testing.T) {
	path := chromiumForRender(t)
	site, _, _ := fixtureSite(t)
	s := startEnv(t, []string{"--data-dir", t.TempDir()}, []string{"TRAWL_FETCH_RESOLVE=spa.test:80=" + site, "TRAWL_BROWSER_PATH=" + path, "TRAWL_BROWSER_PAGES=2"})
	token := tokenRE.FindString(s.stdout.String())
	// The browser starts with the first render: not inside the times measured here.
	if code, _ := get(t, s.base+"/v1/scrape?render=always&url=http://spa.test/article.html", token); code != 200 {
		t.Fatalf("warming up: %d", code)
	}
	page := url.QueryEscape("http://spa.test/leave/late?to=" + url.QueryEscape("http://169.254.169.254/latest/meta-data/"))
	for _, endpoint := range []string{"content", "scrape"} {
		for _, mode := range []string{"auto", "always"} {
			start := time.Now()
			code, m := get(t, s.base+"/v1/"+endpoint+"?render="+mode+"&url="+page, token)
			took := time.Since(start)
			errs, _ := m["errors"].(map[string]any)
			article := fmt.Sprint(m["markdown"], m["html"])
			refused := code == 422 && fmt.Sprint(errs["url"]) == "[The url resolves to a non-public address.]"
			rendered := code == 200 && m["engine"] == "browser" && strings.Contains(article, "Life in the tide pools") && m["final_url"] != "http://169.254.169.254/latest/meta-data/"
			t.Logf("%s render=%s: %d after %s", endpoint, mode, code, took.Round(time.Millisecond))
			if !refused && !rendered || took >= 25*time.Second {
				t.Errorf("%s render=%s = %d after %s: %v (engine %v, final_url %v)", endpoint, mode, code, took, m["message"], m["engine"], m["final_url"])
			}
		}
	}
}

// googleScriptPage is a result page whose results a script writes, as
// Google serves them to browsers: over plain HTTP it holds no result.
const googleScriptPage = `<!doctype html><html><head><title>tide pools - Google Search</title></head><body>
<div id="main"><div id="search"><div id="rso"></div></div></div>
<script>
setTimeout(() => {
  document.getElementById('rso').innerHTML =
    '<div class="g"><a href="https://tides.example/pools"><h3>Life in the tide pools</h3></a><cite>tides.example</cite><div class="VwiC3b">How anemones, snails and crabs survive the day.</div></div>' +
    '<div class="g"><a href="https://shore.example/guide"><h3>A guide to the shore</h3></a><cite>shore.example</cite><div class="VwiC3b">Where to look at low tide.</div></div>';
}, 200);
</script></body></html>`

// TestBinaryGoogleThroughBrowser: with TRAWL_SEARCH_RENDER=google the
// result page is fetched in the browser and parsed by the same parser;
// without it the same page yields no result.
func TestBinaryGoogleThroughBrowser(t *testing.T) {
	path := chromiumForRender(t)
	engine := fakesearch.New(t, "google")
	engine.Page = []byte(googleScriptPage)
	host := strings.TrimPrefix(engine.URL, "http://")
	env := []string{"TRAWL_SEARCH_GOOGLE_URL=http://google.test", "TRAWL_FETCH_RESOLVE=google.test:80=" + host, "TRAWL_BROWSER_PATH=" + path}
	links := func(s *server) (int, []string) {
		token := tokenRE.FindString(s.stdout.String())
		code, m := get(t, s.base+"/v1/serp?q=tide+pools", token)
		var out []string
		org, _ := m["organic_results"].([]any)
		for _, o := range org {
			out = append(out, fmt.Sprint(o.(map[string]any)["link"]))
		}
		return code, out
	}
	rendered := startEnv(t, []string{"--data-dir", t.TempDir()}, append(env, "TRAWL_SEARCH_RENDER=google"))
	code, got := links(rendered)
	if code != 200 || len(got) != 2 || got[0] != "https://tides.example/pools" {
		t.Fatalf("google through the browser = %d %v", code, got)
	}
	static := startEnv(t, []string{"--data-dir", t.TempDir()}, env)
	if code, got := links(static); code == 200 && len(got) > 0 {
		t.Fatalf("the static fetch found results in a page that writes them with a script: %v", got)
	}
}

// TestBinaryBulkRenders runs a bulk job of client-rendered pages through
// trawl serve with a local Chromium: each page steps up to the browser
// (engine browser in the webhook, the rendered text in its content), the
// job's render=never reads the same pages over HTTP and fails them free,
// and a page that never settles fails free inside an otherwise good job.
func TestBinaryBulkRenders(t *testing.T) {
	path := chromiumForRender(t)
	site, _, _ := fixtureSite(t)
	hook := newHook(t, 0)
	hookResolve, hookURL := hook.resolve()
	s := startEnv(t, []string{"--data-dir", t.TempDir()}, []string{
		"TRAWL_FETCH_RESOLVE=spa.test:80=" + site + "," + hookResolve, "TRAWL_BROWSER_PATH=" + path, "TRAWL_FETCH_TIMEOUT=8s", "TRAWL_BROWSER_PAGES=2",
	})
	token := tokenRE.FindString(s.stdout.String())
	balance := func() float64 {
		_, m := get(t, s.base+"/v1/credits", token)
		return m["balance"].(float64)
	}
	rendered := map[string]string{
		"http://spa.test/article.html": "Life in the tide pools",
		"http://spa.test/xhr.html":     "Tide pools, fetched late",
		"http://spa.test/hash.html":    "Tide pools by hash route",
	}
	never := "http://spa.test/never.html"
	urls := []string{never}
	for u := range rendered {
		urls = append(urls, u)
	}
	sort.Strings(urls)

	// run posts a job and returns its completion webhook's results by URL.
	run := func(render string) map[string]map[string]any {
		t.Helper()
		sent := hook.count()
		body := map[string]any{"urls": urls, "callback_url": hookURL}
		if render != "" {
			body["render"] = render
		}
		code, ack := postJSON(t, s.base+"/v1/content/bulk", token, body)
		if code != 202 {
			t.Fatalf("render=%q: ack = %d %v", render, code, ack)
		}
		job := waitStatus(t, s.base, token, ack["job_id"].(string), func(m map[string]any) bool { return m["status"] == "completed" || m["status"] == "failed" }, 90*time.Second)
		if job["status"] != "completed" || job["processed_count"] != float64(len(urls)) {
			t.Fatalf("render=%q: job = %v", render, job)
		}
		deadline := time.Now().Add(10 * time.Second)
		for hook.count() == sent && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		hook.mu.Lock()
		raw := hook.bodies[len(hook.bodies)-1]
		hook.mu.Unlock()
		var done struct {
			Results []map[string]any `json:"results"`
		}
		if err := json.Unmarshal(raw, &done); err != nil || len(done.Results) != len(urls) {
			t.Fatalf("render=%q: completion webhook %v: %.500s", render, err, raw)
		}
		byURL := map[string]map[string]any{}
		for _, r := range done.Results {
			byURL[r["url"].(string)] = r
		}
		return byURL
	}

	before := balance()
	res := run("")
	for u, want := range rendered {
		r := res[u]
		content, _ := r["content"].(map[string]any)
		md, _ := content["markdown"].(string)
		if r["success"] != true || r["engine"] != "browser" || !strings.Contains(md, want) || !strings.Contains(md, "Three ways to keep cool") {
			t.Errorf("%s: success %v engine %v reason %v: %.300s", u, r["success"], r["engine"], r["reason"], md)
		}
	}
	if r := res[never]; r["success"] != false || r["reason"] == nil || r["content"] != nil {
		t.Errorf("the page that never settles: %v", r)
	}
	if spent := before - balance(); spent != float64(2*len(rendered)) {
		t.Errorf("the job cost %v credits, want %d (2 a rendered page, the failure free)", spent, 2*len(rendered))
	}

	before = balance()
	res = run("never")
	for _, u := range urls {
		if r := res[u]; r["success"] != false || r["engine"] == "browser" {
			t.Errorf("render=never: %s succeeded or rendered: %v", u, r)
		}
	}
	if spent := before - balance(); spent != 0 {
		t.Errorf("render=never of client-rendered pages cost %v credits, want 0", spent)
	}
	s.stop(t)
}
