package ports

import "context"

// Metadata is the page-level metadata of the Content object. Every string
// field is empty when the page does not say.
type Metadata struct {
	Title         string
	Description   string
	Keywords      string
	Author        string
	Language      string
	Favicon       string // absolute URL
	OGImage       string // absolute URL
	OGImageWidth  string
	OGImageHeight string
	OGTitle       string
	OGType        string
	// PageCount is the number of pages of a document (PDF, DOCX); 0 for a
	// web page or a document format without pages.
	PageCount int
}

// ExtractRequest is a fetched page to extract.
type ExtractRequest struct {
	URL  string // the final URL of the page: relative links resolve against it
	HTML []byte // UTF-8
	// ShellOnly asks only whether the page is a script shell
	// (Extracted.Shell), without extracting it: a browser may read it
	// instead.
	ShellOnly bool
}

// Extracted is a page's main content.
type Extracted struct {
	HTML     string // clean, sanitised HTML of the main content
	Markdown string
	Text     string // plain text, blocks separated by blank lines
	Metadata Metadata
	// Warning says what the caller should know of a result that is not the
	// whole source (a document cut at the page limit); empty otherwise.
	Warning string
	// Shell says the static page is a shell its scripts fill in (a
	// framework root with nothing in it, a <noscript> asking for
	// JavaScript, bundles and almost no text): a browser would see more.
	// It is reported with ShellOnly and with a failed extraction, the
	// times an answer depends on it; a page that extracted is not judged.
	Shell bool
}

// Extractor finds the main content of a page. A page it cannot extract is
// an *ExtractError saying why, which the caller words
// (core/content.ExtractFailure); the Extracted returned with an error still
// says whether the page is a script shell.
type Extractor interface {
	Extract(ctx context.Context, r ExtractRequest) (Extracted, error)
}

// ExtractReason says why a page had no main content to extract.
type ExtractReason uint8

const (
	ExtractNoContent ExtractReason = iota // no main content was found
	ExtractNotHTML                        // the page could not be parsed as HTML
	ExtractChallenge                      // the site answered with a bot-protection challenge
	ExtractCaptcha                        // the site answered with a captcha challenge
	ExtractDenied                         // the site answered with an access-denied page
)

// ExtractError is the typed reason an extractor gives for a page it could
// not extract; it holds no sentence for the caller.
type ExtractError struct {
	Reason ExtractReason
	Err    error // the parser's own error, for logs
}

func (e *ExtractError) Error() string {
	if e.Err != nil {
		return "extract: " + e.Err.Error()
	}
	return "extract failed"
}

func (e *ExtractError) Unwrap() error { return e.Err }

// SitemapDiscoverer finds the URLs a site lists in its sitemaps: those
// declared in robots.txt, else /sitemap.xml and /sitemap_index.xml, with
// indexes followed. URLs come in sitemap order and may repeat. A site with
// no readable sitemap, or a sitemap that cannot be read, is a
// *SitemapError; a non-public origin is a *FetchError (FetchNonPublic). The
// caller words them (core/sitemap.ReadFailure, DiscoverFailure).
type SitemapDiscoverer interface {
	Discover(ctx context.Context, origin string) ([]string, error)
	// Read reads one sitemap (an index is followed) at most up to max URLs.
	Read(ctx context.Context, sitemapURL string, max int) ([]string, error)
}

// SitemapReason says why no sitemap could be read.
type SitemapReason uint8

const (
	SitemapUnreadable SitemapReason = iota // no file read was a sitemap; Err says why the last one failed, if known
	SitemapRefused                         // the sitemap URL itself cannot be read (Read)
)

// SitemapError is the typed reason a sitemap reader gives when it read no
// sitemap. Err is the last file's reason: a *FetchError, a URL rule broken
// by a listed sitemap, or nil when the files were not sitemaps.
type SitemapError struct {
	Reason SitemapReason
	Host   string // Discover: the site's host
	Err    error
}

func (e *SitemapError) Error() string {
	if e.Err != nil {
		return "sitemap " + e.Host + ": " + e.Err.Error()
	}
	return "sitemap " + e.Host + ": no sitemap read"
}

func (e *SitemapError) Unwrap() error { return e.Err }
