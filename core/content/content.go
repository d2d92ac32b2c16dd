// Package content holds the page use cases: raw HTML (/v1/scrape) and main
// content (/v1/content), and the fetch-and-extract pipeline that search
// results, bulk jobs and prompts reuse.
package content

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"
	"unicode"

	"github.com/trawlhq/trawl/core/billing"
	"github.com/trawlhq/trawl/core/cache"
	"github.com/trawlhq/trawl/core/changes"
	"github.com/trawlhq/trawl/core/credits"
	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/core/weburl"
	"github.com/trawlhq/trawl/ports"
)

// Service runs the page use cases.
type Service struct {
	fetcher   ports.Fetcher
	extractor ports.Extractor
	biller    *credits.Biller
	renderer  ports.Renderer // nil: this server renders no pages
	docs      map[ports.DocumentFormat]ports.DocumentConverter
	limits    DocumentLimits
	cache     *cache.Cache // nil: every call fetches
	memo      *extractionMemo
	changes   *changes.Tracker // nil: changes=true is not offered

	blobs     ports.BlobStore // screenshots; nil: none taken
	shotTTL   time.Duration
	now       func() time.Time
	countries []string // of the proxy pool

	proxyRetries atomic.Int64
}

// DocumentLimits bound the documents (PDF, DOCX) the content path reads.
type DocumentLimits struct {
	MaxBytes int64         // body cap for a document; default 50 MiB
	MaxPages int           // pages converted at most; default 500, past it a warning
	Timeout  time.Duration // conversion time, after the fetch; default 30 s
}

// Option configures a Service.
type Option func(*Service)

// WithDocuments lets the content path read documents with the converters
// given per format. Without it a document is refused like any non-HTML
// response.
func WithDocuments(limits DocumentLimits, converters map[ports.DocumentFormat]ports.DocumentConverter) Option {
	return func(s *Service) {
		if limits.MaxBytes <= 0 {
			limits.MaxBytes = 50 << 20
		}
		if limits.MaxPages <= 0 {
			limits.MaxPages = 500
		}
		if limits.Timeout <= 0 {
			limits.Timeout = 30 * time.Second
		}
		s.limits = limits
		s.docs = map[ports.DocumentFormat]ports.DocumentConverter{}
		for f, c := range converters {
			if c != nil {
				s.docs[f] = c
			}
		}
	}
}

// WithRenderer lets the service read pages in a browser; without one, every
// page is read over HTTP and answers say when a browser was needed.
func WithRenderer(r ports.Renderer) Option { return func(s *Service) { s.renderer = r } }

// NewService builds the service.
func NewService(fetcher ports.Fetcher, extractor ports.Extractor, biller *credits.Biller, opts ...Option) (*Service, error) {
	if fetcher == nil || extractor == nil || biller == nil {
		return nil, errors.New("content.NewService: fetcher, extractor and biller are required")
	}
	s := &Service{fetcher: fetcher, extractor: extractor, biller: biller}
	for _, o := range opts {
		o(s)
	}
	return s, nil
}

// Renders reports whether the service can read pages in a browser.
func (s *Service) Renders() bool { return s.renderer != nil }

// Raw is the answer of /v1/scrape.
type Raw struct {
	URL         string
	FinalURL    string
	StatusCode  int
	ContentType string
	HTML        string
	Engine      Engine
	// Cache says whether the answer came from the page cache; nil when
	// the server keeps none.
	Cache *cache.Info
}

// Page is the Content object of the spec.
type Page struct {
	URL          string
	Success      bool
	StatusCode   int
	ErrorMessage string
	HTML         string
	Markdown     string
	Text         string
	Metadata     ports.Metadata
	Engine       Engine // empty when the page could not be read
	// Warning says what of the source is missing (a document cut at the
	// page limit); empty otherwise.
	Warning string
	// Cache says whether the page came from the page cache; nil when the
	// server keeps none.
	Cache *cache.Info
	// Change compares the page with the account's previous snapshot of it;
	// nil unless the call asked (changes=true).
	Change *changes.Change

	// Asked for by formats and actions; empty otherwise.
	Links      []Link
	Images     []Image
	Screenshot *ScreenshotLink
	Actions    []ActionOutput
}

