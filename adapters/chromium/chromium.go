// Package chromium renders pages in headless Chromium over the DevTools
// protocol. Every page gets its own incognito browser context whose traffic
// goes through Trawl's egress proxy (the fetcher's address guard at dial
// time); only http and https requests leave the page, images, media and
// fonts are not loaded, downloads, popups and service workers are refused.
// A fleet bounds the pages rendering at once and restarts the browser after
// a number of pages, above a memory ceiling, or after a crash, without
// failing the requests waiting for it.
package chromium

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"net/url"
	"os"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/inspector"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	cdpruntime "github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/remote"

	"github.com/trawlhq/trawl/core/weburl"
	"github.com/trawlhq/trawl/ports"
)

// Options configure a Renderer. ExecPath or RemoteURL says which browser.
type Options struct {
	ExecPath  string // a local Chromium, started by Trawl
	RemoteURL string // a DevTools endpoint (ws:// or http://host:9222)
	// ProxyAddr is the egress proxy as the browser reaches it ("127.0.0.1:port").
	ProxyAddr string
	// Route names the egress proxy of a page whose options pick a country
	// (one per proxy of the fetch pool, each guarded like ProxyAddr); ""
	// or nil: ProxyAddr.
	Route func(o ports.PageOptions, pageURL string) string
	// Guard checks the target before the browser is asked (the same verdicts as a fetch).
	Guard ports.AddressGuard

	Concurrency   int           // pages at once; default: the core count
	RestartAfter  int           // pages per browser process; default 200
	MemoryCeiling int64         // bytes of the local browser's processes; default 2 GiB
	PageHeapLimit int64         // JS heap of one page; default 256 MiB
	FleetMemory   int64         // the local browser's processes above their idle figure; default 1 GiB
	PageMemory    int64         // one renderer process, off the JS heap too; default 512 MiB, at most FleetMemory
	Timeout       time.Duration // default budget of one render; default 30 s
	QuietPeriod   time.Duration // network idle this long means done; default 500 ms
	Tools         ToolOptions   // actions and screenshots
	Log           *slog.Logger
}

// Renderer implements ports.Renderer.
type Renderer struct {
	opts Options
	sem  chan struct{}

	// starting is held while a browser is chosen or started, so one starts
	// at a time; mu is never held across a start or a close, which take
	// seconds, so pages finishing on the old browser are not held up.
	starting sync.Mutex
	mu       sync.Mutex
	cur      *instance
	closing  int        // retired browsers closing in the background (under mu)
	closed   *sync.Cond // signalled, with mu, as each of them has closed

	renders  atomic.Int64
	failures atomic.Int64
	restarts atomic.Int64
	stopped  atomic.Int64 // renderers stopped for their memory
}

var _ ports.Renderer = (*Renderer)(nil)

