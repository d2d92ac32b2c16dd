package ports

import (
	"context"
	"net/url"
	"time"
)

// FetchRequest asks for one page.
type FetchRequest struct {
	// URL is an absolute http or https URL as core/weburl.Parse returned it:
	// parsed and checked once, by the caller that read it; the fetcher does
	// not parse it again (its address guard still runs at dial time).
	URL *url.URL
	// Field is the request field the URL came from, named in validation errors.
	Field string
	// MaxBytes caps the decoded body; 0 means the fetcher's default.
	MaxBytes int64
	// DocumentMaxBytes, when set, caps the body instead of MaxBytes when the
	// response is not text (a PDF, an Office file, application/octet-stream):
	// documents are larger than pages.
	DocumentMaxBytes int64
	// Accept overrides the Accept header (sitemaps ask for XML).
	Accept string

	// Page is how the page is asked for: device, locale, headers and
	// cookies for the target's origin, the proxy's country.
	Page PageOptions
}

// FetchResponse is what the target answered. A non-2xx status is still a
// response: callers decide what it means for them.
type FetchResponse struct {
	URL         string // as requested (normalised)
	FinalURL    string // after redirects
	StatusCode  int
	ContentType string // media type, lower-case, without parameters
	Charset     string // the charset the body was converted from ("utf-8" if it was already)
	Body        []byte // decompressed; text converted to UTF-8
	Redirects   int
	// RetryAfter is the Retry-After of a 429 or 503 answer (seconds or a
	// date, read as a wait); zero when absent.
	RetryAfter time.Duration
}

// Fetcher fetches public web pages. URL rule violations and non-public
// targets (also after a redirect) are failure.Invalid naming the field;
// anything that prevents an answer (DNS, timeout, TLS, size) is
// failure.Unavailable with a message saying which. Both carry the typed
// *FetchError as their cause, built by core/weburl.FetchFailure.
type Fetcher interface {
	Fetch(ctx context.Context, r FetchRequest) (FetchResponse, error)
}

// AddressGuard is the fetcher's address check on its own, for inputs that
// are accepted now and fetched later (bulk jobs): the same resolution and
// the same verdicts as a fetch.
type AddressGuard interface {
	// CheckHost applies the URL rules and resolves the host: failure.Invalid
	// naming field when a rule is broken or the host resolves to a
	// non-public address, failure.Unavailable when it cannot be resolved.
	CheckHost(ctx context.Context, rawURL, field string) error
}

// FetchReason says why a page could not be fetched.
type FetchReason uint8

const (
	FetchFailed           FetchReason = iota // anything else
	FetchNonPublic                           // the host resolves to a non-public address
	FetchTooLarge                            // the body is over the limit (Limit)
	FetchHostNotFound                        // the host does not resolve
	FetchTimeout                             // no answer within Timeout
	FetchBadCertificate                      // the TLS certificate is not valid
	FetchRefused                             // the connection was refused
	FetchCanceled                            // the caller gave up
	FetchTooManyRedirects                    // more than Limit redirects
	FetchBadRedirect                         // a redirect to a URL breaking Rule
)

// FetchError is the typed reason a fetcher gives for a fetch that brought
// no answer. It says nothing of the request field: the caller, which knows
// it, turns the reason into the failure it reports (core/weburl.FetchFailure).
type FetchError struct {
	Reason  FetchReason
	Host    string
	Limit   int64         // FetchTooLarge: bytes; FetchTooManyRedirects: redirects
	Timeout time.Duration // FetchTimeout
	Rule    string        // FetchBadRedirect: the URL rule the target broke ("must use http or https")
	Err     error         // the transport's own error, for logs
}

func (e *FetchError) Error() string {
	if e.Err != nil {
		return "fetch " + e.Host + ": " + e.Err.Error()
	}
	return "fetch " + e.Host + " failed"
}

func (e *FetchError) Unwrap() error { return e.Err }
