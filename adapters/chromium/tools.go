package chromium

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	cdpruntime "github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/trawlhq/trawl/ports"
)

// ToolOptions bound what a render does beyond reading the page: its
// actions and its screenshot.
type ToolOptions struct {
	// Budget is the time all the actions of a render and its screenshot
	// share, after the page's own budget; default 30 s.
	Budget time.Duration
	// SelectorWait is how long a step waits for its selector to be
	// visible; default 10 s (less when the budget has less left).
	SelectorWait time.Duration
	// MaxShotHeight caps a full-page screenshot, in CSS pixels; default
	// 10,000. A longer page is captured down to it.
	MaxShotHeight int
}

func (o ToolOptions) withDefaults() ToolOptions {
	if o.Budget <= 0 {
		o.Budget = 30 * time.Second
	}
	if o.SelectorWait <= 0 {
		o.SelectorWait = 10 * time.Second
	}
	if o.MaxShotHeight <= 0 {
		o.MaxShotHeight = 10000
	}
	return o
}

// Viewports of the two devices, in CSS pixels.
const (
	desktopWidth, desktopHeight = 1280, 800
	mobileWidth, mobileHeight   = 390, 844
	mobileScale                 = 2
)

func hasShot(a []ports.Action) bool {
	for _, x := range a {
		if x.Kind == ports.ActionScreenshot {
			return true
		}
	}
	return false
}

// proxyFor is the egress proxy a page's traffic goes through: the one
// Route names for its country, else the default one.
func (r *Renderer) proxyFor(o ports.PageOptions, pageURL string) string {
	if r.opts.Route != nil && o.Country != "" {
		if addr := r.opts.Route(o, pageURL); addr != "" {
			return addr
		}
	}
	return r.opts.ProxyAddr
}

var chromeVersion = regexp.MustCompile(`Chrome/([0-9.]+)`)

// mobileUA is a phone's Chrome User-Agent of the browser's own version.
func mobileUA(ua string) string {
	v := "131.0.0.0"
	if m := chromeVersion.FindStringSubmatch(ua); m != nil {
		v = m[1]
	}
	return "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/" + v + " Mobile Safari/537.36"
}

// emulate sets the tab's device, locale and cookies before it navigates.
func (r *Renderer) emulate(tab context.Context, in *instance, pageURL string, o ports.PageOptions) error {
	metrics := emulation.SetDeviceMetricsOverrideParams{Width: desktopWidth, Height: desktopHeight, DeviceScaleFactor: 1}
	ua := in.userAgent
	platform := ""
	if o.Device == "mobile" {
		metrics = emulation.SetDeviceMetricsOverrideParams{Width: mobileWidth, Height: mobileHeight, DeviceScaleFactor: mobileScale, Mobile: true, ScreenWidth: mobileWidth, ScreenHeight: mobileHeight}
		ua, platform = mobileUA(in.userAgent), "Linux armv81"
		if _, err := chromedp.Call(tab, emulation.SetTouchEmulationEnabled, emulation.SetTouchEmulationEnabledParams{Enabled: true, MaxTouchPoints: 5}); err != nil {
			return err
		}
	}
	if _, err := chromedp.Call(tab, emulation.SetDeviceMetricsOverride, metrics); err != nil {
		return err
	}
	if o.Device == "mobile" || o.Locale != "" {
		p := emulation.SetUserAgentOverrideParams{UserAgent: ua, Platform: platform}
		if o.Locale != "" {
			p.AcceptLanguage = acceptLanguage(o.Locale)
		}
		if _, err := chromedp.Call(tab, emulation.SetUserAgentOverride, p); err != nil {
			return err
		}
	}
	if o.Locale != "" {
		if _, err := chromedp.Call(tab, emulation.SetLocaleOverride, emulation.SetLocaleOverrideParams{Locale: strings.ReplaceAll(o.Locale, "-", "_")}); err != nil {
			return err
		}
	}
	if o.TimeZone != "" {
		if _, err := chromedp.Call(tab, emulation.SetTimezoneOverride, emulation.SetTimezoneOverrideParams{TimezoneID: o.TimeZone}); err != nil {
			return err
		}
	}
	if len(o.Cookies) > 0 {
		// Host-only cookies of the target: the browser sends them to its
		// host alone, not to a host a redirect or the page leads to.
		u, err := url.Parse(pageURL)
		if err != nil {
			return err
		}
		var cs []*network.CookieParam
		for _, c := range o.Cookies {
			cs = append(cs, &network.CookieParam{Name: c.Name, Value: c.Value, URL: u.Scheme + "://" + u.Host + "/", Path: "/"})
		}
		if _, err := chromedp.Call(tab, network.SetCookies, network.SetCookiesParams{Cookies: cs}); err != nil {
			return err
		}
	}
	return nil
}

