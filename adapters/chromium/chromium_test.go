package chromium_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/trawlhq/trawl/adapters/chromium"
	"github.com/trawlhq/trawl/adapters/egress"
	"github.com/trawlhq/trawl/adapters/fetch"
	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/core/weburl"
	"github.com/trawlhq/trawl/ports"
	"github.com/trawlhq/trawl/testkit/rendertest"
)

// chromiumPath finds Chromium; locally the tests skip without it, under
// CI=true they must run.
func chromiumPath(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("TRAWL_BROWSER_PATH"); p != "" {
		return p
	}
	for _, n := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("no Chromium on this machine and CI=true (.ci/run installs Debian's chromium)")
	}
	t.Skip("no Chromium on this machine (apt-get install chromium)")
	return ""
}

type rig struct {
	r      *chromium.Renderer
	proxy  *egress.Proxy
	site   string // http://site.test
	canary *atomic.Int64
}

// newRig serves handler as http://site.test (a resolve override, as in
// production tests) and a canary on 127.0.0.1 and [::1] that must never be
// reached; private.test resolves to 127.0.0.1.
func newRig(t *testing.T, handler http.Handler, o chromium.Options) *rig {
	t.Helper()
	path := chromiumPath(t)
	hits := &atomic.Int64{}
	canary := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		t.Logf("canary hit: %s %s", r.Method, r.URL)
		fmt.Fprint(w, "<p>secret</p>")
	})
	ln4, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln4.Addr().(*net.TCPAddr).Port
	c4 := &http.Server{Handler: canary}
	go c4.Serve(ln4)
	t.Cleanup(func() { c4.Close() })
	if ln6, err := net.Listen("tcp", fmt.Sprintf("[::1]:%d", port)); err == nil {
		c6 := &http.Server{Handler: canary}
		go c6.Serve(ln6)
		t.Cleanup(func() { c6.Close() })
	}
	site := httptest.NewServer(handler)
	t.Cleanup(site.Close)
	f := fetch.New(fetch.Options{
		Resolve: map[string]string{"site.test:80": site.Listener.Addr().String(), "other.test:80": site.Listener.Addr().String()},
		LookupIP: func(ctx context.Context, host string) ([]netip.Addr, error) {
			switch host {
			case "private.test":
				return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
			case "public.test":
				return []netip.Addr{netip.MustParseAddr("93.184.215.14")}, nil
			}
			return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
		},
		Timeout: 5 * time.Second,
	})
	p, err := egress.Start(egress.Options{Dial: f.DialContext})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	o.ExecPath, o.ProxyAddr, o.Guard = path, p.Addr(), f
	r, err := chromium.New(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	t.Setenv("CANARY_PORT", fmt.Sprint(port))
	return &rig{r: r, proxy: p, site: "http://site.test", canary: hits}
}

func canaryPort() string { return os.Getenv("CANARY_PORT") }

// warmUp renders path once, so the browser's start is not inside a budget
// or a time a test measures.
func (rg *rig) warmUp(t *testing.T, path string) {
	t.Helper()
	if _, err := rg.r.Render(context.Background(), ports.RenderRequest{URL: mustParse(rg.site + path), Timeout: time.Minute}); err != nil {
		t.Fatalf("warming up: %v", err)
	}
}

const article = `<article><h1>Rendered heading</h1><p>` +
	`This paragraph was written into the page by a script after it loaded, so a plain HTTP fetch sees only an empty root element and no words at all. ` +
	`A browser runs the script and sees the whole article, which is what a reader sees too.</p></article>`

// TestRendererContract runs the renderer contract on Chromium, as
// testkit/fakerender runs it on the in-process fake.
func TestRendererContract(t *testing.T) {
	rendertest.Run(t, func(t *testing.T, h http.Handler) ports.Renderer {
		return newRig(t, h, chromium.Options{Concurrency: 2}).r
	})
}

func TestRenderClientSideArticle(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `<!doctype html><html><head><title>Shell</title></head><body><div id="root"></div>
<script>setTimeout(() => { document.getElementById('root').innerHTML = %q; }, 300)</script></body></html>`, article)
	})
	rg := newRig(t, mux, chromium.Options{Concurrency: 2})
	res, err := rg.r.Render(context.Background(), ports.RenderRequest{URL: mustParse(rg.site + "/")})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(res.HTML), "Rendered heading") || res.StatusCode != 200 || res.FinalURL != "http://site.test/" {
		t.Fatalf("render = %d %s %.300s", res.StatusCode, res.FinalURL, res.HTML)
	}
}