// New builds a renderer; the browser starts with the first render.
func New(o Options) (*Renderer, error) {
	if o.ExecPath == "" && o.RemoteURL == "" {
		return nil, errors.New("chromium.New: a browser path or a DevTools URL is required")
	}
	if o.ProxyAddr == "" {
		return nil, errors.New("chromium.New: the egress proxy address is required")
	}
	if o.Concurrency <= 0 {
		o.Concurrency = max(1, runtime.NumCPU())
	}
	if o.RestartAfter <= 0 {
		o.RestartAfter = 200
	}
	if o.MemoryCeiling <= 0 {
		o.MemoryCeiling = 2 << 30
	}
	if o.PageHeapLimit <= 0 {
		o.PageHeapLimit = 256 << 20
	}
	if o.FleetMemory <= 0 {
		o.FleetMemory = 1 << 30
	}
	if o.PageMemory <= 0 {
		o.PageMemory = 512 << 20
	}
	o.PageMemory = min(o.PageMemory, o.FleetMemory)
	if o.Timeout <= 0 {
		o.Timeout = 30 * time.Second
	}
	if o.QuietPeriod <= 0 {
		o.QuietPeriod = 500 * time.Millisecond
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	o.Tools = o.Tools.withDefaults()
	r := &Renderer{opts: o, sem: make(chan struct{}, o.Concurrency)}
	r.closed = sync.NewCond(&r.mu)
	return r, nil
}

// Stats are the fleet's counters.
type Stats struct {
	Renders, Failures, Restarts int64
	BrowserRSS                  int64 // bytes, local browser only (0 when unknown)
	StoppedForMemory            int64 // renderers stopped above their memory share
}

// Stats reads the counters and the browser's resident memory.
func (r *Renderer) Stats() Stats {
	s := Stats{Renders: r.renders.Load(), Failures: r.failures.Load(), Restarts: r.restarts.Load(), StoppedForMemory: r.stopped.Load()}
	r.mu.Lock()
	if r.cur != nil {
		s.BrowserRSS = r.cur.rss()
	}
	r.mu.Unlock()
	return s
}

// Close stops the browser, once its pages are done, and waits for the
// browsers already retired to close.
func (r *Renderer) Close() {
	r.starting.Lock()
	r.mu.Lock()
	if r.cur != nil {
		r.retire(r.cur)
		r.cur = nil
	}
	r.starting.Unlock()
	for r.closing > 0 {
		r.closed.Wait()
	}
	r.mu.Unlock()
}

// instance is one browser process (or remote connection) and its pages.
type instance struct {
	ctx          context.Context // the browser's chromedp context
	cancel       context.CancelFunc
	cancelAlloc  context.CancelFunc
	dataDir      string
	served       int
	active       int
	retired      bool
	crashed      atomic.Bool
	lastRSSCheck int
	lastRSS      int64
	idle         int64 // the local browser's processes' own memory at rest (under Renderer.mu)
	userAgent    string
}

func (in *instance) alive() bool {
	if in.ctx.Err() != nil || in.crashed.Load() {
		return false
	}
	if c := chromedp.FromContext(in.ctx); c != nil && c.Browser != nil {
		if p := c.Browser.Process(); p != nil && p.Signal(syscall.Signal(0)) != nil {
			return false
		}
	}
	return true
}

func (in *instance) pid() int {
	if c := chromedp.FromContext(in.ctx); c != nil && c.Browser != nil {
		if p := c.Browser.Process(); p != nil {
			return p.Pid
		}
	}
	return 0
}

func chromedpProcess(in *instance) *os.Process {
	if c := chromedp.FromContext(in.ctx); c != nil && c.Browser != nil {
		return c.Browser.Process()
	}
	return nil
}

func (in *instance) rss() int64 {
	if pid := in.pid(); pid > 0 {
		return treeRSS(pid)
	}
	return 0
}

// retire closes in once its last page is done (r.mu held).
func (r *Renderer) retire(in *instance) {
	in.retired = true
	if in.active == 0 {
		r.closeLater(in)
	}
}

// closeLater closes in in the background (r.mu held): closing a browser
// waits for its process to exit, which neither the page that ends last on
// it nor the fleet waits for.
func (r *Renderer) closeLater(in *instance) {
	r.closing++
	go func() {
		in.close()
		r.mu.Lock()
		r.closing--
		r.closed.Broadcast()
		r.mu.Unlock()
	}()
}

func (in *instance) close() {
	in.cancel()
	in.cancelAlloc()
	if in.dataDir != "" {
		os.RemoveAll(in.dataDir)
	}
}

// launchFlags harden the local browser: all traffic to the egress proxy,
// loopback included; no name resolution of its own; no UDP around the proxy;
// no popups.
func (r *Renderer) launchFlags(dataDir string) []chromedp.ExecAllocatorOption {
	return append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(r.opts.ExecPath), chromedp.NoSandbox, chromedp.Headless, chromedp.DisableGPU,
		chromedp.UserDataDir(dataDir),
		chromedp.ProxyServer("http://"+r.opts.ProxyAddr),
		chromedp.Flag("proxy-bypass-list", "<-loopback>"),
		chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND , EXCLUDE "+proxyHost(r.opts.ProxyAddr)),
		chromedp.Flag("force-webrtc-ip-handling-policy", "disable_non_proxied_udp"),
		chromedp.Flag("webrtc-ip-handling-policy", "disable_non_proxied_udp"),
		chromedp.Flag("disable-popup-blocking", false),
		chromedp.Flag("block-new-web-contents", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-domain-reliability", true),
		chromedp.Flag("disable-features", "Translate,BlinkGenPropertyTrees,MediaRouter,OptimizationHints,DialMediaRouteProvider,AutofillServerCommunication"),
		chromedp.Flag("js-flags", fmt.Sprintf("--max-old-space-size=%d", r.opts.PageHeapLimit>>20*2)),
		chromedp.Flag("mute-audio", true),
	)
}

// proxyHost is the host part of the proxy address, the one name the
// browser's resolver may look at.
func proxyHost(addr string) string {
	if h, _, err := net.SplitHostPort(addr); err == nil {
		return h
	}
	return addr
}

// start opens a browser.
func (r *Renderer) start() (*instance, error) {
	in := &instance{}
	var alloc context.Context
	if r.opts.RemoteURL != "" {
		alloc, in.cancelAlloc = remote.NewAllocator(context.Background(), r.opts.RemoteURL)
	} else {
		dir, err := os.MkdirTemp("", "trawl-chromium-")
		if err != nil {
			return nil, err
		}
		in.dataDir = dir
		alloc, in.cancelAlloc = chromedp.NewExecAllocator(context.Background(), r.launchFlags(dir)...)
	}
	in.ctx, in.cancel = chromedp.NewContext(alloc)
	// The first call starts the browser and binds it to in.ctx: it must not
	// run under a shorter-lived context.
	started := make(chan error, 1)
	go func() {
		v, err := chromedp.CallBrowser(in.ctx, browser.GetVersion, cdp.Empty{})
		in.userAgent = v.UserAgent
		started <- err
	}()
	select {
	case err := <-started:
		if err != nil {
			in.close()
			return nil, err
		}
	case <-time.After(30 * time.Second):
		in.close()
		return nil, errors.New("the browser did not start within 30s")
	}
	if pid := in.pid(); pid > 0 {
		for _, p := range browserProcs(pid) {
			in.idle += p.own
		}
		go r.watchMemory(in, pid)
	}
	return in, nil
}

// memoryCheck is how often the watch reads the browser's memory while
// pages render: a page writing memory as fast as a core can gains about
// 100 MiB between two reads. At rest it reads once a second, for the idle
// figure.
const (
	memoryCheck = 50 * time.Millisecond
	idleCheck   = time.Second
	// ownFloor is the memory of its own a renderer holds before the fleet's
	// cap may stop it: more than any light page holds, so an
	// overfull fleet stops the pages that fill it.
	ownFloor = 64 << 20
)

// watchMemory keeps the local browser within its memory while pages
// render, off the JavaScript heap too (array buffers, canvas, WebAssembly
// memory), by reading /proc: a renderer process above PageMemory is
// stopped, and while the browser's processes hold more than 7/8 of
// FleetMemory above their idle figure, the renderers holding the most
// memory of their own are stopped until the rest fits (the eighth left is
// for what grows between two reads). The idle figure is the browser's at
// start, then whenever no page renders. A stopped renderer's page crashes
// and fails alone with a free 503; the browser and the other pages carry
// on. It runs only for a local browser on Linux.
func (r *Renderer) watchMemory(in *instance, root int) {
	trigger := r.opts.FleetMemory / 8 * 7
	var lastIdle time.Time
	// stopping is what was killed and has not exited yet: it still holds
	// its memory for a moment, and is not stopped twice.
	stopping := map[int]bool{}
	t := time.NewTicker(memoryCheck)
	defer t.Stop()
	for {
		select {
		case <-in.ctx.Done():
			return
		case <-t.C:
		}
		r.mu.Lock()
		active := in.active
		idle := in.idle
		r.mu.Unlock()
		if active == 0 {
			if time.Since(lastIdle) >= idleCheck {
				lastIdle = time.Now()
				var total int64
				for _, p := range browserProcs(root) {
					total += p.own
				}
				r.mu.Lock()
				if in.active == 0 && total > 0 {
					in.idle = total
				}
				r.mu.Unlock()
			}
			continue
		}
		var total, leaving int64
		var renderers []proc
		seen := map[int]bool{}
		for _, p := range browserProcs(root) {
			total += p.own
			seen[p.pid] = true
			switch {
			case stopping[p.pid]:
				leaving += p.own
			case p.renderer:
				renderers = append(renderers, p)
			}
		}
		for pid := range stopping {
			if !seen[pid] {
				delete(stopping, pid)
			}
		}
		sort.Slice(renderers, func(i, j int) bool { return renderers[i].own > renderers[j].own })
		over := total - leaving - idle - trigger
		for _, p := range renderers {
			switch {
			case p.own > r.opts.PageMemory:
			case over > 0 && p.own > ownFloor:
			default:
				continue
			}
			if err := stopProcess(p.pid); err == nil {
				stopping[p.pid] = true
				r.stopped.Add(1)
				r.opts.Log.Info("stopped a page over its memory", "page_bytes", p.own, "browser_bytes", total, "idle_bytes", idle)
			}
			over -= p.own
		}
	}
}

// acquire hands out the current browser, replacing it first when it died,
// served its pages, or grew past the memory ceiling. The replacement starts
// outside r.mu: pages still rendering on the retired browser finish and
// release it meanwhile.
func (r *Renderer) acquire() (*instance, error) {
	r.starting.Lock()
	defer r.starting.Unlock()
	r.mu.Lock()
	in := r.cur
	if in != nil {
		reason := ""
		switch {
		case !in.alive():
			reason = "crashed"
		case in.served >= r.opts.RestartAfter:
			reason = "pages"
		case in.served-in.lastRSSCheck >= 10 || in.served == 0:
			in.lastRSSCheck = in.served
			if in.lastRSS = in.rss(); in.lastRSS > r.opts.MemoryCeiling {
				reason = "memory"
			}
		}
		if reason != "" {
			r.opts.Log.Info("restarting the browser", "reason", reason, "pages", in.served)
			r.restarts.Add(1)
			r.retire(in)
			r.cur, in = nil, nil
		}
	}
	if in == nil {
		r.mu.Unlock()
		var err error
		if in, err = r.start(); err != nil {
			return nil, err
		}
		r.mu.Lock()
		r.cur = in
	}
	in.served++
	in.active++
	r.mu.Unlock()
	return in, nil
}

func (r *Renderer) release(in *instance) {
	r.mu.Lock()
	defer r.mu.Unlock()
	in.active--
	if in.retired && in.active == 0 {
		r.closeLater(in)
	}
}

func unavailable(reason ports.RenderReason, cause error) error {
	return &ports.RenderError{Reason: reason, Err: cause}
}

// Render implements ports.Renderer.
func (r *Renderer) Render(ctx context.Context, req ports.RenderRequest) (ports.RenderResponse, error) {
	u := req.URL
	if u == nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return ports.RenderResponse{}, &ports.FetchError{Reason: ports.FetchBadURL}
	}
	if r.opts.Guard != nil {
		if err := r.opts.Guard.CheckHost(ctx, u); err != nil {
			return ports.RenderResponse{}, err
		}
	}
	budget := req.Timeout
	if budget <= 0 {
		budget = r.opts.Timeout
	}
	deadline := time.Now().Add(budget)
	if len(req.Actions) > 0 || req.Shot != ports.ShotNone {
		// The actions and the screenshot have a budget of their own, after
		// the page's.
		deadline = deadline.Add(r.opts.Tools.Budget)
	}
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	ctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	busy := func() (ports.RenderResponse, error) {
		r.failures.Add(1)
		return ports.RenderResponse{}, unavailable(ports.RenderBusy, ctx.Err())
	}
	select {
	case r.sem <- struct{}{}:
	case <-ctx.Done():
		return busy()
	}
	defer func() { <-r.sem }()
	var out ports.RenderResponse
	for attempt := 0; ; attempt++ {
		in, err := r.acquire()
		if err != nil {
			r.failures.Add(1)
			r.opts.Log.Error("the browser did not start", "err", err)
			return out, unavailable(ports.RenderNoBrowser, err)
		}
		if ctx.Err() != nil {
			// The budget went on waiting for a browser to start.
			r.release(in)
			return busy()
		}
		out, err = r.renderIn(ctx, in, u.String(), budget, req)
		r.release(in)
		if err != nil && !in.alive() && attempt == 0 && ctx.Err() == nil {
			continue // the browser died under this page: once more on a new one
		}
		if err != nil {
			r.failures.Add(1)
			return out, err
		}
		r.renders.Add(1)
		return out, nil
	}
}