// acceptLanguage is the list for a locale: the tag, then its language
// (the browser adds the q-values).
func acceptLanguage(locale string) string {
	lang, _, found := strings.Cut(locale, "-")
	if !found {
		return locale
	}
	return locale + "," + lang
}

// headersFor is the header list a request of the page goes with: the
// caller's headers are added only on the target's own host.
func (st *pageState) headersFor(raw string, have network.Headers) []*fetch.HeaderEntry {
	if len(st.headers) == 0 {
		return nil
	}
	u, err := url.Parse(raw)
	if err != nil || !strings.EqualFold(u.Hostname(), st.host) {
		return nil
	}
	var out []*fetch.HeaderEntry
	for k, v := range have {
		if _, ours := st.headers[http.CanonicalHeaderKey(k)]; ours {
			continue
		}
		out = append(out, &fetch.HeaderEntry{Name: k, Value: fmt.Sprint(v)})
	}
	for k, v := range st.headers {
		out = append(out, &fetch.HeaderEntry{Name: k, Value: v})
	}
	return out
}

// evalIn evaluates a script in the page: its JSON value, or the
// exception it threw as exc.
func evalIn(ctx, tab context.Context, expr string) (value []byte, exc error, err error) {
	if d, ok := ctx.Deadline(); ok {
		var cancel context.CancelFunc
		tab, cancel = context.WithDeadline(tab, d)
		defer cancel()
	}
	t := true
	res, err := chromedp.Call(tab, cdpruntime.Evaluate, cdpruntime.EvaluateParams{Expression: expr, ReturnByValue: &t, AwaitPromise: &t, UserGesture: &t})
	if err != nil {
		return nil, nil, err
	}
	if d := res.ExceptionDetails; d != nil {
		msg := d.Text
		if d.Exception != nil && d.Exception.Description != "" {
			msg = d.Exception.Description
		}
		return nil, errors.New(msg), nil
	}
	if res.Result == nil {
		return nil, nil, nil
	}
	return []byte(res.Result.Value), nil, nil
}

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// visibleJS reports "ok" when the selector matches a visible element,
// "bad" when it is not a selector, else "no".
const visibleJS = `((sel) => {
  let e;
  try { e = document.querySelector(sel); } catch (x) { return "bad"; }
  if (!e) return "no";
  const r = e.getBoundingClientRect(), s = getComputedStyle(e);
  if ((r.width === 0 && r.height === 0) || s.visibility === "hidden" || s.display === "none") return "no";
  return "ok";
})(%s)`

// namedKeys are the keys a press step names, as the browser's key table has them.
var namedKeys = map[string]string{
	"Enter": kb.Enter, "Tab": kb.Tab, "Escape": kb.Escape, "Backspace": kb.Backspace, "Delete": kb.Delete,
	"ArrowUp": kb.ArrowUp, "ArrowDown": kb.ArrowDown, "ArrowLeft": kb.ArrowLeft, "ArrowRight": kb.ArrowRight,
	"Home": kb.Home, "End": kb.End, "PageUp": kb.PageUp, "PageDown": kb.PageDown, "Space": " ",
}

// maxValue caps what an execute step's return value may weigh.
const maxValue = 1 << 20

