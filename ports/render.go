package ports

import (
	"context"
	"net/url"
	"time"
)

// RenderRequest asks for a page as a browser shows it after its scripts ran.
type RenderRequest struct {
	// URL is an absolute http or https URL as core/weburl.Parse returned
	// it: the renderer does not parse it again.
	URL *url.URL
	// Timeout is the budget for the whole render; 0 means the renderer's default.
	Timeout time.Duration

	// Page is how the page is loaded: device, locale, headers, cookies,
	// the proxy's country.
	Page PageOptions
	// Actions run in order once the page settled, before it is read.
	Actions []Action
	// Shot asks for a screenshot after the actions; it loads images.
	Shot ShotKind
}

// RenderResponse is the rendered document.
type RenderResponse struct {
	URL        string // as requested
	FinalURL   string // after redirects and client-side navigation
	StatusCode int    // of the main document
	HTML       []byte // the DOM serialised after the page settled, UTF-8

	Shot    *Shot          // the screenshot asked for; nil when none
	Actions []ActionResult // one per action, in order
}

// Renderer loads pages in a browser, behind the same address guard as the
// Fetcher. A page that cannot be rendered within the budget (it never
// settles, uses too much memory, the browser fails) is a *RenderError; a
// non-public target, also one the page went to, is a *FetchError with
// FetchNonPublic; a caller that gave up gets its context's error. The
// caller words them (core/weburl.RenderFailure).
type Renderer interface {
	Render(ctx context.Context, r RenderRequest) (RenderResponse, error)
}

// RenderReason says why a page could not be rendered.
type RenderReason uint8

const (
	RenderFailed      RenderReason = iota // anything else
	RenderBusy                            // no browser was free within the budget
	RenderNoBrowser                       // the browser did not start
	RenderTimeout                         // the page did not settle within Budget
	RenderMemory                          // the page used more memory than a page may, or crashed
	RenderBrowserGone                     // the browser stopped under the page
	RenderNotLoaded                       // the browser could not load the page
	RenderDownload                        // the URL is a download, not a page
	RenderLeftWeb                         // the page navigated away from the web (another scheme)
)

// RenderError is the typed reason a renderer gives for a page it could not
// render; like FetchError it holds no sentence for the caller.
type RenderError struct {
	Reason RenderReason
	Budget time.Duration // RenderTimeout: the budget that ran out
	Err    error         // the browser's own error, for logs
}

func (e *RenderError) Error() string {
	if e.Err != nil {
		return "render: " + e.Err.Error()
	}
	return "render failed"
}

func (e *RenderError) Unwrap() error { return e.Err }
