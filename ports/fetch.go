package ports

import "context"

// FetchRequest asks for one page.
type FetchRequest struct {
	URL string
	// Field is the request field the URL came from, named in validation errors.
	Field string
	// MaxBytes caps the decoded body; 0 means the fetcher's default.
	MaxBytes int64
	// Accept overrides the Accept header (sitemaps ask for XML).
	Accept string
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
}

// Fetcher fetches public web pages. URL rule violations and non-public
// targets (also after a redirect) are failure.Invalid naming the field;
// anything that prevents an answer (DNS, timeout, TLS, size) is
// failure.Unavailable with a message saying which.
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
