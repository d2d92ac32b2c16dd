package chromium_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/trawlhq/trawl/adapters/chromium"
	"github.com/trawlhq/trawl/adapters/egress"
	"github.com/trawlhq/trawl/adapters/fetch"
	"github.com/trawlhq/trawl/ports"
	"github.com/trawlhq/trawl/testkit/browsersite"
	"github.com/trawlhq/trawl/testkit/countryproxy"
)

func decodePNG(t *testing.T, s *ports.Shot) image.Image {
	t.Helper()
	if s == nil {
		t.Fatal("no screenshot")
	}
	img, err := png.Decode(bytes.NewReader(s.PNG))
	if err != nil {
		t.Fatalf("the screenshot is not a PNG: %v", err)
	}
	return img
}

// near: each channel within 24 of the wanted colour.
func near(c color.Color, want color.RGBA) bool {
	r, g, b, _ := c.RGBA()
	d := func(x uint32, y uint8) bool { v := int(x>>8) - int(y); return v > -24 && v < 24 }
	return d(r, want.R) && d(g, want.G) && d(b, want.B)
}

// TestFullScreenshotLoadsLazyImages: the full-page shot is the whole
// document high, and every lazy image is in it (sampled at its centre);
// the viewport shot is the viewport, with only the first image.
func TestFullScreenshotLoadsLazyImages(t *testing.T) {
	rg := newRig(t, browsersite.Handler(), chromium.Options{Concurrency: 1})
	rg.warmUp(t, "/form")
	start := time.Now()
	res, err := rg.r.Render(context.Background(), ports.RenderRequest{URL: mustParse(rg.site + "/lazy"), Shot: ports.ShotFull})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("full-page screenshot: %s, %d bytes", time.Since(start).Round(time.Millisecond), len(res.Shot.PNG))
	img := decodePNG(t, res.Shot)
	if b := img.Bounds(); b.Dy() != browsersite.LazyHeight || b.Dx() != 1280 || res.Shot.Height != browsersite.LazyHeight || res.Shot.Width != 1280 {
		t.Fatalf("full shot is %dx%d (reported %dx%d), want 1280x%d", b.Dx(), b.Dy(), res.Shot.Width, res.Shot.Height, browsersite.LazyHeight)
	}
	for i, im := range browsersite.LazyImages {
		if c := img.At(im.Left+im.Width/2, im.Top+im.Height/2); !near(c, im.Color) {
			t.Errorf("image %d at y=%d: pixel %v, want %v (a blank lazy image)", i+1, im.Top, c, im.Color)
		}
	}
	if !strings.Contains(string(res.HTML), "/img/c81ec8") || !strings.Contains(string(res.HTML), `src="/img/`) {
		t.Errorf("the DOM read after the scroll lacks the lazy images' src")
	}

	start = time.Now()
	res, err = rg.r.Render(context.Background(), ports.RenderRequest{URL: mustParse(rg.site + "/lazy"), Shot: ports.ShotViewport})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("viewport screenshot: %s", time.Since(start).Round(time.Millisecond))
	img = decodePNG(t, res.Shot)
	if b := img.Bounds(); b.Dx() != 1280 || b.Dy() != 800 {
		t.Fatalf("viewport shot is %dx%d, want 1280x800", b.Dx(), b.Dy())
	}
	first := browsersite.LazyImages[0]
	if c := img.At(first.Left+first.Width/2, first.Top+first.Height/2); !near(c, first.Color) {
		t.Errorf("first image in the viewport: pixel %v, want %v", c, first.Color)
	}
}