// hostOf is the host of a URL, for a typed reason.
func hostOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return u.Hostname()
}

// hardening runs in every document before its own scripts: no service
// workers, no popups.
const hardening = `(() => {
  try { Object.defineProperty(navigator, 'serviceWorker', {get: () => undefined}); } catch (e) {}
  window.open = () => null;
})();`

type pageState struct {
	mu        sync.Mutex
	inflight  map[network.RequestID]bool
	lastNet   time.Time
	status    int
	crashed   bool
	mainFrame cdp.FrameID
	refused   int
	// left: the page's own document went, or tried to go, to a non-public
	// address (a redirect, a script or a meta refresh).
	left bool
	// ended is closed when the page is done for, left or crashed: its tab
	// is closed at once.
	ended   chan struct{}
	endOnce sync.Once

	// images: images and fonts load (for a screenshot).
	images bool
	// host and headers: the caller's headers go to this host only.
	host    string
	headers map[string]string
}

func (st *pageState) end() { st.endOnce.Do(func() { close(st.ended) }) }

func (st *pageState) leave() {
	st.mu.Lock()
	st.left = true
	st.mu.Unlock()
	st.end()
}

func (st *pageState) hasLeft() bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.left
}

func (st *pageState) hasCrashed() bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.crashed
}

// renderIn renders one page in its own incognito context of in.
func (r *Renderer) renderIn(ctx context.Context, in *instance, pageURL string, budget time.Duration, req ports.RenderRequest) (ports.RenderResponse, error) {
	out, st, err := r.load(ctx, in, pageURL, budget, req)
	if st != nil && st.hasLeft() {
		// The page's document went for a non-public address: the answer
		// is the one a fetch redirected there gets, whatever the page
		// showed before.
		return ports.RenderResponse{URL: pageURL}, &ports.FetchError{Reason: ports.FetchNonPublic, Host: hostOf(pageURL)}
	}
	return out, err
}