// isMarkup: content types whose body is a document Trawl can return as HTML.
func isMarkup(contentType string) bool {
	return contentType == "" || strings.Contains(contentType, "html") || strings.Contains(contentType, "xml") || strings.HasPrefix(contentType, "text/")
}

// Scrape returns the raw HTML of a page for 1 credit. The target's own
// error status is still an answer (reported and billed); a response that is
// not a document, or no response at all, is a 503 and free. In auto mode a
// script shell is rendered in a browser; a failed render leaves the static
// HTML, except a page that went for a non-public address: that is the 422
// a fetch redirected there gets.
func (s *Service) Scrape(ctx context.Context, call credits.Call, rawURL string, mode RenderMode) (Raw, credits.Receipt, error) {
	u, err := weburl.Parse(rawURL, weburl.Rules{Field: "url"})
	if err != nil {
		return Raw{}, credits.Receipt{}, err
	}
	if mode == "" {
		mode = RenderAuto
	}
	call.Service = billing.Scrape
	var out Raw
	ctx = cache.ForAccount(ctx, call.Principal.Account.ID)
	ctx, tracked := s.cache.Track(ctx)
	rc, err := s.biller.Run(ctx, call, func(ctx context.Context) (int64, ports.TransactionMetadata, error) {
		if mode == RenderAlways {
			r, err := s.render(ctx, u)
			if err != nil {
				return 0, ports.TransactionMetadata{}, err
			}
			out = Raw{URL: u.String(), FinalURL: r.FinalURL, StatusCode: r.StatusCode, ContentType: "text/html", HTML: string(r.HTML), Engine: EngineBrowser}
			return billing.Cost(billing.Scrape), ports.TransactionMetadata{URL: u.String()}, nil
		}
		res, err := s.fetch(ctx, ports.FetchRequest{URL: u})
		if err != nil {
			return 0, ports.TransactionMetadata{}, weburl.Failure(err, "url")
		}
		if !isMarkup(res.ContentType) {
			return 0, ports.TransactionMetadata{}, failure.Unable("content.Scrape", failure.ReasonNotHTML,
				fmt.Sprintf("The URL did not return an HTML page (content type %s).", res.ContentType))
		}
		out = Raw{URL: u.String(), FinalURL: res.FinalURL, StatusCode: res.StatusCode, ContentType: res.ContentType, HTML: string(res.Body), Engine: EngineHTTP}
		if s.renderer != nil && StepUp(mode, StaticOutcome{StatusCode: res.StatusCode, Markup: true, Shell: s.shell(ctx, mode, res)}) {
			// The static HTML is an answer already: a render that fails
			// leaves it, unless the caller gave up.
			r, err := s.render(ctx, u)
			if ctx.Err() != nil {
				return 0, ports.TransactionMetadata{}, ctx.Err()
			}
			if failure.Is(err, failure.Invalid) {
				// The page went for a non-public address in the browser:
				// the answer a fetch redirected there gets.
				return 0, ports.TransactionMetadata{}, err
			}
			if err == nil {
				out = Raw{URL: u.String(), FinalURL: r.FinalURL, StatusCode: r.StatusCode, ContentType: "text/html", HTML: string(r.HTML), Engine: EngineBrowser}
			}
		}
		return billing.Cost(billing.Scrape), ports.TransactionMetadata{URL: u.String()}, nil
	})
	out.Cache = tracked.Said()
	return out, rc, err
}

// Content extracts the main content of a page for 2 credits, charged only
// when extraction succeeds.
func (s *Service) Content(ctx context.Context, call credits.Call, rawURL string, mode RenderMode) (Page, credits.Receipt, error) {
	return s.ContentWith(ctx, call, rawURL, mode, Options{})
}