// TestRenderSSRF: a page that tries every way a browser has to reach
// loopback, link-local and a private name leaves the canary untouched,
// while its own same-site request goes through.
func TestRenderSSRF(t *testing.T) {
	var own atomic.Int64
	mux := http.NewServeMux()
	mux.HandleFunc("/own", func(w http.ResponseWriter, r *http.Request) { own.Add(1); fmt.Fprint(w, "ok") })
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://127.0.0.1:"+canaryPort()+"/redirected", http.StatusFound)
	})
	mux.HandleFunc("/redirect-private", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://private.test:"+canaryPort()+"/redirected", http.StatusFound)
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		port := canaryPort()
		targets := []string{
			"http://127.0.0.1:" + port + "/x", "http://[::1]:" + port + "/x", "http://localhost:" + port + "/x",
			"http://169.254.169.254/latest/meta-data/", "http://private.test:" + port + "/x",
			"http://site.test/redirect", "http://site.test/redirect-private",
			"https://127.0.0.1:" + port + "/x",
		}
		var b strings.Builder
		b.WriteString(`<!doctype html><html><body><div id="log"></div><script>const T = [`)
		for _, u := range targets {
			fmt.Fprintf(&b, "%q,", u)
		}
		b.WriteString(`];
fetch('/own');
for (const u of T) {
  fetch(u).catch(() => {});
  try { const x = new XMLHttpRequest(); x.open('GET', u); x.send(); } catch (e) {}
  const i = document.createElement('img'); i.src = u; document.body.appendChild(i);
  const f = document.createElement('iframe'); f.src = u; document.body.appendChild(f);
  const s = document.createElement('script'); s.src = u; document.body.appendChild(s);
  const l = document.createElement('link'); l.rel = 'stylesheet'; l.href = u; document.head.appendChild(l);
  try { new WebSocket(u.replace(/^http/, 'ws')); } catch (e) {}
  try { new EventSource(u); } catch (e) {}
  try { navigator.sendBeacon(u, 'x'); } catch (e) {}
  try { window.open(u); } catch (e) {}
}
try { navigator.serviceWorker && navigator.serviceWorker.register('/sw.js'); } catch (e) {}
try { const pc = new RTCPeerConnection({iceServers: [{urls: 'stun:127.0.0.1:` + port + `'}]}); pc.createDataChannel('x'); pc.createOffer().then(o => pc.setLocalDescription(o)); } catch (e) {}
document.getElementById('log').textContent = 'tried ' + T.length;
setTimeout(() => { location.href = T[0]; }, 400);
</script></body></html>`)
		fmt.Fprint(w, b.String())
	})
	mux.HandleFunc("/plain", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "<p>plain</p>") })
	rg := newRig(t, mux, chromium.Options{Concurrency: 1, Timeout: 8 * time.Second})
	rg.warmUp(t, "/plain")
	_, err := rg.r.Render(context.Background(), ports.RenderRequest{URL: mustParse(rg.site + "/")})
	t.Logf("render: %v (proxy refused %d)", err, rg.proxy.Refused())
	// The navigation to the canary must not have happened either; give
	// stragglers a moment.
	time.Sleep(300 * time.Millisecond)
	if n := rg.canary.Load(); n != 0 {
		t.Fatalf("the canary was reached %d times", n)
	}
	if own.Load() == 0 {
		t.Fatal("the page's own request never arrived: the page's scripts did not run")
	}
	if rg.proxy.Refused() == 0 {
		t.Fatal("the egress proxy refused nothing: the browser went around it")
	}
	// Each non-http scheme as the page itself is refused outright.
	for _, u := range []string{"file:///etc/passwd", "chrome://version", "data:text/html,<p>x</p>", "http://127.0.0.1:" + canaryPort() + "/", "http://private.test/"} {
		if _, err := rg.r.Render(context.Background(), ports.RenderRequest{URL: mustParse(u)}); !failure.Is(weburl.Failure(err, "url"), failure.Invalid) {
			t.Errorf("render %s: %v, want invalid", u, err)
		}
	}
}

