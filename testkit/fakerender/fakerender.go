// Package fakerender is an in-process browser for tests: a ports.Renderer
// that loads pages from an http.Handler (a fixture site's mux) and plays
// their scripts back as the pages declare them, so the rules around
// rendering (when to step up, what a failed render leaves, what is billed)
// run without Chromium. It gives the typed reasons a real renderer gives:
// a page that does not load within the budget, a download, a page that
// goes to a non-public address.
package fakerender

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/trawlhq/trawl/core/weburl"
	"github.com/trawlhq/trawl/ports"
)

// Renderer renders pages served by Handler. The zero value is not usable:
// build it with New.
type Renderer struct {
	handler http.Handler
	opts    Options
	mu      sync.Mutex
	renders []string
}

// Options tune a Renderer.
type Options struct {
	// Guard judges the page's host, and the host of every redirect target,
	// as the browser's address guard does; nil: only raw non-public
	// addresses and local names are refused.
	Guard ports.AddressGuard
	// Timeout is the budget of a render when the request gives none;
	// default 30 s.
	Timeout time.Duration
}

var _ ports.Renderer = (*Renderer)(nil)

// New builds a renderer over h.
func New(h http.Handler, o Options) *Renderer {
	if o.Timeout <= 0 {
		o.Timeout = 30 * time.Second
	}
	return &Renderer{handler: h, opts: o}
}

// Renders lists the URLs asked for, in order.
func (r *Renderer) Renders() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.renders...)
}

// script is what a page's scripts add, declared in the page: the content of
// a <template data-script> element takes its place once rendered.
var script = regexp.MustCompile(`(?is)<template\s+data-script\s*>(.*?)</template>`)

const maxRedirects = 10

// Render implements ports.Renderer: the document Handler serves for the URL
// after redirects, with its scripts played back.
func (r *Renderer) Render(ctx context.Context, req ports.RenderRequest) (ports.RenderResponse, error) {
	u := req.URL
	if u == nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return ports.RenderResponse{}, &ports.FetchError{Reason: ports.FetchBadURL}
	}
	r.mu.Lock()
	r.renders = append(r.renders, u.String())
	r.mu.Unlock()
	budget := req.Timeout
	if budget <= 0 {
		budget = r.opts.Timeout
	}
	ctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	out := ports.RenderResponse{URL: u.String()}
	target := u
	for hop := 0; ; hop++ {
		if err := r.public(ctx, target); err != nil {
			return ports.RenderResponse{URL: out.URL}, err
		}
		rec, err := r.serve(ctx, target)
		if err != nil {
			if ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return out, &ports.RenderError{Reason: ports.RenderTimeout, Budget: budget, Err: err}
			}
			if ctx.Err() != nil {
				return out, ctx.Err()
			}
			return out, &ports.RenderError{Reason: ports.RenderFailed, Err: err}
		}
		if loc := rec.Header().Get("Location"); rec.Code >= 300 && rec.Code < 400 && loc != "" {
			next, err := target.Parse(loc)
			if err != nil || hop == maxRedirects {
				return out, &ports.RenderError{Reason: ports.RenderNotLoaded, Err: fmt.Errorf("redirect to %q", loc)}
			}
			if next.Scheme != "http" && next.Scheme != "https" {
				return out, &ports.RenderError{Reason: ports.RenderLeftWeb}
			}
			target = next
			continue
		}
		mediaType, _, _ := mime.ParseMediaType(rec.Header().Get("Content-Type"))
		if mediaType != "" && !strings.Contains(mediaType, "html") && !strings.HasPrefix(mediaType, "text/") {
			return out, &ports.RenderError{Reason: ports.RenderDownload}
		}
		out.FinalURL, out.StatusCode = target.String(), rec.Code
		out.HTML = script.ReplaceAll(rec.Body.Bytes(), []byte("$1"))
		return out, nil
	}
}

// public applies the verdicts a browser's address guard gives a document's
// host: raw non-public addresses and local names by themselves, any other
// name through Guard.
func (r *Renderer) public(ctx context.Context, u *url.URL) error {
	host := u.Hostname()
	if ip, err := netip.ParseAddr(host); err == nil {
		if !weburl.IsPublicIP(ip) {
			return &ports.FetchError{Reason: ports.FetchNonPublic, Host: host}
		}
		return nil
	}
	if weburl.IsLocalName(host) {
		return &ports.FetchError{Reason: ports.FetchNonPublic, Host: host}
	}
	if r.opts.Guard == nil {
		return nil
	}
	return r.opts.Guard.CheckHost(ctx, u)
}

// serve runs the handler for one document, within ctx: a handler still
// busy when ctx ends is a page that did not load in time.
func (r *Renderer) serve(ctx context.Context, u *url.URL) (*httptest.ResponseRecorder, error) {
	hr, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	hr.Header.Set("User-Agent", "Mozilla/5.0 (X11; Linux x86_64) fakerender")
	rec := httptest.NewRecorder()
	done := make(chan any, 1)
	go func() {
		defer func() { done <- recover() }()
		r.handler.ServeHTTP(rec, hr)
	}()
	select {
	case p := <-done:
		if p != nil {
			return nil, fmt.Errorf("the page crashed: %v", p)
		}
		return rec, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Page is a script shell that its scripts fill with body: what a
// client-side app serves before and shows after its bundle ran. Its
// inline script does in a real browser what this renderer plays back.
func Page(title, body string) string {
	var b bytes.Buffer
	fmt.Fprintf(&b, `<!doctype html><html><head><title>%s</title><script type="module" src="/assets/app.js"></script></head>`, title)
	fmt.Fprintf(&b, `<body><div id="root"><template data-script>%s</template></div>`, body)
	b.WriteString(`<script>document.querySelectorAll("template[data-script]").forEach(t => t.replaceWith(t.content));</script></body></html>`)
	return b.String()
}