// ContentWith is Content with formats, actions and page options. They
// change nothing of the price: a screenshot or actions are part of the
// page's 2 credits, and a call they make fail is free.
func (s *Service) ContentWith(ctx context.Context, call credits.Call, rawURL string, mode RenderMode, o Options) (Page, credits.Receipt, error) {
	u, err := weburl.Parse(rawURL, weburl.Rules{Field: "url"})
	if err != nil {
		return Page{}, credits.Receipt{}, err
	}
	plan, mode, err := s.Plan(o, mode)
	if err != nil {
		return Page{}, credits.Receipt{}, err
	}
	call.Service = billing.Content
	var page Page
	ctx = cache.ForAccount(ctx, call.Principal.Account.ID)
	ctx = changes.ForAccount(ctx, call.Principal.Account.ID)
	rc, err := s.biller.Run(ctx, call, func(ctx context.Context) (int64, ports.TransactionMetadata, error) {
		p, err := s.extract(ctx, u, u.String(), mode, nil, plan)
		if err != nil {
			return 0, ports.TransactionMetadata{}, err
		}
		page = p
		return billing.Cost(billing.Content), ports.TransactionMetadata{URL: u.String()}, nil
	})
	return page, rc, err
}

// Extract fetches and extracts a page without billing: the pipeline every
// capability shares. HTML pages go to the extractor, PDF and DOCX documents
// to their converter, plain text and Markdown are returned as they are. A
// fetch that fails, a non-2xx answer, any other content type, a block page
// or a page without main content is an error saying which. The static
// fetch comes first; an HTML page is read again in a browser when mode asks
// for it or StepUp says the static page needs one.
func (s *Service) Extract(ctx context.Context, pageURL string, mode RenderMode) (Page, error) {
	return s.ExtractWith(ctx, pageURL, mode, Plan{})
}

// Source is the document a page was extracted from: the static body or
// the rendered DOM, and where it was served from after redirects.
type Source struct {
	FinalURL string
	HTML     []byte // empty unless the page was HTML
	// RetryAfter is the site's Retry-After on a 429 or 503 answer; zero
	// when it sent none.
	RetryAfter time.Duration

	Shot    *ports.Shot          // the screenshot the browser took
	Actions []ports.ActionResult // the actions' results

	keep Keep // asked before the HTML is extracted; nil: always
}

// Keep is asked, once a page's HTML is read (static or rendered) and
// before it is extracted, whether the page is wanted: a crawl reads the
// page's canonical link and robots meta from the document first, and an
// answer of false leaves the page unextracted (ErrNotKept). It may be
// asked again when the static page steps up to the browser.
type Keep func(src Source) bool

// ErrNotKept is the error of a page its Keep did not want: fetched, not
// extracted, nothing charged.
var ErrNotKept = errors.New("content: the page was not kept")

// ExtractSource is Extract that also returns the document it read, so a
// crawl reads the page's links from the same fetch (or render).
func (s *Service) ExtractSource(ctx context.Context, pageURL string, mode RenderMode) (Page, Source, error) {
	return s.ExtractSourceWith(ctx, pageURL, mode, Plan{})
}

// ExtractSourceWith is ExtractSource with a checked plan (Service.Plan):
// a crawl's formats and page options.
func (s *Service) ExtractSourceWith(ctx context.Context, pageURL string, mode RenderMode, plan Plan) (Page, Source, error) {
	return s.ExtractSourceIf(ctx, pageURL, mode, plan, nil)
}

