package client

import (
	"context"
	"net/url"
	"strconv"
)

// CrawlRequest is a crawl: a start URL and the bounds of what is read
// from it. Nil pointers and empty values take the server's defaults.
type CrawlRequest struct {
	URL string `json:"url"`
	// Limit is the number of pages to extract, 1 to 10,000 (default 100);
	// 2 credits per page are held at submission.
	Limit *int `json:"limit,omitempty"`
	// MaxDepth is the link hops from the start URL, 0 to 20 (default 3).
	MaxDepth *int `json:"max_depth,omitempty"`
	// Include and Exclude are globs (/blog/**, *.pdf) or, prefixed re:,
	// RE2 expressions, matched on the path plus query; exclude wins.
	Include []string `json:"include,omitempty"`
	Exclude []string `json:"exclude,omitempty"`
	// Scope is host (default), domain or subdomains.
	Scope string `json:"scope,omitempty"`
	// Sitemap is include (default), skip or only.
	Sitemap string `json:"sitemap,omitempty"`
	// IgnoreQueryParams replaces the default list of query parameters
	// ignored when URLs are compared (utm_*, gclid, fbclid, ref).
	IgnoreQueryParams []string `json:"ignore_query_params,omitempty"`
	Render            string   `json:"render,omitempty"`
	CallbackURL       string   `json:"callback_url,omitempty"`
	Email             bool     `json:"email,omitempty"`
	// MaxAge is the oldest cached response accepted for each page, in
	// seconds (0 to 30 days); 0 fetches.
	MaxAge int `json:"max_age,omitempty"`
	// Store false keeps the fetched responses out of the cache (nil: true).
	Store *bool `json:"store,omitempty"`
	// Changes compares each page with the previous one this account read
	// under Tag; delivered pages carry a change object.
	Changes bool   `json:"changes,omitempty"`
	Tag     string `json:"tag,omitempty"`
}

// CrawlAck acknowledges a queued crawl.
type CrawlAck struct {
	CrawlID  string `json:"crawl_id"`
	Status   string `json:"status"`
	URL      string `json:"url"`
	Limit    int    `json:"limit"`
	MaxDepth int    `json:"max_depth"`
	QueuedAt string `json:"queued_at"`
}

// Crawl states, the values of CrawlStatus.Status.
const (
	CrawlQueued    = "queued"
	CrawlRunning   = "running"
	CrawlCompleted = "completed"
	CrawlCancelled = "cancelled"
	CrawlFailed    = "failed"
)

// CrawlStatus is a crawl's state and counts.
type CrawlStatus struct {
	CrawlID    string `json:"crawl_id"`
	Status     string `json:"status"`
	URL        string `json:"url"`
	Limit      int    `json:"limit"`
	MaxDepth   int    `json:"max_depth"`
	Discovered int    `json:"discovered"`
	Queued     int    `json:"queued"`
	InFlight   int    `json:"in_flight"`
	Succeeded  int    `json:"succeeded"`
	Failed     int    `json:"failed"`
	// Skipped counts URLs not read, by reason: robots, filter, scope,
	// depth, duplicate and limit.
	Skipped        map[string]int `json:"skipped"`
	CreditsCharged int64          `json:"credits_charged"`
	QueuedAt       string         `json:"queued_at"`
	StartedAt      *string        `json:"started_at"`
	CompletedAt    *string        `json:"completed_at"`
	Error          *string        `json:"error"`
}

// Done says whether the crawl has ended.
func (s CrawlStatus) Done() bool {
	return s.Status == CrawlCompleted || s.Status == CrawlCancelled || s.Status == CrawlFailed
}

// CrawlPage is an extracted page: its content, the link hops from the
// start URL and the page it was found on (empty for the start URL and
// sitemap URLs).
type CrawlPage struct {
	Content
	Depth  int    `json:"depth"`
	Parent string `json:"parent"`
}

// CrawlPages is one page of a crawl's extracted pages.
type CrawlPages struct {
	CrawlID string      `json:"crawl_id"`
	Pages   []CrawlPage `json:"pages"`
	// NextCursor is given while there may be more pages.
	NextCursor *string `json:"next_cursor"`
}

// CreateCrawl queues a crawl (2 credits per page extracted; the limit's
// cost is held at submission and the rest released at the end).
func (c *Client) CreateCrawl(ctx context.Context, r CrawlRequest) (CrawlAck, error) {
	var out CrawlAck
	return out, c.do(ctx, "POST", "/v1/crawl", nil, r, true, &out)
}

// Crawl reports on a crawl (free, never waits).
func (c *Client) Crawl(ctx context.Context, crawlID string) (CrawlStatus, error) {
	var out CrawlStatus
	return out, c.do(ctx, "GET", "/v1/crawl/"+url.PathEscape(crawlID), nil, nil, false, &out)
}

// CrawlPages lists a crawl's extracted pages in the order they finished,
// from cursor (empty: the first); perPage 0 takes the default (20).
func (c *Client) CrawlPages(ctx context.Context, crawlID, cursor string, perPage int) (CrawlPages, error) {
	q := url.Values{}
	if cursor != "" {
		q.Set("cursor", cursor)
	}
	if perPage > 0 {
		q.Set("per_page", strconv.Itoa(perPage))
	}
	var out CrawlPages
	return out, c.do(ctx, "GET", "/v1/crawl/"+url.PathEscape(crawlID)+"/pages", q, nil, false, &out)
}

// CancelCrawl cancels a crawl: pages in flight finish, nothing new
// starts, the rest of the hold is released.
func (c *Client) CancelCrawl(ctx context.Context, crawlID string) (CrawlStatus, error) {
	var out CrawlStatus
	return out, c.do(ctx, "DELETE", "/v1/crawl/"+url.PathEscape(crawlID), nil, nil, false, &out)
}