// TestRenderNeverSettlesThenNext: a page that keeps changing and keeps the
// network busy fails within its budget as unavailable, and a page after it
// renders.
func TestRenderNeverSettlesThenNext(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/poll", func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(50 * time.Millisecond)
		fmt.Fprint(w, time.Now().UnixNano())
	})
	mux.HandleFunc("/busy", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><body><p id="t"></p><script>
setInterval(() => { fetch('/poll').then(r => r.text()).then(t => { document.getElementById('t').textContent += t + ' '; }); }, 60);
</script></body>`)
	})
	mux.HandleFunc("/hog", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><body><p>hog</p><script>
const keep = []; function grow() { for (let i = 0; i < 50; i++) keep.push(new Array(1 << 20).fill(i)); setTimeout(grow, 0); } grow();
</script></body>`)
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `<!doctype html><body><div id="root"></div><script>document.getElementById('root').innerHTML = %q</script></body>`, article)
	})
	rg := newRig(t, mux, chromium.Options{Concurrency: 1, PageHeapLimit: 128 << 20})
	rg.warmUp(t, "/")
	for _, path := range []string{"/busy", "/hog"} {
		start := time.Now()
		_, err := rg.r.Render(context.Background(), ports.RenderRequest{URL: mustParse(rg.site + path), Timeout: 4 * time.Second})
		took := time.Since(start)
		if !failure.Is(weburl.Failure(err, "url"), failure.Unavailable) || took > 6*time.Second {
			t.Fatalf("%s: err %v after %s, want unavailable within the budget", path, err, took)
		}
		t.Logf("%s: %v after %s", path, err, took.Round(time.Millisecond))
		res, err := rg.r.Render(context.Background(), ports.RenderRequest{URL: mustParse(rg.site + "/")})
		if err != nil || !strings.Contains(string(res.HTML), "Rendered heading") {
			t.Fatalf("the next render after %s: %v", path, err)
		}
	}
}

// TestRenderRestartsWithoutFailingQueued: with a browser restarted every 3
// pages and one killed mid-way, 12 queued renders all succeed.
func TestRenderRestartsWithoutFailingQueued(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `<!doctype html><body><div id="root"></div><script>document.getElementById('root').innerHTML = %q</script></body>`, article)
	})
	rg := newRig(t, mux, chromium.Options{Concurrency: 2, RestartAfter: 3})
	// A render's budget covers its wait for a free page and for a browser
	// to start: the last of the 12 waits for the 11 before it and for 4
	// browser starts, which on a busy 2-core machine is more than the 30 s
	// default, so the budget here is sized for that wait.
	errs := make(chan error, 12)
	for i := 0; i < 12; i++ {
		go func() {
			_, err := rg.r.Render(context.Background(), ports.RenderRequest{URL: mustParse(rg.site + "/"), Timeout: 2 * time.Minute})
			errs <- err
		}()
	}
	for i := 0; i < 12; i++ {
		if err := <-errs; err != nil {
			t.Errorf("render %d: %v", i, err)
		}
	}
	st := rg.r.Stats()
	if st.Restarts < 3 || st.Renders != 12 {
		t.Fatalf("stats %+v: want 12 renders and at least 3 restarts", st)
	}
	// A crash: kill the browser; the next render gets a new one.
	if err := rg.r.KillBrowserForTest(); err != nil {
		t.Fatal(err)
	}
	if _, err := rg.r.Render(context.Background(), ports.RenderRequest{URL: mustParse(rg.site + "/")}); err != nil {
		t.Fatalf("render after a crash: %v", err)
	}
}

// mustParse is a page URL as core hands it over, parsed once.
func mustParse(raw string) *url.URL {
	u, err := url.Parse(raw)
	if err != nil {
		panic(err)
	}
	return u
}

// nonPublic reports whether err is, as core words it, the 422 a fetch
// redirected to a non-public address gets: Invalid, naming url.
func nonPublic(err error) bool {
	fe, ok := failure.As(weburl.Failure(err, "url"))
	return ok && fe.Kind == failure.Invalid && len(fe.Fields["url"]) == 1 &&
		fe.Fields["url"][0] == "The url resolves to a non-public address."
}

// leavingPages serves pages whose document goes to target: a redirect, a
// script's location change and a meta refresh.
func leavingPages(mux *http.ServeMux, target func() string) {
	mux.HandleFunc("/leave/redirect", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target(), http.StatusFound)
	})
	mux.HandleFunc("/leave/script", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `<!doctype html><body><p>Moving on.</p><script>location.href = %q;</script></body>`, target())
	})
	mux.HandleFunc("/leave/meta", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `<!doctype html><head><meta http-equiv="refresh" content="0; url=%s"></head><body><p>Moving on.</p></body>`, target())
	})
}