// ExtractSourceIf is ExtractSourceWith that asks keep (when not nil)
// before extracting an HTML page: a page it does not want is returned
// with its Source and ErrNotKept, unextracted. Pages that are not HTML
// (plain text, documents) are not asked.
func (s *Service) ExtractSourceIf(ctx context.Context, pageURL string, mode RenderMode, plan Plan, keep Keep) (Page, Source, error) {
	u, err := weburl.Parse(pageURL, weburl.Rules{Field: "url"})
	if err != nil {
		return Page{URL: pageURL}, Source{}, err
	}
	if plan.NeedsBrowser() {
		mode = RenderAlways
	}
	src := Source{keep: keep}
	p, err := s.extract(ctx, u, pageURL, mode, &src, plan)
	src.keep = nil
	return p, src, err
}

// kept asks the page's Keep, if any, about the document read into src.
func (src *Source) kept() bool {
	return src.keep == nil || src.keep(*src)
}

// ExtractWith is Extract with a checked plan (Service.Plan): the page
// options, formats and actions of bulk jobs, crawls and search content.
func (s *Service) ExtractWith(ctx context.Context, pageURL string, mode RenderMode, plan Plan) (Page, error) {
	p, _, err := s.ExtractSourceWith(ctx, pageURL, mode, plan)
	return p, err
}

// extract is Extract on a URL parsed once by its caller; pageURL is how the
// answer names the page. Whatever the source (an HTML page, static or
// rendered, a document, plain text), an answer without a letter or a digit
// in its Markdown is no answer: it is a free no_main_content, never a
// billed empty page.
func (s *Service) extract(ctx context.Context, u *url.URL, pageURL string, mode RenderMode, src *Source, plan Plan) (Page, error) {
	if src == nil {
		src = &Source{}
	}
	ctx, tracked := s.cache.Track(ctx)
	page, err := s.read(ctx, u, pageURL, mode, src, plan)
	if RetryElsewhere(plan.Page, err) {
		// A block answer through a country's proxy: once more, through
		// another proxy of the same country.
		s.proxyRetries.Add(1)
		plan.Page.Retry++
		*src = Source{keep: src.keep}
		page, err = s.read(ctx, u, pageURL, mode, src, plan)
	}
	page.Cache = tracked.Said()
	if err == nil && readable(page.Markdown) {
		if err = s.compare(ctx, u, &page); err != nil {
			return Page{URL: page.URL, StatusCode: page.StatusCode}, err
		}
	}
	if err == nil && !readable(page.Markdown) {
		return Page{URL: page.URL, StatusCode: page.StatusCode}, failure.Unable("content.Extract", failure.ReasonNoMainContent,
			"The page could not be extracted: no readable text was found in it.")
	}
	if err == nil {
		err = s.finish(ctx, &page, src, plan)
	}
	return page, err
}

// readable reports whether extracted Markdown holds something to read: at
// least one letter or digit. Whitespace, punctuation, markup and invisible
// characters alone are not content.
func readable(markdown string) bool {
	return strings.IndexFunc(markdown, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) }) >= 0
}