func TestActions(t *testing.T) {
	rg := newRig(t, browsersite.Handler(), chromium.Options{Concurrency: 2, Tools: chromium.ToolOptions{SelectorWait: 2 * time.Second}})
	rg.warmUp(t, "/form")
	render := func(path string, a ...ports.Action) (ports.RenderResponse, error) {
		return rg.r.Render(context.Background(), ports.RenderRequest{URL: mustParse(rg.site + path), Actions: a})
	}
	t.Run("a click reveals text, read once the network is quiet", func(t *testing.T) {
		res, err := render("/reveal", ports.Action{Kind: ports.ActionClick, Selector: "#more"})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(res.HTML), browsersite.RevealedText) {
			t.Fatalf("the revealed text is missing after the click")
		}
	})
	t.Run("a wait for the revealed element after the click", func(t *testing.T) {
		res, err := render("/reveal", ports.Action{Kind: ports.ActionClick, Selector: "#more"}, ports.Action{Kind: ports.ActionWait, Selector: "#revealed"},
			ports.Action{Kind: ports.ActionExecute, Script: `return document.getElementById("revealed").textContent.length`})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Actions) != 3 || string(res.Actions[2].Value) != fmt.Sprint(len(browsersite.RevealedText)) {
			t.Fatalf("actions = %+v", res.Actions)
		}
	})
	t.Run("without the click the text is not there", func(t *testing.T) {
		res, err := render("/reveal", ports.Action{Kind: ports.ActionWait, Milliseconds: 50})
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(res.HTML), browsersite.RevealedText) {
			t.Fatal("the fixture shows its text without a click")
		}
	})
	t.Run("a form filled by type and press", func(t *testing.T) {
		res, err := render("/form", ports.Action{Kind: ports.ActionType, Selector: "#q", Text: "lighthouse"}, ports.Action{Kind: ports.ActionPress, Key: "Enter"})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(res.HTML), "Results for lighthouse") || res.FinalURL != rg.site+"/form/result?q=lighthouse" {
			t.Fatalf("after type and press: %s %.200s", res.FinalURL, res.HTML)
		}
	})
	t.Run("scroll, screenshot and execute report their results", func(t *testing.T) {
		res, err := render("/lazy", ports.Action{Kind: ports.ActionScroll, Direction: "bottom"}, ports.Action{Kind: ports.ActionScreenshot},
			ports.Action{Kind: ports.ActionExecute, Script: `return {y: Math.round(scrollY) > 0, title: document.title}`})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Actions) != 3 || res.Actions[1].Shot == nil || string(res.Actions[2].Value) != `{"y":true,"title":"A long page"}` {
			t.Fatalf("actions = %+v", res.Actions)
		}
		img := decodePNG(t, res.Actions[1].Shot)
		last := browsersite.LazyImages[3]
		// At the bottom, the viewport shows the last image 800 px from the end.
		y := last.Top + last.Height/2 - (browsersite.LazyHeight - 800)
		if c := img.At(last.Left+last.Width/2, y); !near(c, last.Color) {
			t.Errorf("the screenshot after scrolling to the bottom: pixel %v, want %v", c, last.Color)
		}
	})
	t.Run("a selector that never appears names the step", func(t *testing.T) {
		start := time.Now()
		_, err := render("/reveal", ports.Action{Kind: ports.ActionWait, Milliseconds: 10}, ports.Action{Kind: ports.ActionClick, Selector: "#nope"})
		var ae *ports.ActionError
		if !errors.As(err, &ae) || ae.Index != 1 || ae.Failure != ports.ActionNotFound || ae.Selector != "#nope" || ae.Within != 2*time.Second {
			t.Fatalf("err = %v", err)
		}
		if d := time.Since(start); d > 8*time.Second {
			t.Fatalf("the missing selector took %s", d)
		}
	})
	t.Run("a script that throws", func(t *testing.T) {
		_, err := render("/reveal", ports.Action{Kind: ports.ActionExecute, Script: `throw new Error("no tide today")`})
		var ae *ports.ActionError
		if !errors.As(err, &ae) || ae.Failure != ports.ActionScriptFail || !strings.Contains(ae.Err.Error(), "no tide today") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("a selector that is not one", func(t *testing.T) {
		_, err := render("/reveal", ports.Action{Kind: ports.ActionClick, Selector: "#("})
		var ae *ports.ActionError
		if !errors.As(err, &ae) || ae.Failure != ports.ActionBadSelector {
			t.Fatalf("err = %v", err)
		}
	})
}

// TestPageOptions: device, locale, headers and cookies reach the page and
// its scripts; on a redirect to another host the headers and cookies stay
// behind.
func TestPageOptions(t *testing.T) {
	rg := newRig(t, browsersite.Handler(), chromium.Options{Concurrency: 1})
	opts := ports.PageOptions{Device: "mobile", Locale: "de-DE", TimeZone: "Europe/Berlin", Headers: map[string]string{"X-Trace": "tide-42"}, Cookies: []ports.Cookie{{Name: "session", Value: "s1"}}}
	res, err := rg.r.Render(context.Background(), ports.RenderRequest{URL: mustParse(rg.site + "/echo"), Page: opts})
	if err != nil {
		t.Fatal(err)
	}
	h := string(res.HTML)
	for _, want := range []string{"header X-Trace = tide-42", "header Cookie = session=s1", "header Accept-Language = de-DE,de;q=0.9",
		"navigator.language = de-DE", "time zone = Europe/Berlin", "touch points = 5", "viewport = 390x", "Android 14", "Mobile Safari"} {
		if !strings.Contains(h, want) {
			t.Errorf("the echo page lacks %q", want)
		}
	}
	if t.Failed() {
		t.Logf("%s", h)
	}
	res, err = rg.r.Render(context.Background(), ports.RenderRequest{URL: mustParse(rg.site + "/hop?to=http://other.test/echo"), Page: opts})
	if err != nil {
		t.Fatal(err)
	}
	h = string(res.HTML)
	if !strings.Contains(h, "host other.test") {
		t.Fatalf("the redirect did not reach other.test: %.300s", h)
	}
	if strings.Contains(h, "tide-42") || strings.Contains(h, "session=s1") {
		t.Fatalf("the caller's headers or cookies followed a redirect to another host:\n%s", h)
	}
	if !strings.Contains(h, "navigator.language = de-DE") {
		t.Error("the locale did not hold after the redirect")
	}
}

// TestToolsSSRF: the canary test again, with every new capability: a
// click that navigates to loopback, a script that fetches a private name,
// headers and cookies on the page, a full-page shot loading images from
// loopback. The canary stays untouched and the render is the 422 a fetch
// redirected there gets.
func TestToolsSSRF(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		port := canaryPort()
		fmt.Fprintf(w, `<!doctype html><html><body><article><h1>Links</h1><p>%s</p>
<img src="http://127.0.0.1:%[2]s/img.png"><img src="http://private.test:%[2]s/img.png">
<a id="go" href="http://127.0.0.1:%[2]s/clicked">go</a></article></body></html>`, strings.Repeat("Plain words of the page. ", 20), port)
	})
	rg := newRig(t, mux, chromium.Options{Concurrency: 1, Timeout: 8 * time.Second})
	opts := ports.PageOptions{Headers: map[string]string{"X-Trace": "1"}, Cookies: []ports.Cookie{{Name: "a", Value: "b"}}, Locale: "en-GB", Device: "mobile"}
	port := canaryPort()
	cases := map[string]ports.RenderRequest{
		"execute fetches":   {Actions: []ports.Action{{Kind: ports.ActionExecute, Script: fmt.Sprintf(`await Promise.allSettled([fetch("http://127.0.0.1:%[1]s/x"), fetch("http://private.test:%[1]s/x"), fetch("http://[::1]:%[1]s/x"), fetch("http://169.254.169.254/")]); return 1`, port)}}},
		"full screenshot":   {Shot: ports.ShotFull},
		"execute navigates": {Actions: []ports.Action{{Kind: ports.ActionExecute, Script: fmt.Sprintf(`location.href = "http://localhost:%s/x"; return 1`, port)}, {Kind: ports.ActionWait, Milliseconds: 1000}}},
		"click navigates":   {Actions: []ports.Action{{Kind: ports.ActionClick, Selector: "#go"}}},
	}
	for name, req := range cases {
		req.URL, req.Page = mustParse(rg.site+"/"), opts
		_, err := rg.r.Render(context.Background(), req)
		t.Logf("%s: %v", name, err)
		if strings.Contains(name, "navigates") && !nonPublic(err) {
			t.Errorf("%s: err = %v, want the 422 of a non-public target", name, err)
		}
	}
	time.Sleep(300 * time.Millisecond)
	if n := rg.canary.Load(); n != 0 {
		t.Fatalf("the canary was reached %d times", n)
	}
	if rg.proxy.Refused() == 0 {
		t.Fatal("the egress proxy refused nothing")
	}
}

