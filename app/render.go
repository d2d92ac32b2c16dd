package app

import (
	"os/exec"

	"github.com/trawlhq/trawl/adapters/chromium"
	"github.com/trawlhq/trawl/adapters/egress"
	"github.com/trawlhq/trawl/adapters/fetch"
	"github.com/trawlhq/trawl/ports"
)

// FindBrowser is the local Chromium Trawl would start: TRAWL_BROWSER_PATH,
// else the first of Chromium's usual names on PATH; empty when none.
func FindBrowser(c Config) string {
	if c.BrowserPath != "" {
		return c.BrowserPath
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// NewRenderer builds the browser renderer behind the guarded egress proxy:
// a remote browser when TRAWL_BROWSER_URL is set, else a local Chromium
// when one is found. Without either (or with TRAWL_BROWSER_OFF) it returns
// nil and says why; Trawl then reads every page over HTTP.
func NewRenderer(c Config, f *fetch.Client) (ports.Renderer, string, []func(), error) {
	if c.BrowserOff {
		return nil, "off (TRAWL_BROWSER_OFF): pages that need JavaScript are read over HTTP only", nil, nil
	}
	o := chromium.Options{RemoteURL: c.BrowserURL, Guard: f, Concurrency: int(c.BrowserPages), RestartAfter: int(c.BrowserRestartAfter),
		FleetMemory: c.BrowserMemoryBytes, PageMemory: c.BrowserPageMemory, Timeout: c.FetchTimeout}
	how := "remote browser at " + c.BrowserURL
	if o.RemoteURL == "" {
		if o.ExecPath = FindBrowser(c); o.ExecPath == "" {
			return nil, "off (no Chromium on PATH, TRAWL_BROWSER_PATH or TRAWL_BROWSER_URL): pages that need JavaScript are read over HTTP only", nil, nil
		}
		how = "local Chromium at " + o.ExecPath
	}
	p, err := egress.Start(egress.Options{Dial: f.DialContext, Listen: c.BrowserProxyListen})
	if err != nil {
		return nil, "", nil, err
	}
	o.ProxyAddr = p.Addr()
	closers := []func(){func() { p.Close() }}
	// One egress proxy per proxy of the fetch pool: a page of a country
	// goes out through the same proxy a fetch of it would, behind the
	// same guard.
	var routes []string
	for i := range f.Proxies() {
		cp, err := egress.Start(egress.Options{Dial: f.DialVia(i)})
		if err != nil {
			for _, c := range closers {
				c()
			}
			return nil, "", nil, err
		}
		closers = append(closers, func() { cp.Close() })
		routes = append(routes, cp.Addr())
	}
	if len(routes) > 0 {
		o.Route = func(po ports.PageOptions, pageURL string) string {
			if i := f.ProxyIndex(po.Country, pageURL, po.Retry); i >= 0 {
				return routes[i]
			}
			return ""
		}
	}
	r, err := chromium.New(o)
	if err != nil {
		for _, c := range closers {
			c()
		}
		return nil, "", nil, err
	}
	return r, how + ", traffic through the egress proxy on " + p.Addr(), append(closers, r.Close), nil
}
