package chromium_test

import (
	"context"
	"net"
	"net/http/httptest"
	"net/netip"
	"os/exec"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/trawlhq/trawl/adapters/chromium"
	"github.com/trawlhq/trawl/adapters/egress"
	"github.com/trawlhq/trawl/adapters/fetch"
	"github.com/trawlhq/trawl/ports"
	"github.com/trawlhq/trawl/testkit/browsersite"
)

// BenchmarkScreenshot times a viewport and a full-page screenshot of the
// lazy fixture page through the renderer (a fresh incognito context per
// page, the egress proxy, the settle wait, the scroll through the page
// for a full shot), next to a bare chromedp program doing the same in one
// tab of the same kind of browser (navigate, wait for load, capture;
// chromedp.FullScreenshot for the whole page, which does not scroll and
// so leaves lazy images blank).
//
//	go test -run '^$' -bench Screenshot -benchtime 10x ./adapters/chromium/
func BenchmarkScreenshot(b *testing.B) {
	path := chromiumPathB(b)
	site := httptest.NewServer(browsersite.Handler())
	b.Cleanup(site.Close)
	f := fetch.New(fetch.Options{Resolve: map[string]string{"site.test:80": site.Listener.Addr().String()},
		LookupIP: func(context.Context, string) ([]netip.Addr, error) {
			return nil, &net.DNSError{Err: "no such host", IsNotFound: true}
		}})
	p, err := egress.Start(egress.Options{Dial: f.DialContext})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { p.Close() })
	r, err := chromium.New(chromium.Options{ExecPath: path, ProxyAddr: p.Addr(), Guard: f, Concurrency: 1})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(r.Close)
	if _, err := r.Render(context.Background(), ports.RenderRequest{URL: mustParse("http://site.test/form")}); err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		shot ports.ShotKind
	}{{"trawl/viewport", ports.ShotViewport}, {"trawl/full", ports.ShotFull}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				res, err := r.Render(context.Background(), ports.RenderRequest{URL: mustParse("http://site.test/lazy"), Shot: c.shot})
				if err != nil || res.Shot == nil {
					b.Fatal(err)
				}
			}
		})
	}

	alloc, cancel := chromedp.NewExecAllocator(context.Background(), append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox, chromedp.Headless, chromedp.DisableGPU, chromedp.WindowSize(1280, 800))...)
	b.Cleanup(cancel)
	browser, cancelB := chromedp.NewContext(alloc)
	b.Cleanup(cancelB)
	if _, err := chromedp.Run(browser, chromedp.Navigate(site.URL+"/form")); err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		full bool
	}{{"chromedp/viewport", false}, {"chromedp/full", true}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				tab, closeTab := chromedp.NewContext(browser)
				ctx, cancel := context.WithTimeout(tab, 30*time.Second)
				shot := chromedp.CaptureScreenshot()
				if c.full {
					shot = chromedp.FullScreenshot(100)
				}
				if _, err := chromedp.Run(ctx, chromedp.Navigate(site.URL+"/lazy")); err != nil {
					b.Fatal(err)
				}
				if _, err := chromedp.Run(ctx, chromedp.WaitReady("body")); err != nil {
					b.Fatal(err)
				}
				if buf, err := chromedp.Run(ctx, shot); err != nil || len(buf) == 0 {
					b.Fatal(err)
				}
				cancel()
				closeTab()
			}
		})
	}
}

func chromiumPathB(b *testing.B) string {
	for _, n := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	b.Skip("no Chromium")
	return ""
}