// load opens pageURL in a new tab of in and reads the document once it
// settled; st is the tab's state, nil when the tab never opened.
func (r *Renderer) load(ctx context.Context, in *instance, pageURL string, budget time.Duration, req ports.RenderRequest) (ports.RenderResponse, *pageState, error) {
	out := ports.RenderResponse{URL: pageURL}
	proxy := "http://" + r.proxyFor(req.Page, pageURL)
	tab, closeTab := chromedp.NewContext(in.ctx, chromedp.WithNewBrowserContext(func(p *target.CreateBrowserContextParams) {
		p.ProxyServer = proxy
		p.ProxyBypassList = "<-loopback>"
	}))
	defer closeTab()
	// The budget closes the tab: a page stuck in a script loop cannot answer
	// commands, so only closing it ends the wait.
	stop := context.AfterFunc(ctx, closeTab)
	defer stop()

	st := &pageState{inflight: map[network.RequestID]bool{}, lastNet: time.Now(), ended: make(chan struct{})}
	st.images = req.Shot != ports.ShotNone || hasShot(req.Actions)
	if pu, err := url.Parse(pageURL); err == nil {
		st.host, st.headers = strings.ToLower(pu.Hostname()), req.Page.Headers
	}
	// A page that goes for a non-public address, or whose renderer was
	// stopped, is done at once.
	go func() {
		select {
		case <-st.ended:
			closeTab()
		case <-tab.Done():
		}
	}()
	fail := func(err error) (ports.RenderResponse, *pageState, error) {
		return out, st, r.pageError(ctx, in, st, budget, err)
	}
	if err := chromedp.Listen(tab, func(ev any) { r.onEvent(tab, st, ev) }); err != nil {
		return fail(err)
	}
	st.mu.Lock()
	st.mainFrame = cdp.FrameID(chromedp.FromContext(tab).Target.TargetID)
	st.mu.Unlock()
	bctx := chromedp.FromContext(tab).BrowserContextID
	setup := []func() error{
		func() error {
			_, err := chromedp.CallBrowser(tab, browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{Behavior: browser.SetDownloadBehaviorBehaviorDeny, BrowserContextID: bctx})
			return err
		},
		func() error { _, err := chromedp.Call(tab, network.Enable, network.EnableParams{}); return err },
		func() error {
			_, err := chromedp.Call(tab, network.SetBypassServiceWorker, network.SetBypassServiceWorkerParams{Bypass: true})
			return err
		},
		func() error {
			_, err := chromedp.Call(tab, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*"}}})
			return err
		},
		func() error {
			_, err := chromedp.Call(tab, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: hardening})
			return err
		},
	}
	setup = append(setup, func() error { return r.emulate(tab, in, pageURL, req.Page) })
	for _, f := range setup {
		if err := f(); err != nil {
			return fail(err)
		}
	}
	nav, err := chromedp.Call(tab, page.Navigate, page.NavigateParams{URL: pageURL})
	if err != nil {
		return fail(err)
	}
	if nav.ErrorText != "" {
		return out, st, unavailable(ports.RenderNotLoaded, errors.New(nav.ErrorText))
	}
	if nav.IsDownload {
		return out, st, unavailable(ports.RenderDownload, nil)
	}
	if err := r.settle(ctx, tab, st); err != nil {
		return fail(err)
	}
	if len(req.Actions) > 0 {
		done, err := r.runActions(ctx, tab, st, req.Actions)
		if err != nil {
			var ae *ports.ActionError
			if errors.As(err, &ae) {
				return out, st, err
			}
			return fail(err)
		}
		out.Actions = done
	}
	if req.Shot == ports.ShotFull {
		// Lazy content loads as it comes into view: the page is scrolled
		// through before the DOM is read and the shot taken.
		if err := r.scrollThrough(ctx, tab, st); err != nil {
			return fail(err)
		}
	}
	type doc struct {
		HTML string `json:"html"`
		URL  string `json:"url"`
	}
	d, err := chromedp.Run(tab, chromedp.Evaluate[doc](`({html: document.documentElement ? document.documentElement.outerHTML : "", url: location.href})`))
	if err != nil {
		return fail(err)
	}
	st.mu.Lock()
	out.StatusCode = st.status
	st.mu.Unlock()
	if out.StatusCode == 0 {
		out.StatusCode = 200
	}
	out.FinalURL, out.HTML = d.URL, []byte(d.HTML)
	if !strings.HasPrefix(out.FinalURL, "http://") && !strings.HasPrefix(out.FinalURL, "https://") {
		return ports.RenderResponse{URL: pageURL}, st, unavailable(ports.RenderLeftWeb, nil)
	}
	if req.Shot != ports.ShotNone {
		if out.Shot, err = r.capture(ctx, tab, req.Shot == ports.ShotFull); err != nil {
			return fail(err)
		}
	}
	return out, st, nil
}

