package ports

import "context"

// FetchRequest asks for one page.
type FetchRequest struct {
	URL string
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
