package e2e

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"
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
	mux.Handle("/", http.FileServer(http.Dir("../testdata/render/dist")))
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, r.URL.Query().Get("to"), http.StatusFound)
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
	if code, m := content("render=never&url=http://spa.test/article.html"); code != 503 {
		t.Errorf("render=never of a client-rendered page = %d %v", code, m)
	}
	if code, m := get(t, s.base+"/v1/scrape?render=always&url=http://spa.test/article.html", token); code != 200 || m["engine"] != "browser" || !strings.Contains(fmt.Sprint(m["html"]), "Life in the tide pools") {
		t.Errorf("scrape render=always = %d %v", code, m["engine"])
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

// TestRenderFigures measures static and rendered reads of the fixtures
// (TRAWL_RENDER_FIGURES=1; it takes a few minutes).
func TestRenderFigures(t *testing.T) {
	if os.Getenv("TRAWL_RENDER_FIGURES") == "" {
		t.Skip("set TRAWL_RENDER_FIGURES=1 to measure")
	}
	path := chromiumForRender(t)
	site, _, _ := fixtureSite(t)
	s := startEnv(t, []string{"--data-dir", t.TempDir()}, []string{"TRAWL_FETCH_RESOLVE=spa.test:80=" + site, "TRAWL_BROWSER_PATH=" + path})
	token := tokenRE.FindString(s.stdout.String())
	pages := []string{"article.html", "xhr.html", "hash.html", "consent.html"}
	measure := func(mode string, n int) []time.Duration {
		var d []time.Duration
		for i := 0; i < n; i++ {
			start := time.Now()
			get(t, s.base+"/v1/scrape?render="+mode+"&url=http://spa.test/"+pages[i%len(pages)], token)
			d = append(d, time.Since(start))
		}
		sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
		return d
	}
	for _, mode := range []string{"never", "always"} {
		d := measure(mode, 40)
		t.Logf("%s: median %s p95 %s", mode, d[len(d)/2].Round(time.Millisecond), d[len(d)*95/100].Round(time.Millisecond))
	}
	extracted := map[string]int{}
	for _, mode := range []string{"never", "always"} {
		for _, p := range []string{"article.html", "xhr.html", "hash.html", "consent.html", "never.html", "hog.html"} {
			if code, _ := get(t, s.base+"/v1/content?render="+mode+"&url=http://spa.test/"+p, token); code == 200 {
				extracted[mode]++
			}
		}
	}
	t.Logf("fixture pages extracted of 6: http %d, browser %d", extracted["never"], extracted["always"])
}
