// Package content holds the page use cases: raw HTML (/v1/scrape) and main
// content (/v1/content), and the fetch-and-extract pipeline that search
// results, bulk jobs and prompts reuse.
package content

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/trawlhq/trawl/core/billing"
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
}

// Option configures a Service.
type Option func(*Service)

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
}

// isMarkup: content types whose body is a document Trawl can return as HTML.
func isMarkup(contentType string) bool {
	return contentType == "" || strings.Contains(contentType, "html") || strings.Contains(contentType, "xml") || strings.HasPrefix(contentType, "text/")
}

// Scrape returns the raw HTML of a page for 1 credit. The target's own
// error status is still an answer (reported and billed); a response that is
// not a document, or no response at all, is a 503 and free. In auto mode a
// script shell is rendered in a browser; a failed render is free.
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
	rc, err := s.biller.Run(ctx, call, func(ctx context.Context) (int64, ports.TransactionMetadata, error) {
		if mode == RenderAlways {
			r, err := s.render(ctx, u.String())
			if err != nil {
				return 0, ports.TransactionMetadata{}, err
			}
			out = Raw{URL: u.String(), FinalURL: r.FinalURL, StatusCode: r.StatusCode, ContentType: "text/html", HTML: string(r.HTML), Engine: EngineBrowser}
			return billing.Cost(billing.Scrape), ports.TransactionMetadata{URL: u.String()}, nil
		}
		res, err := s.fetcher.Fetch(ctx, ports.FetchRequest{URL: u.String(), Field: "url"})
		if err != nil {
			return 0, ports.TransactionMetadata{}, err
		}
		if !isMarkup(res.ContentType) {
			return 0, ports.TransactionMetadata{}, failure.E("content.Scrape", failure.Unavailable,
				fmt.Sprintf("The URL did not return an HTML page (content type %s).", res.ContentType))
		}
		out = Raw{URL: u.String(), FinalURL: res.FinalURL, StatusCode: res.StatusCode, ContentType: res.ContentType, HTML: string(res.Body), Engine: EngineHTTP}
		shell := ScriptShell(res.Body)
		if s.renderer != nil && StepUp(mode, StaticOutcome{StatusCode: res.StatusCode, Markup: true, Shell: shell}) {
			r, err := s.render(ctx, u.String())
			if err != nil {
				return 0, ports.TransactionMetadata{}, err
			}
			out = Raw{URL: u.String(), FinalURL: r.FinalURL, StatusCode: r.StatusCode, ContentType: "text/html", HTML: string(r.HTML), Engine: EngineBrowser}
		}
		return billing.Cost(billing.Scrape), ports.TransactionMetadata{URL: u.String()}, nil
	})
	return out, rc, err
}

// Content extracts the main content of a page for 2 credits, charged only
// when extraction succeeds.
func (s *Service) Content(ctx context.Context, call credits.Call, rawURL string, mode RenderMode) (Page, credits.Receipt, error) {
	u, err := weburl.Parse(rawURL, weburl.Rules{Field: "url"})
	if err != nil {
		return Page{}, credits.Receipt{}, err
	}
	call.Service = billing.Content
	var page Page
	rc, err := s.biller.Run(ctx, call, func(ctx context.Context) (int64, ports.TransactionMetadata, error) {
		p, err := s.Extract(ctx, u.String(), mode)
		if err != nil {
			return 0, ports.TransactionMetadata{}, err
		}
		page = p
		return billing.Cost(billing.Content), ports.TransactionMetadata{URL: u.String()}, nil
	})
	return page, rc, err
}