// TestRenderThroughCountryProxies: a page of a country is rendered through
// that country's proxy of the fetch pool (the one the fetcher picks, the
// other on a retry), each behind its own guarded egress proxy; a script
// of such a page still cannot reach the canary.
func TestRenderThroughCountryProxies(t *testing.T) {
	path := chromiumPath(t)
	site := httptest.NewServer(browsersite.Handler())
	t.Cleanup(site.Close)
	de1, de2 := countryproxy.Start(t, "DE", "de1", false), countryproxy.Start(t, "DE", "de2", false)
	var pool []fetch.Proxy
	for _, p := range []*countryproxy.Proxy{de1, de2} {
		u, _ := url.Parse(p.URL())
		pool = append(pool, fetch.Proxy{Country: p.Country, URL: u})
	}
	f := fetch.New(fetch.Options{Resolve: map[string]string{"site.test:80": site.Listener.Addr().String()}, Proxies: pool, Timeout: 5 * time.Second,
		LookupIP: func(ctx context.Context, host string) ([]netip.Addr, error) {
			if host == "private.test" {
				return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
			}
			return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
		}})
	def, err := egress.Start(egress.Options{Dial: f.DialContext})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { def.Close() })
	var routes []string
	for i := range pool {
		p, err := egress.Start(egress.Options{Dial: f.DialVia(i)})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { p.Close() })
		routes = append(routes, p.Addr())
	}
	r, err := chromium.New(chromium.Options{ExecPath: path, ProxyAddr: def.Addr(), Guard: f, Concurrency: 1,
		Route: func(o ports.PageOptions, pageURL string) string {
			if i := f.ProxyIndex(o.Country, pageURL, o.Retry); i >= 0 {
				return routes[i]
			}
			return ""
		}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	page := "http://site.test/reveal"
	for retry := range 2 {
		res, err := r.Render(context.Background(), ports.RenderRequest{URL: mustParse(page), Page: ports.PageOptions{Country: "DE", Retry: retry},
			Actions: []ports.Action{{Kind: ports.ActionExecute, Script: `await fetch("http://private.test:1/").catch(() => 0); return 1`}}})
		if err != nil {
			t.Fatal(err)
		}
		want := pool[f.ProxyIndex("DE", page, retry)]
		if !strings.Contains(string(res.HTML), countryproxy.Stamp("DE", map[string]string{de1.URL(): "de1", de2.URL(): "de2"}["http://"+want.URL.Host])) {
			t.Errorf("retry %d: the page did not come through %s: %.300s", retry, want.URL, res.HTML)
		}
	}
	t.Logf("requests through de1 %d, de2 %d", de1.Requests.Load(), de2.Requests.Load())
	for _, p := range []*countryproxy.Proxy{de1, de2} {
		for _, tg := range p.Targets() {
			if tg != site.Listener.Addr().String() {
				t.Errorf("proxy %s was asked for %s", p.Name, tg)
			}
		}
	}
}

// TestActionsBudget: the steps share one budget; a selector wait cut
// short by it is the budget running out, not the selector missing.
func TestActionsBudget(t *testing.T) {
	rg := newRig(t, browsersite.Handler(), chromium.Options{Concurrency: 1, Tools: chromium.ToolOptions{Budget: 2 * time.Second, SelectorWait: 10 * time.Second}})
	start := time.Now()
	_, err := rg.r.Render(context.Background(), ports.RenderRequest{URL: mustParse(rg.site + "/reveal"),
		Actions: []ports.Action{{Kind: ports.ActionWait, Milliseconds: 1200}, {Kind: ports.ActionWait, Selector: "#nope"}}})
	var ae *ports.ActionError
	if !errors.As(err, &ae) || ae.Index != 1 || ae.Failure != ports.ActionBudget || ae.Within != 2*time.Second {
		t.Fatalf("err = %v", err)
	}
	if d := time.Since(start); d > 8*time.Second {
		t.Fatalf("the budget of 2s took %s", d)
	}
}