// TestRenderRefusesNonPublicNavigation: a page whose document goes to
// loopback, the metadata address or a name resolving to a private address,
// by a redirect, a script or a meta refresh, is the 422 a fetch redirected
// there gets; nothing reaches the canary.
func TestRenderRefusesNonPublicNavigation(t *testing.T) {
	targets := map[string]func() string{
		"loopback": func() string { return "http://127.0.0.1:" + canaryPort() + "/secret" },
		"metadata": func() string { return "http://169.254.169.254/latest/meta-data/" },
		"private":  func() string { return "http://private.test:" + canaryPort() + "/secret" },
	}
	mux := http.NewServeMux()
	for name, target := range targets {
		sub := http.NewServeMux()
		leavingPages(sub, target)
		mux.Handle("/"+name+"/", http.StripPrefix("/"+name, sub))
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `<!doctype html><body>%s</body>`, article)
	})
	rg := newRig(t, mux, chromium.Options{Concurrency: 2, Timeout: 20 * time.Second})
	rg.warmUp(t, "/")
	for name := range targets {
		for _, how := range []string{"redirect", "script", "meta"} {
			start := time.Now()
			res, err := rg.r.Render(context.Background(), ports.RenderRequest{URL: mustParse(rg.site + "/" + name + "/leave/" + how)})
			if !nonPublic(err) {
				t.Errorf("%s by %s: %d %s %v, want the non-public 422", name, how, res.StatusCode, res.FinalURL, err)
			}
			t.Logf("%s by %s: %v after %s", name, how, err, time.Since(start).Round(time.Millisecond))
		}
	}
	time.Sleep(300 * time.Millisecond)
	if n := rg.canary.Load(); n != 0 {
		t.Fatalf("the canary was reached %d times", n)
	}
}

// TestRenderPageThatLeavesLate: a page that draws its article and 300 ms
// later sends its document to the metadata address is answered within the
// budget, with the article or the non-public 422, not by waiting it out.
func TestRenderPageThatLeavesLate(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `<!doctype html><html><body><div id="root"></div><script>
document.getElementById('root').innerHTML = %q;
setTimeout(() => { location.href = 'http://169.254.169.254/latest/meta-data/'; }, 300);
</script></body></html>`, article)
	})
	mux.HandleFunc("/plain", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `<!doctype html><body>%s</body>`, article)
	})
	rg := newRig(t, mux, chromium.Options{Concurrency: 1})
	rg.warmUp(t, "/plain")
	start := time.Now()
	res, err := rg.r.Render(context.Background(), ports.RenderRequest{URL: mustParse(rg.site + "/")})
	took := time.Since(start)
	t.Logf("%v after %s", err, took.Round(time.Millisecond))
	if err != nil && !nonPublic(err) {
		t.Fatalf("err %v after %s, want the article or the non-public 422", err, took)
	}
	if err == nil && (!strings.Contains(string(res.HTML), "Rendered heading") || res.FinalURL != rg.site+"/") {
		t.Fatalf("render = %d %s %.300s", res.StatusCode, res.FinalURL, res.HTML)
	}
	if took >= 25*time.Second {
		t.Fatalf("answered after %s, the budget is 30s", took)
	}
}

// hogPages serve pages that write memory off the JavaScript heap in 64 MiB
// steps up to 4 GiB (array buffers, WebAssembly memory, canvases; a byte
// in every 4 KiB page makes it resident) while a request stays in flight,
// so they never settle on their own.
func hogPages(mux *http.ServeMux) {
	mux.HandleFunc("/hold", func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	page := func(grow string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprintf(w, `<!doctype html><html><body><p id="n">0</p><script>
fetch('/hold').catch(() => {});
const keep = [];
let steps = 0;
function touch(a) { for (let j = 0; j < a.length; j += 4096) a[j] = 1; }
function step() {
%s
}
function grow() {
  for (let i = 0; i < 2 && steps < 64; i++, steps++) step();
  document.getElementById('n').textContent = steps * 64 + ' MiB';
  if (steps < 64) setTimeout(grow, 0);
}
grow();
</script></body></html>`, grow)
		}
	}
	mux.HandleFunc("/hog/buffers", page(`  const b = new Uint8Array(64 << 20); touch(b); keep.push(b);`))
	mux.HandleFunc("/hog/wasm", page(`  if (!window.mem) window.mem = new WebAssembly.Memory({initial: 0, maximum: 65536});
  const at = mem.buffer.byteLength; mem.grow(1024); touch(new Uint8Array(mem.buffer, at));`))
	mux.HandleFunc("/hog/canvas", page(`  const c = document.createElement('canvas'); c.width = 4096; c.height = 4096;
  const x = c.getContext('2d'); x.fillStyle = '#1' + (steps % 10) + '3'; x.fillRect(0, 0, 4096, 4096); keep.push(c);`))
}