// runActions runs the steps in order within the tools' budget. A step
// that cannot be done is a *ports.ActionError naming it.
func (r *Renderer) runActions(ctx context.Context, tab context.Context, st *pageState, actions []ports.Action) ([]ports.ActionResult, error) {
	budget := r.opts.Tools.Budget
	deadline := time.Now().Add(budget)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	ctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	out := make([]ports.ActionResult, 0, len(actions))
	for i, a := range actions {
		res := ports.ActionResult{Index: i, Kind: a.Kind}
		fail := func(f ports.ActionFailure, within time.Duration, err error) ([]ports.ActionResult, error) {
			if ctx.Err() != nil && f != ports.ActionNotFound {
				f, within = ports.ActionBudget, budget
			}
			return out, &ports.ActionError{Index: i, Kind: a.Kind, Failure: f, Selector: a.Selector, Within: within, Err: err}
		}
		if ctx.Err() != nil {
			return fail(ports.ActionBudget, budget, ctx.Err())
		}
		if a.Selector != "" {
			within := min(r.opts.Tools.SelectorWait, time.Until(deadline))
			if err := waitVisible(ctx, tab, st, a.Selector, within); err != nil {
				if errors.Is(err, errBadSelector) {
					return fail(ports.ActionBadSelector, within, err)
				}
				if errors.Is(err, errNotVisible) && within < r.opts.Tools.SelectorWait {
					// The budget, not the selector's own wait, ran out.
					return fail(ports.ActionBudget, budget, err)
				}
				if errors.Is(err, errNotVisible) {
					return fail(ports.ActionNotFound, r.opts.Tools.SelectorWait, err)
				}
				return fail(ports.ActionBudget, budget, err)
			}
		}
		var err error
		switch a.Kind {
		case ports.ActionWait:
			if a.Selector == "" {
				select {
				case <-time.After(time.Duration(a.Milliseconds) * time.Millisecond):
				case <-ctx.Done():
					return fail(ports.ActionBudget, budget, ctx.Err())
				}
			}
		case ports.ActionClick:
			var v []byte
			v, _, err = evalIn(ctx, tab, fmt.Sprintf(`((sel) => { const e = document.querySelector(sel); e.scrollIntoView({block: "center", inline: "center"}); const r = e.getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; })(%s)`, jsString(a.Selector)))
			var xy [2]float64
			if err == nil {
				err = json.Unmarshal(v, &xy)
			}
			if err == nil {
				clicked := time.Now()
				if _, err = chromedp.Run(tab, chromedp.MouseClickXY(xy[0], xy[1])); err == nil {
					// What the click sets off (a request, a navigation)
					// is done before the next step looks.
					r.waitQuiet(ctx, tab, st, clicked, 10*time.Second)
				}
			}
		case ports.ActionType:
			if _, _, err = evalIn(ctx, tab, fmt.Sprintf(`document.querySelector(%s).focus()`, jsString(a.Selector))); err == nil {
				_, err = chromedp.Run(tab, chromedp.KeyEvent(a.Text))
			}
		case ports.ActionPress:
			key := a.Key
			if k, ok := namedKeys[key]; ok {
				key = k
			}
			pressed := time.Now()
			if _, err = chromedp.Run(tab, chromedp.KeyEvent(key)); err == nil {
				r.waitQuiet(ctx, tab, st, pressed, 10*time.Second)
			}
		case ports.ActionScroll:
			js := map[string]string{"up": `window.scrollBy(0, -innerHeight)`, "down": `window.scrollBy(0, innerHeight)`, "bottom": `window.scrollTo(0, document.scrollingElement.scrollHeight)`}[a.Direction]
			if a.Selector != "" {
				js = fmt.Sprintf(`document.querySelector(%s).scrollIntoView({block: "center"})`, jsString(a.Selector))
			}
			scrolled := time.Now()
			if _, _, err = evalIn(ctx, tab, js); err == nil {
				r.waitQuiet(ctx, tab, st, scrolled, 3*time.Second)
			}
		case ports.ActionScreenshot:
			res.Shot, err = r.capture(ctx, tab, false)
		case ports.ActionExecute:
			var exc error
			res.Value, exc, err = evalIn(ctx, tab, "(async () => {\n"+a.Script+"\n})()")
			switch {
			case err == nil && exc != nil:
				return fail(ports.ActionScriptFail, 0, exc)
			case err == nil && len(res.Value) > maxValue:
				return fail(ports.ActionScriptFail, 0, fmt.Errorf("its return value is larger than %d bytes", maxValue))
			}
			ran := time.Now()
			r.waitQuiet(ctx, tab, st, ran, 3*time.Second)
		}
		if err != nil {
			if ctx.Err() != nil {
				return fail(ports.ActionBudget, budget, err)
			}
			return out, err
		}
		out = append(out, res)
	}
	return out, nil
}