// read fetches and extracts a page: the work of extract before its rule.
func (s *Service) read(ctx context.Context, u *url.URL, pageURL string, mode RenderMode, src *Source, plan Plan) (Page, error) {
	const op = "content.Extract"
	if mode == "" {
		mode = RenderAuto
	}
	if src == nil {
		src = &Source{}
	}
	if mode == RenderAlways {
		return s.extractRendered(ctx, u, pageURL, src, plan)
	}
	req := ports.FetchRequest{URL: u}
	req.Page = plan.Page
	if len(s.docs) > 0 {
		req.DocumentMaxBytes = s.limits.MaxBytes
	}
	res, err := s.fetch(ctx, req)
	if err != nil {
		return Page{URL: pageURL}, weburl.Failure(err, "url")
	}
	page := Page{URL: pageURL, StatusCode: res.StatusCode}
	src.FinalURL, src.RetryAfter = res.FinalURL, res.RetryAfter
	if res.StatusCode < 200 || res.StatusCode > 299 {
		return page, failure.Unable(op, StatusReason(res.StatusCode), fmt.Sprintf("The page could not be extracted: the site answered %d %s.", res.StatusCode, http.StatusText(res.StatusCode)))
	}
	kind, format := Classify(res.ContentType, res.Body)
	var ex ports.Extracted
	switch {
	case kind == KindPlain:
		ex = plain(res.Body)
	case kind == KindDocument && s.docs[format] != nil:
		cctx, cancel := context.WithTimeout(ctx, s.limits.Timeout)
		ex, err = s.docs[format].Convert(cctx, ports.DocumentRequest{URL: res.FinalURL, Format: format, Body: res.Body, MaxPages: s.limits.MaxPages})
		err = DocumentFailure(err)
		cancel()
	case kind == KindMarkup:
		src.HTML = res.Body
		var rendered *Page
		if ex, rendered, err = s.extractMarkup(ctx, u, pageURL, mode, res, src, plan); rendered != nil {
			return *rendered, err
		}
	default:
		return page, failure.Unable(op, failure.ReasonNotHTML, fmt.Sprintf("The page could not be extracted: it is not an HTML page or a document Trawl reads (content type %s).", res.ContentType))
	}
	if err != nil {
		return page, err
	}
	page.Success, page.Engine = true, EngineHTTP
	page.HTML, page.Markdown, page.Text, page.Metadata, page.Warning = ex.HTML, ex.Markdown, ex.Text, ex.Metadata, ex.Warning
	return page, nil
}

// extractMarkup extracts a static HTML page, or steps up to the browser.
// rendered is set when the answer came from the browser.
func (s *Service) extractMarkup(ctx context.Context, u *url.URL, pageURL string, mode RenderMode, res ports.FetchResponse, src *Source, plan Plan) (ex ports.Extracted, rendered *Page, err error) {
	const op = "content.Extract"
	// Whether the page is a script shell is read before extraction when a
	// browser could read the page instead; otherwise the extraction says
	// it, which matters when it failed.
	outcome := StaticOutcome{StatusCode: res.StatusCode, Markup: true}
	if s.renderer != nil {
		outcome.Shell = s.shell(ctx, mode, res)
		if StepUp(mode, outcome) {
			p, err := s.extractRendered(ctx, u, pageURL, src, plan)
			return ex, &p, err
		}
	}
	if !src.kept() {
		return ex, nil, ErrNotKept
	}
	ex, err = s.extractKept(ctx, ports.ExtractRequest{URL: res.FinalURL, HTML: res.Body})
	outcome.ExtractDone, outcome.ExtractErr = true, err
	if err != nil && s.renderer != nil && StepUp(mode, outcome) {
		p, err := s.extractRendered(ctx, u, pageURL, src, plan)
		return ex, &p, err
	}
	if err != nil && failure.Is(err, failure.Unavailable) && mode == RenderAuto && ex.Shell {
		// A browser would have been used: say so.
		return ex, nil, failure.E(op, failure.Unavailable, failure.Public(err, "The page could not be extracted.")+" The page builds its content with JavaScript, and this server does not render pages in a browser.", err)
	}
	return ex, nil, err
}

// shell asks the extractor whether a static page is a script shell; only
// auto mode cares.
func (s *Service) shell(ctx context.Context, mode RenderMode, res ports.FetchResponse) bool {
	if mode != RenderAuto {
		return false
	}
	ex, err := s.extractor.Extract(ctx, ports.ExtractRequest{URL: res.FinalURL, HTML: res.Body, ShellOnly: true})
	return err == nil && ex.Shell
}

