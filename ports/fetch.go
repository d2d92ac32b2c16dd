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
	// MaxBytes caps the decoded body; 0 means the fetcher's default.
	MaxBytes int64
	// DocumentMaxBytes, when set, caps the body instead of MaxBytes when the
	// response is not text (a PDF, an Office file, application/octet-stream):
	// documents are larger than pages.
	DocumentMaxBytes int64
	// Accept overrides the Accept header (sitemaps ask for XML).
	Accept string

	// IfNoneMatch and IfModifiedSince, when set, make the request
	// conditional (a cached response being revalidated): a site whose page
	// is unchanged answers 304 with no body.
	IfNoneMatch     string
	IfModifiedSince string
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

	// ETag and LastModified are the site's validators for the response,
	// kept by the page cache to revalidate it later.
	ETag         string
	LastModified string
}

// Fetcher fetches public web pages. Anything that prevents an answer (a
// non-public target, also after a redirect, DNS, timeout, TLS, size) is a
// *FetchError saying which; the caller, which knows the request field the
// URL came from, words it (core/weburl.FetchFailure).
type Fetcher interface {
	Fetch(ctx context.Context, r FetchRequest) (FetchResponse, error)
}

// AddressGuard is the fetcher's address check on its own, for inputs that
// are accepted now and fetched later (bulk jobs): the same resolution and
// the same verdicts as a fetch.
type AddressGuard interface {
	// CheckHost resolves the host of a URL the caller parsed and checked
	// (core/weburl.Parse): a *FetchError with FetchNonPublic when it
	// resolves to a non-public address, FetchHostNotFound (or another
	// reason) when it cannot be resolved.
	CheckHost(ctx context.Context, u *url.URL) error
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
	FetchBadURL                              // the request's URL is not an absolute http or https URL
)

// FetchError is the typed reason a fetcher (or an address guard, a
// renderer, a webhook sender) gives for a URL it could not reach. It says
// nothing of the request field and holds no sentence for the caller: the
// caller, which knows the field, turns the reason into the failure it
// reports (core/weburl.FetchFailure).
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