var (
	errBadSelector = errors.New("not a CSS selector")
	errNotVisible  = errors.New("no visible element")
)

// waitVisible polls until the selector matches a visible element.
func waitVisible(ctx, tab context.Context, st *pageState, sel string, within time.Duration) error {
	until := time.Now().Add(within)
	expr := fmt.Sprintf(visibleJS, jsString(sel))
	for {
		v, _, err := evalIn(ctx, tab, expr)
		if err == nil {
			switch string(v) {
			case `"ok"`:
				return nil
			case `"bad"`:
				return errBadSelector
			}
		} else if ctx.Err() != nil {
			return err
		}
		// An error while the page navigates (its context is gone) is
		// read again on the next poll.
		if time.Now().After(until) {
			return errNotVisible
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-st.ended:
			return errLeft
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// waitQuiet waits, at most max, until the network has been quiet for the
// quiet period since since, and the document is no longer loading.
func (r *Renderer) waitQuiet(ctx, tab context.Context, st *pageState, since time.Time, max time.Duration) {
	until := time.Now().Add(max)
	for time.Now().Before(until) {
		select {
		case <-ctx.Done():
			return
		case <-st.ended:
			return
		case <-time.After(100 * time.Millisecond):
		}
		st.mu.Lock()
		inflight, last := len(st.inflight), st.lastNet
		st.mu.Unlock()
		if last.Before(since) {
			last = since
		}
		if inflight > 0 || time.Since(last) < r.opts.QuietPeriod {
			continue
		}
		v, _, err := evalIn(ctx, tab, `document.readyState`)
		if err == nil && string(v) != `"loading"` {
			return
		}
	}
}

// scrollThroughJS scrolls the page down a viewport at a time, to the
// bottom or the cap, so lazy content loads; then waits (3 s at most) for
// the images still loading, and goes back to the top.
const scrollThroughJS = `(async (cap) => {
  const pause = (ms) => new Promise((r) => setTimeout(r, ms));
  for (let y = 0, i = 0; i < 400; i++) {
    const h = Math.min(document.scrollingElement.scrollHeight, cap);
    if (y + innerHeight >= h) break;
    y += innerHeight;
    window.scrollTo(0, y);
    await pause(120);
  }
  const loading = [...document.images].filter((i) => !i.complete).map((i) => new Promise((r) => { i.addEventListener("load", r); i.addEventListener("error", r); }));
  await Promise.race([Promise.all(loading), pause(3000)]);
  window.scrollTo(0, 0);
  await pause(50);
  return document.scrollingElement.scrollHeight;
})(%d)`

func (r *Renderer) scrollThrough(ctx, tab context.Context, st *pageState) error {
	started := time.Now()
	if _, _, err := evalIn(ctx, tab, fmt.Sprintf(scrollThroughJS, r.opts.Tools.MaxShotHeight)); err != nil {
		return err
	}
	r.waitQuiet(ctx, tab, st, started, 5*time.Second)
	return nil
}

// capture takes a PNG of the viewport, or of the whole document up to
// MaxShotHeight.
func (r *Renderer) capture(ctx, tab context.Context, full bool) (*ports.Shot, error) {
	if d, ok := ctx.Deadline(); ok {
		var cancel context.CancelFunc
		tab, cancel = context.WithDeadline(tab, d)
		defer cancel()
	}
	m, err := chromedp.Call(tab, page.GetLayoutMetrics, cdp.Empty{})
	if err != nil {
		return nil, err
	}
	if m.CSSLayoutViewport == nil {
		return nil, errors.New("no layout viewport")
	}
	w, h := int(m.CSSLayoutViewport.ClientWidth), int(m.CSSLayoutViewport.ClientHeight)
	p := page.CaptureScreenshotParams{Format: page.CaptureScreenshotFormatPng}
	if full && m.CSSContentSize != nil {
		h = min(max(h, int(m.CSSContentSize.Height)), r.opts.Tools.MaxShotHeight)
		t := true
		p.CaptureBeyondViewport = &t
		p.Clip = &page.Viewport{X: 0, Y: 0, Width: float64(w), Height: float64(h), Scale: 1}
	}
	res, err := chromedp.Call(tab, page.CaptureScreenshot, p)
	if err != nil {
		return nil, err
	}
	return &ports.Shot{PNG: res.Data, Width: w, Height: h}, nil
}