// render reads a page in the browser, wording the renderer's typed reason
// for the caller; a server without one says so.
func (s *Service) render(ctx context.Context, u *url.URL, plan ...Plan) (ports.RenderResponse, error) {
	if s.renderer == nil {
		return ports.RenderResponse{}, failure.Unable("content.render", failure.ReasonNotOffered, "The page could not be rendered: this server does not render pages in a browser.")
	}
	req := ports.RenderRequest{URL: u}
	if len(plan) > 0 {
		req.Page, req.Actions, req.Shot = plan[0].Page, plan[0].Actions, plan[0].Shot
	}
	r, err := s.renderVia(ctx, req)
	var ae *ports.ActionError
	if errors.As(err, &ae) {
		// A step of the caller's actions failed: worded naming the step.
		return r, ActionFailed(err)
	}
	return r, weburl.Failure(err, "url")
}

// extractRendered renders a page and extracts the rendered DOM with the
// same extractor as a static page.
func (s *Service) extractRendered(ctx context.Context, u *url.URL, pageURL string, src *Source, plan Plan) (Page, error) {
	const op = "content.Extract"
	r, err := s.render(ctx, u, plan)
	if err != nil {
		return Page{URL: pageURL}, err
	}
	src.FinalURL, src.HTML = r.FinalURL, r.HTML
	src.Shot, src.Actions = r.Shot, r.Actions
	page := Page{URL: pageURL, StatusCode: r.StatusCode}
	if r.StatusCode < 200 || r.StatusCode > 299 {
		return page, failure.Unable(op, StatusReason(r.StatusCode), fmt.Sprintf("The page could not be extracted: the site answered %d %s.", r.StatusCode, http.StatusText(r.StatusCode)))
	}
	if !src.kept() {
		return page, ErrNotKept
	}
	ex, err := s.extractKept(ctx, ports.ExtractRequest{URL: r.FinalURL, HTML: r.HTML})
	if err != nil {
		return page, err
	}
	page.Success, page.Engine = true, EngineBrowser
	page.HTML, page.Markdown, page.Text, page.Metadata = ex.HTML, ex.Markdown, ex.Text, ex.Metadata
	return page, nil
}

// Kind is what a response is to the content path.
type Kind int

const (
	KindOther    Kind = iota
	KindMarkup        // HTML, XHTML, XML and text the extractor reads
	KindPlain         // plain text and Markdown, returned as they are
	KindDocument      // PDF, DOCX
)

// Classify tells a response by its content type, and by its signature
// when the type says nothing (application/octet-stream and the like).
func Classify(contentType string, body []byte) (Kind, ports.DocumentFormat) {
	switch contentType {
	case "application/pdf", "application/x-pdf", "application/acrobat":
		return KindDocument, ports.DocumentPDF
	case "application/vnd.openxmlformats-officedocument.wordprocessingml.document":
		return KindDocument, ports.DocumentDOCX
	case "text/plain", "text/markdown", "text/x-markdown":
		if isPDF(body) { // a PDF mislabelled as text, as some servers do
			return KindDocument, ports.DocumentPDF
		}
		return KindPlain, ""
	case "application/octet-stream", "binary/octet-stream", "application/download", "application/force-download",
		"application/x-download", "application/zip", "application/x-zip-compressed", "application/unknown":
		switch {
		case isPDF(body):
			return KindDocument, ports.DocumentPDF
		case isDOCX(body):
			return KindDocument, ports.DocumentDOCX
		}
		return KindOther, ""
	}
	if isMarkup(contentType) {
		return KindMarkup, ""
	}
	return KindOther, ""
}

// isPDF: the header may follow up to 1 KiB of leading bytes, as readers
// allow.
func isPDF(b []byte) bool {
	return bytes.Contains(b[:min(len(b), 1024)], []byte("%PDF-"))
}

// isDOCX: a ZIP archive holding a Word main part.
func isDOCX(b []byte) bool {
	return bytes.HasPrefix(b, []byte("PK\x03\x04")) && bytes.Contains(b, []byte("word/document.xml"))
}

// plain is a text or Markdown body as the Content object: the text as it
// is, and the same in a <pre> for the HTML.
func plain(body []byte) ports.Extracted {
	t := strings.TrimSpace(strings.ToValidUTF8(string(body), "\uFFFD"))
	return ports.Extracted{Markdown: t, Text: t, HTML: "<pre>" + html.EscapeString(t) + "</pre>"}
}