// memoryPeak samples the memory of this process and its children (the
// browser and all its processes) until stop is called: the peak of their
// proportional resident memory (shared pages once), and of the plain sum
// of their RSS for comparison. It kills the browser should they pass
// limit, so a failing run cannot take the machine's memory.
func memoryPeak(t *testing.T, rg *rig, limit int64) (stop func() (pss, rss int64)) {
	var peakPSS, peakRSS atomic.Int64
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
			}
			pss, rss := chromium.TreePSS(os.Getpid()), chromium.TreeRSS(os.Getpid())
			peakPSS.Store(max(peakPSS.Load(), pss))
			peakRSS.Store(max(peakRSS.Load(), rss))
			if pss > limit {
				t.Errorf("memory %d MiB: killing the browser", pss>>20)
				_ = rg.r.KillBrowserForTest()
			}
		}
	}()
	return func() (int64, int64) { close(done); <-finished; return peakPSS.Load(), peakRSS.Load() }
}

// TestRenderMemoryOffTheHeap: pages writing up to 4 GiB of array buffers,
// WebAssembly memory or canvases fail alone with a free 503 within
// seconds, one at a time and six at once, while this process and all its
// browser's processes stay within the fleet's cap (1 GiB) above idle,
// measured as their proportional resident memory; the next page renders.
func TestRenderMemoryOffTheHeap(t *testing.T) {
	mux := http.NewServeMux()
	hogPages(mux)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `<!doctype html><body><div id="root"></div><script>document.getElementById('root').innerHTML = %q</script></body>`, article)
	})
	const budget = 45 * time.Second
	rg := newRig(t, mux, chromium.Options{Concurrency: 6, Timeout: budget})
	render := func(path string) (ports.RenderResponse, error) {
		return rg.r.Render(context.Background(), ports.RenderRequest{URL: mustParse(rg.site + path)})
	}
	rg.warmUp(t, "/")
	const fleetCap = 1 << 30
	time.Sleep(1500 * time.Millisecond) // the browser at rest
	idle, idleRSS := chromium.TreePSS(os.Getpid()), chromium.TreeRSS(os.Getpid())
	overMemory := func(err error) bool {
		fe, ok := failure.As(weburl.Failure(err, "url"))
		return ok && fe.Kind == failure.Unavailable && strings.Contains(fe.Message, "more memory than a page may")
	}
	kinds := []string{"/hog/buffers", "/hog/wasm", "/hog/canvas"}
	stop := memoryPeak(t, rg, idle+3<<30)
	for _, path := range kinds {
		start := time.Now()
		_, err := render(path)
		took := time.Since(start)
		t.Logf("%s alone: %v after %s", path, err, took.Round(time.Millisecond))
		if !overMemory(err) || took >= budget {
			t.Errorf("%s alone: %v after %s, want the memory 503 before the budget", path, err, took)
		}
	}
	peak, peakRSS := stop()
	t.Logf("one page at a time: idle %d MiB, peak %d MiB (+%d MiB); RSS sum idle %d MiB, peak %d MiB", idle>>20, peak>>20, (peak-idle)>>20, idleRSS>>20, peakRSS>>20)
	if t.Failed() {
		t.FailNow() // six at once would only take more of the machine
	}
	stop = memoryPeak(t, rg, idle+3<<30)
	errs := make(chan error, 6)
	start := time.Now()
	for i := 0; i < 6; i++ {
		// Six pages share the cores: a longer budget lets each grow
		// until the fleet's cap stops it.
		go func() {
			_, err := rg.r.Render(context.Background(), ports.RenderRequest{URL: mustParse(rg.site + kinds[i%len(kinds)]), Timeout: 3 * budget})
			errs <- err
		}()
	}
	for i := 0; i < 6; i++ {
		if err := <-errs; !overMemory(err) {
			t.Errorf("six at once: %v, want the memory 503", err)
		}
	}
	took := time.Since(start)
	peak, peakRSS = stop()
	t.Logf("six at once: answered within %s; idle %d MiB, peak %d MiB (+%d MiB); RSS sum peak %d MiB; %+v", took.Round(time.Millisecond), idle>>20, peak>>20, (peak-idle)>>20, peakRSS>>20, rg.r.Stats())
	if peak-idle > fleetCap {
		t.Errorf("six at once took %d MiB above idle, the cap is %d MiB", (peak-idle)>>20, fleetCap>>20)
	}
	if res, err := render("/"); err != nil || !strings.Contains(string(res.HTML), "Rendered heading") {
		t.Fatalf("the next page: %v", err)
	}
}
