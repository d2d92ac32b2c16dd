package ports

import (
	"context"
	"time"
)

// RenderRequest asks for a page as a browser shows it after its scripts ran.
type RenderRequest struct {
	URL string
	// Field is the request field the URL came from, named in errors.
	Field string
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
// settles, uses too much memory, the browser fails) is failure.Unavailable;
// a non-public target is failure.Invalid naming the field.
type Renderer interface {
	Render(ctx context.Context, r RenderRequest) (RenderResponse, error)
}
