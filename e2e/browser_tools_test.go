package e2e

import (
	"bytes"
	"fmt"
	"image/color"
	"image/png"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/trawlhq/trawl/adapters/fetch"
	"github.com/trawlhq/trawl/testkit/browsersite"
	"github.com/trawlhq/trawl/testkit/countryproxy"
)

// TestBinaryBrowserTools runs trawl serve with a local Chromium and a
// proxy pool against the browser's fixture pages: a full-page screenshot
// comes back as a signed link to a PNG of the whole page with its lazy
// images, actions reveal and fill, a missing selector fails free naming
// the step, and a page read in DE through a blocked proxy is read again
// through the other one.
func TestBinaryBrowserTools(t *testing.T) {
	path := chromiumForRender(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: browsersite.Handler()}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	blocked, open := countryproxy.Start(t, "DE", "de-blocked", true), countryproxy.Start(t, "DE", "de-open", false)
	s := startEnv(t, []string{"--data-dir", t.TempDir()}, []string{
		"TRAWL_FETCH_RESOLVE=tools.test:80=" + ln.Addr().String(), "TRAWL_BROWSER_PATH=" + path, "TRAWL_FETCH_TIMEOUT=10s",
		"TRAWL_FETCH_PROXIES=DE=" + blocked.URL() + ",DE=" + open.URL(),
	})
	token := tokenRE.FindString(s.stdout.String())
	balance := func() float64 {
		_, m := get(t, s.base+"/v1/credits", token)
		return m["balance"].(float64)
	}

	before := balance()
	start := time.Now()
	code, m := get(t, s.base+"/v1/content?url=http://tools.test/lazy&formats=screenshot_full,images", token)
	if code != 200 {
		t.Fatalf("screenshot_full = %d %v", code, m)
	}
	t.Logf("full-page screenshot through the API: %s", time.Since(start).Round(time.Millisecond))
	shot, _ := m["screenshot"].(map[string]any)
	if shot == nil || shot["height"] != float64(browsersite.LazyHeight) || shot["width"] != float64(1280) || shot["expires_at"] == nil {
		t.Fatalf("screenshot = %v", m["screenshot"])
	}
	link := shot["url"].(string)
	res, err := http.Get(link)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "image/png" {
		t.Fatalf("the screenshot link = %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	img, err := png.Decode(bytes.NewReader(raw))
	if err != nil || img.Bounds().Dy() != browsersite.LazyHeight {
		t.Fatalf("the linked PNG: %v %v", err, img.Bounds())
	}
	for i, im := range browsersite.LazyImages {
		r, g, b, _ := img.At(im.Left+im.Width/2, im.Top+im.Height/2).RGBA()
		if c := (color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), 255}); absDiff(c.R, im.Color.R) > 24 || absDiff(c.G, im.Color.G) > 24 || absDiff(c.B, im.Color.B) > 24 {
			t.Errorf("lazy image %d is blank in the PNG: %v", i+1, c)
		}
	}
	if imgs, _ := m["images"].([]any); len(imgs) != len(browsersite.LazyImages) {
		t.Errorf("images = %v", m["images"])
	}
	if res, err := http.Get(strings.Replace(link, "signature=", "signature=0", 1)); err != nil || res.StatusCode != 404 {
		t.Errorf("a tampered link = %v %v", res.StatusCode, err)
	}
	if got := before - balance(); got != 2 {
		t.Errorf("a page with a screenshot cost %v, want the page's 2", got)
	}

	before = balance()
	code, m = postJSON(t, s.base+"/v1/content", token, map[string]any{"url": "http://tools.test/form", "actions": []map[string]any{
		{"type": "type", "selector": "#q", "text": "lighthouse"}, {"type": "press", "key": "Enter"},
		{"type": "execute", "script": "return location.pathname"}, {"type": "screenshot"},
	}})
	acts, _ := m["actions"].([]any)
	if code != 200 || !strings.Contains(fmt.Sprint(m["markdown"]), "three notes about lighthouse") || len(acts) != 4 ||
		acts[2].(map[string]any)["value"] != "/form/result" || acts[3].(map[string]any)["screenshot"] == nil {
		t.Fatalf("form = %d %v", code, m)
	}
	code, m = postJSON(t, s.base+"/v1/content", token, map[string]any{"url": "http://tools.test/reveal", "actions": []map[string]any{{"type": "click", "selector": "#more"}}})
	if code != 200 || !strings.Contains(fmt.Sprint(m["markdown"]), browsersite.RevealedText) {
		t.Fatalf("reveal = %d %v", code, m)
	}
	if got := before - balance(); got != 4 {
		t.Errorf("two pages with actions cost %v, want 4", got)
	}
	before = balance()
	code, m = postJSON(t, s.base+"/v1/content", token, map[string]any{"url": "http://tools.test/reveal", "actions": []map[string]any{{"type": "wait", "milliseconds": 10}, {"type": "click", "selector": "#gone"}}})
	if code != 422 || m["message"] != `actions[1]: selector "#gone" not found within 10s` {
		t.Errorf("missing selector = %d %v", code, m)
	}
	if got := before - balance(); got != 0 {
		t.Errorf("a failed action cost %v", got)
	}

	for _, render := range []string{"never", "always"} {
		code, m = postJSON(t, s.base+"/v1/content", token, map[string]any{"url": "http://tools.test/echo", "render": render, "device": "mobile", "locale": "de-DE",
			"headers": map[string]string{"X-Trace": "tide-42"}, "cookies": map[string]string{"session": "s1"}})
		md := fmt.Sprint(m["markdown"])
		wants := []string{"header X-Trace = tide-42", "header Cookie = session=s1", "header Accept-Language = de-DE,de;q=0.9", "Android 14"}
		if render == "always" {
			wants = append(wants, "navigator.language = de-DE", "time zone = Europe/Berlin", "touch points = 5")
		}
		for _, w := range wants {
			if code != 200 || !strings.Contains(md, w) {
				t.Errorf("echo, render %s = %d: lacks %q in %.600s", render, code, w, md)
			}
		}
	}

	// A page whose first pick in DE is the blocked proxy (the first listed).
	page := ""
	for i := 0; page == ""; i++ {
		if p := fmt.Sprintf("http://tools.test/reveal?v=%d", i); fetch.PickProxy(2, p, 0) == 0 {
			page = p
		}
	}
	code, m = get(t, s.base+"/v1/content?country=DE&url="+url.QueryEscape(page), token)
	if code != 200 || !strings.Contains(fmt.Sprint(m["markdown"]), countryproxy.Stamp("DE", "de-open")) {
		t.Fatalf("DE = %d %v", code, m)
	}
	t.Logf("DE through the pool: blocked proxy %d requests, open proxy %d", blocked.Requests.Load(), open.Requests.Load())
	if blocked.Requests.Load() != 1 || open.Requests.Load() != 1 {
		t.Errorf("the block was not retried through the other proxy: %d, %d", blocked.Requests.Load(), open.Requests.Load())
	}
	if code, m := get(t, s.base+"/v1/content?url=http://tools.test/reveal&country=FR", token); code != 422 {
		t.Errorf("FR = %d %v", code, m)
	}
}

func absDiff(a, b uint8) uint8 {
	if a > b {
		return a - b
	}
	return b - a
}