// Extract fetches and extracts a page without billing: the pipeline every
// capability shares. A fetch that fails, a non-2xx answer, a non-document, a
// block page or a page without main content is an error saying which. The
// static fetch comes first; the page is read again in a browser when mode
// asks for it or StepUp says the static page needs one.
func (s *Service) Extract(ctx context.Context, pageURL string, mode RenderMode) (Page, error) {
	const op = "content.Extract"
	if mode == "" {
		mode = RenderAuto
	}
	if mode == RenderAlways {
		return s.extractRendered(ctx, pageURL)
	}
	res, err := s.fetcher.Fetch(ctx, ports.FetchRequest{URL: pageURL, Field: "url"})
	if err != nil {
		return Page{URL: pageURL}, err
	}
	page := Page{URL: pageURL, StatusCode: res.StatusCode}
	if res.StatusCode < 200 || res.StatusCode > 299 {
		return page, failure.E(op, failure.Unavailable, fmt.Sprintf("The page could not be extracted: the site answered %d %s.", res.StatusCode, http.StatusText(res.StatusCode)))
	}
	if !isMarkup(res.ContentType) {
		return page, failure.E(op, failure.Unavailable, fmt.Sprintf("The page could not be extracted: it is not an HTML page (content type %s).", res.ContentType))
	}
	outcome := StaticOutcome{StatusCode: res.StatusCode, Markup: true, Shell: mode == RenderAuto && ScriptShell(res.Body)}
	if s.renderer != nil && StepUp(mode, outcome) {
		return s.extractRendered(ctx, pageURL)
	}
	ex, err := s.extractor.Extract(ctx, ports.ExtractRequest{URL: res.FinalURL, HTML: res.Body})
	outcome.ExtractDone, outcome.ExtractErr = true, err
	if err != nil && s.renderer != nil && StepUp(mode, outcome) {
		return s.extractRendered(ctx, pageURL)
	}
	if err != nil && outcome.Shell && failure.Is(err, failure.Unavailable) {
		// A browser would have been used: say so.
		return page, failure.E(op, failure.Unavailable, failure.Public(err, "The page could not be extracted.")+" The page builds its content with JavaScript, and this server does not render pages in a browser.", err)
	}
	if err != nil {
		return page, err
	}
	page.Success, page.Engine = true, EngineHTTP
	page.HTML, page.Markdown, page.Text, page.Metadata = ex.HTML, ex.Markdown, ex.Text, ex.Metadata
	return page, nil
}

// render reads a page in the browser; a server without one says so.
func (s *Service) render(ctx context.Context, pageURL string) (ports.RenderResponse, error) {
	if s.renderer == nil {
		return ports.RenderResponse{}, failure.E("content.render", failure.Unavailable, "The page could not be rendered: this server does not render pages in a browser.")
	}
	return s.renderer.Render(ctx, ports.RenderRequest{URL: pageURL, Field: "url"})
}

// extractRendered renders a page and extracts the rendered DOM with the
// same extractor as a static page.
func (s *Service) extractRendered(ctx context.Context, pageURL string) (Page, error) {
	const op = "content.Extract"
	r, err := s.render(ctx, pageURL)
	if err != nil {
		return Page{URL: pageURL}, err
	}
	page := Page{URL: pageURL, StatusCode: r.StatusCode}
	if r.StatusCode < 200 || r.StatusCode > 299 {
		return page, failure.E(op, failure.Unavailable, fmt.Sprintf("The page could not be extracted: the site answered %d %s.", r.StatusCode, http.StatusText(r.StatusCode)))
	}
	ex, err := s.extractor.Extract(ctx, ports.ExtractRequest{URL: r.FinalURL, HTML: r.HTML})
	if err != nil {
		return page, err
	}
	page.Success, page.Engine = true, EngineBrowser
	page.HTML, page.Markdown, page.Text, page.Metadata = ex.HTML, ex.Markdown, ex.Text, ex.Metadata
	return page, nil
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
}

// Object renders the page as the Content object.
func (p Page) Object() Object {
	m := p.Metadata
	out := Object{
		URL: p.URL, Success: p.Success, StatusCode: p.StatusCode, HTML: p.HTML, Markdown: p.Markdown,
		Metadata: MetadataObject{m.Title, m.Description, m.Keywords, m.Author, m.Language, m.Favicon, m.OGImage, m.OGImageWidth, m.OGImageHeight, m.OGTitle, m.OGType},
		Engine:   string(p.Engine),
	}
	if !p.Success {
		msg := p.ErrorMessage
		out.ErrorMessage = &msg
	}
	return out
}
