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
}

// NewService builds the service.
func NewService(fetcher ports.Fetcher, extractor ports.Extractor, biller *credits.Biller) (*Service, error) {
	if fetcher == nil || extractor == nil || biller == nil {
		return nil, errors.New("content.NewService: fetcher, extractor and biller are required")
	}
	return &Service{fetcher: fetcher, extractor: extractor, biller: biller}, nil
}

// Raw is the answer of /v1/scrape.
type Raw struct {
	URL         string
	FinalURL    string
	StatusCode  int
	ContentType string
	HTML        string
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
}

// isMarkup: content types whose body is a document Trawl can return as HTML.
func isMarkup(contentType string) bool {
	return contentType == "" || strings.Contains(contentType, "html") || strings.Contains(contentType, "xml") || strings.HasPrefix(contentType, "text/")
}

// Scrape returns the raw HTML of a page for 1 credit. The target's own
// error status is still an answer (reported and billed); a response that is
// not a document, or no response at all, is a 503 and free.
func (s *Service) Scrape(ctx context.Context, call credits.Call, rawURL string) (Raw, credits.Receipt, error) {
	u, err := weburl.Parse(rawURL, weburl.Rules{Field: "url"})
	if err != nil {
		return Raw{}, credits.Receipt{}, err
	}
	call.Service = billing.Scrape
	var out Raw
	rc, err := s.biller.Run(ctx, call, func(ctx context.Context) (int64, ports.TransactionMetadata, error) {
		res, err := s.fetcher.Fetch(ctx, ports.FetchRequest{URL: u.String(), Field: "url"})
		if err != nil {
			return 0, ports.TransactionMetadata{}, err
		}
		if !isMarkup(res.ContentType) {
			return 0, ports.TransactionMetadata{}, failure.Unable("content.Scrape", failure.ReasonNotHTML,
				fmt.Sprintf("The URL did not return an HTML page (content type %s).", res.ContentType))
		}
		out = Raw{URL: u.String(), FinalURL: res.FinalURL, StatusCode: res.StatusCode, ContentType: res.ContentType, HTML: string(res.Body)}
		return billing.Cost(billing.Scrape), ports.TransactionMetadata{URL: u.String()}, nil
	})
	return out, rc, err
}

// Content extracts the main content of a page for 2 credits, charged only
// when extraction succeeds.
func (s *Service) Content(ctx context.Context, call credits.Call, rawURL string) (Page, credits.Receipt, error) {
	u, err := weburl.Parse(rawURL, weburl.Rules{Field: "url"})
	if err != nil {
		return Page{}, credits.Receipt{}, err
	}
	call.Service = billing.Content
	var page Page
	rc, err := s.biller.Run(ctx, call, func(ctx context.Context) (int64, ports.TransactionMetadata, error) {
		p, err := s.Extract(ctx, u.String())
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
// block page or a page without main content is an error saying which.
func (s *Service) Extract(ctx context.Context, pageURL string) (Page, error) {
	const op = "content.Extract"
	res, err := s.fetcher.Fetch(ctx, ports.FetchRequest{URL: pageURL, Field: "url"})
	if err != nil {
		return Page{URL: pageURL}, err
	}
	page := Page{URL: pageURL, StatusCode: res.StatusCode}
	if res.StatusCode < 200 || res.StatusCode > 299 {
		return page, failure.Unable(op, StatusReason(res.StatusCode), fmt.Sprintf("The page could not be extracted: the site answered %d %s.", res.StatusCode, http.StatusText(res.StatusCode)))
	}
	if !isMarkup(res.ContentType) {
		return page, failure.Unable(op, failure.ReasonNotHTML, fmt.Sprintf("The page could not be extracted: it is not an HTML page (content type %s).", res.ContentType))
	}
	ex, err := s.extractor.Extract(ctx, ports.ExtractRequest{URL: res.FinalURL, HTML: res.Body})
	if err != nil {
		return page, err
	}
	page.Success = true
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
	}
	if !p.Success {
		msg := p.ErrorMessage
		out.ErrorMessage = &msg
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