// onEvent tracks the requests in flight and the main document's status, and
// decides each paused request: only http(s), and no images, media or fonts.
func (r *Renderer) onEvent(tab context.Context, st *pageState, ev any) {
	st.mu.Lock()
	defer st.mu.Unlock()
	switch e := ev.(type) {
	case *network.EventRequestWillBeSent:
		st.inflight[e.RequestID] = true
		st.lastNet = time.Now()
	case *network.EventLoadingFinished:
		delete(st.inflight, e.RequestID)
		st.lastNet = time.Now()
	case *network.EventLoadingFailed:
		delete(st.inflight, e.RequestID)
		st.lastNet = time.Now()
	case *network.EventResponseReceived:
		if e.Type == network.ResourceTypeDocument && e.FrameID == st.mainFrame && e.Response != nil {
			st.status = int(e.Response.Status)
		}
	case *inspector.EventTargetCrashed:
		st.crashed = true
		st.end()
	case *fetch.EventRequestPaused:
		id, u, typ := e.RequestID, "", e.ResourceType
		if e.Request != nil {
			u = e.Request.URL
		}
		block := typ == network.ResourceTypeMedia || !st.images && (typ == network.ResourceTypeImage || typ == network.ResourceTypeFont) ||
			!(strings.HasPrefix(u, "http://") || strings.HasPrefix(u, "https://"))
		if block {
			st.refused++
		}
		// The page's own document (the first one, a redirect, a script's
		// or a meta refresh's navigation) is checked here as well as at
		// the proxy: the proxy keeps it from connecting, this check
		// keeps the render from answering with what stands in its place.
		mainDoc := !block && typ == network.ResourceTypeDocument && e.FrameID == st.mainFrame
		var headers []*fetch.HeaderEntry
		if !block && e.Request != nil {
			headers = st.headersFor(u, e.Request.Headers)
		}
		go func() {
			if mainDoc && r.nonPublicTarget(tab, u) {
				st.leave()
				block = true
			}
			if block {
				_, _ = chromedp.Call(tab, fetch.FailRequest, fetch.FailRequestParams{RequestID: id, ErrorReason: network.ErrorReasonBlockedByClient})
				return
			}
			_, _ = chromedp.Call(tab, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: id, Headers: headers})
		}()
	}
}