// Failed is the Content object of a page that could not be extracted.
func Failed(pageURL string, statusCode int, err error) Page {
	return Page{URL: pageURL, Success: false, StatusCode: statusCode, ErrorMessage: failure.Public(err, "The page could not be extracted.")}
}

// Object is the Content object of the spec as it travels in JSON: the
// answer of /v1/content, the content of search results and of bulk
// deliveries.
type Object struct {
	URL          string         `json:"url"`
	Success      bool           `json:"success"`
	StatusCode   int            `json:"statusCode"`
	ErrorMessage *string        `json:"errorMessage"`
	HTML         string         `json:"html"`
	Markdown     string         `json:"markdown"`
	Metadata     MetadataObject `json:"metadata"`
	// Engine is how the page was read: http or browser; absent when it
	// could not be read.
	Engine string `json:"engine,omitempty"`
	// Warning is present when the content is not the whole source.
	Warning string `json:"warning,omitempty"`
	// Cache says whether the page came from the page cache.
	Cache *cache.Object `json:"cache,omitempty"`
	// Change compares the page with the previous snapshot (changes=true).
	Change *changes.Object `json:"change,omitempty"`

	// Present when formats or actions asked for them.
	Links      *[]Link         `json:"links,omitempty"`
	Images     *[]Image        `json:"images,omitempty"`
	Screenshot *ScreenshotLink `json:"screenshot,omitempty"`
	Actions    []ActionOutput  `json:"actions,omitempty"`
}

// MetadataObject is the metadata of the Content object.
type MetadataObject struct {
	Title         string `json:"title"`
	Description   string `json:"description"`
	Keywords      string `json:"keywords"`
	Author        string `json:"author"`
	Language      string `json:"language"`
	Favicon       string `json:"favicon"`
	OGImage       string `json:"ogImage"`
	OGImageWidth  string `json:"ogImageWidth"`
	OGImageHeight string `json:"ogImageHeight"`
	OGTitle       string `json:"ogTitle"`
	OGType        string `json:"ogType"`
	// PageCount is present for documents (PDF, DOCX).
	PageCount int `json:"pageCount,omitempty"`
}

// Object renders the page as the Content object.
func (p Page) Object() Object {
	m := p.Metadata
	out := Object{
		URL: p.URL, Success: p.Success, StatusCode: p.StatusCode, HTML: p.HTML, Markdown: p.Markdown, Warning: p.Warning, Engine: string(p.Engine),
		Metadata: MetadataObject{m.Title, m.Description, m.Keywords, m.Author, m.Language, m.Favicon, m.OGImage, m.OGImageWidth, m.OGImageHeight, m.OGTitle, m.OGType, m.PageCount},
	}
	if p.Links != nil {
		out.Links = &p.Links
	}
	if p.Images != nil {
		out.Images = &p.Images
	}
	out.Screenshot, out.Actions = p.Screenshot, p.Actions
	if !p.Success {
		msg := p.ErrorMessage
		out.ErrorMessage = &msg
	}
	if p.Cache != nil {
		out.Cache = p.Cache.Object()
	}
	if p.Change != nil {
		out.Change = p.Change.Object()
	}
	return out
}

// StatusReason is the reason code of a site's non-2xx answer: a refusal
// (401, 403, 429, 451) is "blocked", 404 and 410 "page_not_found", any
// other status "site_error".
func StatusReason(status int) failure.Reason {
	switch status {
	case http.StatusNotFound, http.StatusGone:
		return failure.ReasonPageNotFound
	case http.StatusUnauthorized, http.StatusForbidden, http.StatusTooManyRequests, http.StatusUnavailableForLegalReasons:
		return failure.ReasonBlocked
	}
	return failure.ReasonSiteError
}