// nonPublicTarget reports whether a document URL is on a non-public
// address, by the verdicts a fetch gives a redirect target: an IP literal
// or a local name by its address, any other name resolved by the guard.
func (r *Renderer) nonPublicTarget(ctx context.Context, raw string) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	host := u.Hostname()
	if ip, err := netip.ParseAddr(host); err == nil {
		return !weburl.IsPublicIP(ip)
	}
	if weburl.IsLocalName(host) {
		return true
	}
	if r.opts.Guard == nil {
		return false
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	// The port is left out: the URL rules' default port is for what a
	// caller asks for, not for where a page goes.
	err = r.opts.Guard.CheckHost(ctx, &url.URL{Scheme: u.Scheme, Host: host, Path: "/"})
	fe, ok := weburl.AsFetchError(err)
	return ok && fe.Reason == ports.FetchNonPublic
}

// settle waits until the page is done: the network quiet for the quiet
// period, or the page's text unchanged across two checks; a page using more
// JS heap than allowed, or crashing, fails.
func (r *Renderer) settle(ctx context.Context, tab context.Context, st *pageState) error {
	const tick = 250 * time.Millisecond
	type probe struct {
		Ready string `json:"ready"`
		Text  int    `json:"text"`
	}
	lastText, stableChecks := -1, 0
	t := time.NewTicker(tick)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-st.ended:
			if st.hasCrashed() {
				return errPageCrashed
			}
			return errLeft
		case <-t.C:
		}
		st.mu.Lock()
		crashed, inflight, quiet := st.crashed, len(st.inflight), time.Since(st.lastNet)
		st.mu.Unlock()
		if crashed {
			return errPageCrashed
		}
		heap, err := chromedp.Call(tab, cdpruntime.GetHeapUsage, cdp.Empty{})
		if err != nil {
			return err
		}
		if int64(heap.UsedSize) > r.opts.PageHeapLimit {
			return errPageMemory
		}
		p, err := chromedp.Run(tab, chromedp.Evaluate[probe](`({ready: document.readyState, text: document.body ? document.body.innerText.length : 0})`))
		if err != nil {
			return err
		}
		if p.Ready == "loading" {
			continue
		}
		// A page with almost no text yet is likely waiting on a timer
		// before it fetches its content: it gets a longer quiet period.
		need := r.opts.QuietPeriod
		if p.Text < 200 {
			need *= 4
		}
		if inflight == 0 && quiet >= need {
			return nil
		}
		// Content stable across two checks half a second apart, for pages
		// that keep a connection busy (polling, analytics) after drawing.
		if t := p.Text; t >= 200 && t == lastText {
			stableChecks++
		} else {
			stableChecks = 0
		}
		lastText = p.Text
		if stableChecks >= 4 { // 4 ticks: two checks 500 ms apart agree
			return nil
		}
	}
}

var (
	errPageCrashed = errors.New("page crashed")
	errPageMemory  = errors.New("page over its memory limit")
	errLeft        = errors.New("page went for a non-public address")
)

// pageError says why a render failed; the budget running out or the page
// hogging memory is a clean failure of this page only.
func (r *Renderer) pageError(ctx context.Context, in *instance, st *pageState, budget time.Duration, err error) error {
	switch {
	case errors.Is(err, errPageMemory), errors.Is(err, errPageCrashed), st.hasCrashed():
		return unavailable(ports.RenderMemory, err)
	case ctx.Err() != nil && errors.Is(ctx.Err(), context.Canceled):
		return ctx.Err()
	case ctx.Err() != nil:
		return &ports.RenderError{Reason: ports.RenderTimeout, Budget: budget, Err: err}
	case !in.alive():
		return unavailable(ports.RenderBrowserGone, err)
	default:
		return unavailable(ports.RenderFailed, err)
	}
}
