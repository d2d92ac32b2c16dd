package client

import (
	"context"
	"encoding/json"
	"net/url"
	"strconv"
)

// User is the account of the token.
type User struct {
	ID              int64   `json:"id"`
	Name            string  `json:"name"`
	Email           string  `json:"email"`
	EmailVerifiedAt *string `json:"email_verified_at"`
	CreatedAt       string  `json:"created_at"`
	UpdatedAt       string  `json:"updated_at"`
}

// User verifies the token and returns its account (free).
func (c *Client) User(ctx context.Context) (User, error) {
	var u User
	return u, c.do(ctx, "GET", "/user", nil, nil, false, &u)
}

// CreditStatus is the credit status object.
type CreditStatus struct {
	Balance          int64   `json:"balance"`
	FormattedBalance string  `json:"formatted_balance"`
	Limit            int64   `json:"limit"`
	Used             int64   `json:"used"`
	IsLow            bool    `json:"is_low"`
	Threshold        int64   `json:"threshold"`
	PercentageUsed   float64 `json:"percentage_used"`
	NextRenewal      *string `json:"next_renewal"`
}

// Credits is the answer of GET /v1/credits.
type Credits struct {
	Balance          int64        `json:"balance"`
	FormattedBalance string       `json:"formatted_balance"`
	Limit            int64        `json:"limit"`
	Used             int64        `json:"used"`
	Status           CreditStatus `json:"status"`
}

// Credits returns the balance (free).
func (c *Client) Credits(ctx context.Context) (Credits, error) {
	var out Credits
	return out, c.do(ctx, "GET", "/v1/credits", nil, nil, false, &out)
}

// UsageStats returns the credit status (free).
func (c *Client) UsageStats(ctx context.Context) (CreditStatus, error) {
	var out CreditStatus
	return out, c.do(ctx, "GET", "/v1/credits/usage-stats", nil, nil, false, &out)
}

// Transaction is one credit event.
type Transaction struct {
	ID           int64             `json:"id"`
	ServiceType  string            `json:"service_type"`
	ServiceName  string            `json:"service_name"`
	Credits      int64             `json:"credits"`
	BalanceAfter int64             `json:"balance_after"`
	CreatedAt    string            `json:"created_at"`
	Metadata     map[string]string `json:"metadata"`
}

// Page is a page of a list (transactions, monitors), in the paginator
// envelope the API answers lists with.
type Page[T any] struct {
	Data        []T `json:"data"`
	CurrentPage int `json:"current_page"`
	LastPage    int `json:"last_page"`
	PerPage     int `json:"per_page"`
	Total       int `json:"total"`
	// From and To number the page's first and last item (nil on an empty page).
	From         *int      `json:"from"`
	To           *int      `json:"to"`
	Path         string    `json:"path"`
	FirstPageURL string    `json:"first_page_url"`
	LastPageURL  string    `json:"last_page_url"`
	PrevPageURL  *string   `json:"prev_page_url"`
	NextPageURL  *string   `json:"next_page_url"`
	Links        PageLinks `json:"links"`
}

// TransactionPage is a page of transactions.
type TransactionPage = Page[Transaction]

// PageLinks are the links of a page of a list; Prev and Next are nil at the ends.
type PageLinks struct {
	First string  `json:"first"`
	Last  string  `json:"last"`
	Prev  *string `json:"prev"`
	Next  *string `json:"next"`
}

// Transactions lists credit events, newest first (free). Zero values take the defaults.
func (c *Client) Transactions(ctx context.Context, page, perPage int) (TransactionPage, error) {
	var out TransactionPage
	return out, c.do(ctx, "GET", "/v1/credits/transactions", listQuery(page, perPage), nil, false, &out)
}

// listQuery asks for one page of a paginated list; zero values take the
// server's defaults.
func listQuery(page, perPage int) url.Values {
	q := url.Values{}
	if page > 0 {
		q.Set("page", strconv.Itoa(page))
	}
	if perPage > 0 {
		q.Set("per_page", strconv.Itoa(perPage))
	}
	return q
}

// CostPreview prices calls of a service.
type CostPreview struct {
	ServiceType          string `json:"service_type"`
	ServiceName          string `json:"service_name"`
	CreditCostPerRequest int64  `json:"credit_cost_per_request"`
	Quantity             int64  `json:"quantity"`
	TotalCost            int64  `json:"total_cost"`
	CurrentBalance       int64  `json:"current_balance"`
	RemainingAfter       int64  `json:"remaining_after"`
	CanAfford            bool   `json:"can_afford"`
}

// previewRequest is the body of preview-cost and can-afford.
type previewRequest struct {
	ServiceType string `json:"service_type"`
	Quantity    int64  `json:"quantity"`
}

// PreviewCost prices quantity calls of scrape, content, serp, prompt or
// extract, or quantity pages of a crawl (free).
func (c *Client) PreviewCost(ctx context.Context, serviceType string, quantity int64) (CostPreview, error) {
	var out CostPreview
	return out, c.do(ctx, "POST", "/v1/credits/preview-cost", nil, previewRequest{serviceType, quantity}, false, &out)
}

type canAffordResponse struct {
	CanAfford bool        `json:"can_afford"`
	Preview   CostPreview `json:"preview"`
}

// CanAfford tells whether the balance covers quantity calls (free).
func (c *Client) CanAfford(ctx context.Context, serviceType string, quantity int64) (bool, CostPreview, error) {
	var out canAffordResponse
	err := c.do(ctx, "POST", "/v1/credits/can-afford", nil, previewRequest{serviceType, quantity}, false, &out)
	return out.CanAfford, out.Preview, err
}

// Checkout is a hosted top-up checkout.
type Checkout struct {
	CheckoutURL string `json:"checkout_url"`
	SessionID   string `json:"session_id"`
}

type purchaseRequest struct {
	Credits int64 `json:"credits"`
}

// Purchase opens a checkout for 100 to 10,000 top-up credits (free); the
// credits are added once the checkout at CheckoutURL is paid.
func (c *Client) Purchase(ctx context.Context, credits int64) (Checkout, error) {
	var out Checkout
	return out, c.do(ctx, "POST", "/v1/credits/purchase", nil, purchaseRequest{credits}, false, &out)
}

// Scraped is the raw HTML of a page.
type Scraped struct {
	URL         string `json:"url"`
	FinalURL    string `json:"final_url"`
	StatusCode  int    `json:"statusCode"`
	ContentType string `json:"contentType"`
	HTML        string `json:"html"`
	// Engine is how the page was read: http or browser.
	Engine string `json:"engine,omitempty"`
	// Cache says whether the answer came from the page cache.
	Cache *Cache `json:"cache,omitempty"`
}

// Render is how a page is read: RenderAuto (the server's default) fetches
// it over HTTP and renders it in a browser when the static page needs one;
// RenderAlways renders; RenderNever does not.
type Render string

const (
	RenderAuto   Render = "auto"
	RenderAlways Render = "always"
	RenderNever  Render = "never"
)

// pageQuery is the query of a page call; the first render given, if any, is sent.
func pageQuery(pageURL string, render []Render) url.Values {
	q := url.Values{"url": {pageURL}}
	if len(render) > 0 && render[0] != "" {
		q.Set("render", string(render[0]))
	}
	return q
}

// Scrape fetches the raw HTML of a page (1 credit); render, if given, says
// how the page is read.
func (c *Client) Scrape(ctx context.Context, pageURL string, render ...Render) (Scraped, error) {
	var out Scraped
	return out, c.do(ctx, "GET", "/v1/scrape", pageQuery(pageURL, render), nil, true, &out)
}

// ScrapeRequest is a scrape with the page cache's options.
type ScrapeRequest struct {
	URL    string
	Render Render
	// MaxAge is the oldest cached response accepted, in seconds (0 to 30
	// days); 0 fetches the page.
	MaxAge int
	// Store false keeps the fetched response out of the cache (nil: true).
	Store *bool
}

// ScrapeWith fetches the raw HTML of a page (1 credit), from the page
// cache when r.MaxAge allows; the answer's Cache says which.
func (c *Client) ScrapeWith(ctx context.Context, r ScrapeRequest) (Scraped, error) {
	q := pageQuery(r.URL, []Render{r.Render})
	cacheQuery(q, r.MaxAge, r.Store)
	var out Scraped
	return out, c.do(ctx, "GET", "/v1/scrape", q, nil, true, &out)
}

// cacheQuery adds max_age and store to a query when they are given.
func cacheQuery(q url.Values, maxAge int, store *bool) {
	if maxAge != 0 {
		q.Set("max_age", strconv.Itoa(maxAge))
	}
	if store != nil {
		q.Set("store", strconv.FormatBool(*store))
	}
}

// Metadata is a page's metadata.
type Metadata struct {
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
	// PageCount is the number of pages of a document (PDF, DOCX); 0 for a web page.
	PageCount int `json:"pageCount,omitempty"`
}

// Content is the main content of a page.
type Content struct {
	URL          string   `json:"url"`
	Success      bool     `json:"success"`
	StatusCode   int      `json:"statusCode"`
	ErrorMessage *string  `json:"errorMessage"`
	HTML         string   `json:"html,omitempty"`
	Markdown     string   `json:"markdown"`
	Metadata     Metadata `json:"metadata"`
	// Warning is set when the content is not the whole source, e.g. a
	// document cut at the page limit.
	Warning string `json:"warning,omitempty"`
	// Engine is how the page was read: http or browser; empty when it
	// could not be read.
	Engine string `json:"engine,omitempty"`
	// Cache says whether the page came from the page cache.
	Cache *Cache `json:"cache,omitempty"`
	// Change compares the page with the previous snapshot (changes=true).
	Change *Change `json:"change,omitempty"`

	// Set when the call's formats or actions asked for them.
	Links      []Link         `json:"links,omitempty"`
	Images     []Image        `json:"images,omitempty"`
	Screenshot *Screenshot    `json:"screenshot,omitempty"`
	Actions    []ActionResult `json:"actions,omitempty"`
}

// Link is a link of a page: absolute, with its anchor text.
type Link struct {
	URL  string `json:"url"`
	Text string `json:"text"`
}

// Image is an image of a page: absolute, with its alt text.
type Image struct {
	URL string `json:"url"`
	Alt string `json:"alt"`
}

// Screenshot is a PNG behind a signed link that expires.
type Screenshot struct {
	URL       string `json:"url"`
	Width     int    `json:"width"`
	Height    int    `json:"height"`
	ExpiresAt string `json:"expires_at"`
}

// ActionResult is what one action gave back: an execute step's Value
// (JSON), a screenshot step's Screenshot.
type ActionResult struct {
	Index      int             `json:"index"`
	Type       string          `json:"type"`
	Value      json.RawMessage `json:"value,omitempty"`
	Screenshot *Screenshot     `json:"screenshot,omitempty"`
}

// Content extracts the main content of a page (2 credits); render, if
// given, says how the page is read.
func (c *Client) Content(ctx context.Context, pageURL string, render ...Render) (Content, error) {
	var out Content
	return out, c.do(ctx, "GET", "/v1/content", pageQuery(pageURL, render), nil, true, &out)
}

// SiteMap is a domain's URLs.
type SiteMap struct {
	URL       string   `json:"url"`
	Total     int      `json:"total"`
	Truncated bool     `json:"truncated"`
	Sources   []string `json:"sources"`
	URLs      []string `json:"urls"`
}

// Map lists a domain's URLs from its sitemaps (3 credits); limit 0 takes the default.
func (c *Client) Map(ctx context.Context, siteURL string, limit int) (SiteMap, error) {
	q := url.Values{"url": {siteURL}}
	if limit > 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	var out SiteMap
	return out, c.do(ctx, "GET", "/v1/map", q, nil, true, &out)
}

// MapIncludingLinks is Map that, when the sitemaps are missing or list
// fewer than limit URLs, adds those found by following links from siteURL
// (two hops, the same host, robots.txt obeyed); Sources then has "links".
func (c *Client) MapIncludingLinks(ctx context.Context, siteURL string, limit int) (SiteMap, error) {
	q := url.Values{"url": {siteURL}, "include_links": {"true"}}
	if limit > 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	var out SiteMap
	return out, c.do(ctx, "GET", "/v1/map", q, nil, true, &out)
}

// SearchParams is a search.
type SearchParams struct {
	Q, Loc, HL, GL string
	Engine         string // google (default), bing, duckduckgo
	// For SearchContent:
	MaxContent int
	Whitelist  []string
	Blacklist  []string
	Render     Render // how result pages are read; empty: the server's default (auto)
	// MaxAge is the oldest cached answer accepted, in seconds (0 to 30
	// days): the results and, for SearchContent, the pages. 0 fetches.
	MaxAge int
	// Store false keeps what is fetched out of the cache (nil: true).
	Store *bool
}

// query is the query string of a search; withContent adds the parameters
// only /v1/serp/content takes.
func (p SearchParams) query(withContent bool) url.Values {
	q := url.Values{"q": {p.Q}}
	for k, v := range map[string]string{"loc": p.Loc, "hl": p.HL, "gl": p.GL, "engine": p.Engine} {
		if v != "" {
			q.Set(k, v)
		}
	}
	cacheQuery(q, p.MaxAge, p.Store)
	if !withContent {
		return q
	}
	if p.MaxContent > 0 {
		q.Set("max_content", strconv.Itoa(p.MaxContent))
	}
	if p.Render != "" {
		q.Set("render", string(p.Render))
	}
	for _, d := range p.Whitelist {
		q.Add("whitelist_domains[]", d)
	}
	for _, d := range p.Blacklist {
		q.Add("blacklist_domains[]", d)
	}
	return q
}

// OrganicResult is one web result.
type OrganicResult struct {
	Position      int        `json:"position"`
	Title         string     `json:"title"`
	Link          string     `json:"link"`
	Snippet       string     `json:"snippet"`
	DisplayedLink string     `json:"displayed_link"`
	Thumbnail     *string    `json:"thumbnail"`
	Favicon       string     `json:"favicon"`
	Sitelinks     []Sitelink `json:"sitelinks"`
	Source        string     `json:"source"`
	Content       *Content   `json:"content,omitempty"`
}

// Sitelink is a link under a result.
type Sitelink struct {
	Title string `json:"title"`
	Link  string `json:"link"`
}

// SearchResults is a result page.
type SearchResults struct {
	// SearchParameters echo the search as the server understood it.
	SearchParameters  map[string]string `json:"search_parameters"`
	SearchInformation struct {
		QueryDisplayed string  `json:"query_displayed"`
		TotalResults   int64   `json:"total_results"`
		TimeTaken      float64 `json:"time_taken"`
	} `json:"search_information"`
	OrganicResults []OrganicResult `json:"organic_results"`
	// Cache says whether the results came from the page cache.
	Cache            *Cache `json:"cache,omitempty"`
	RelatedQuestions []struct {
		Question string `json:"question"`
		Answer   string `json:"answer,omitempty"`
	} `json:"related_questions"`
	RelatedSearches []struct {
		Query string `json:"query"`
		Link  string `json:"link"`
		Image string `json:"image,omitempty"`
	} `json:"related_searches"`
}

// Search runs a search (5 credits).
func (c *Client) Search(ctx context.Context, p SearchParams) (SearchResults, error) {
	var out SearchResults
	return out, c.do(ctx, "GET", "/v1/serp", p.query(false), nil, true, &out)
}

// SearchContent runs a search and extracts the top results (5 + 2 per page).
func (c *Client) SearchContent(ctx context.Context, p SearchParams) (SearchResults, error) {
	var out SearchResults
	return out, c.do(ctx, "GET", "/v1/serp/content", p.query(true), nil, true, &out)
}

// Prompt asks the model, grounded on pageURL when it is not empty (10
// credits); render, if given, says how the page is read.
func (c *Client) Prompt(ctx context.Context, prompt, pageURL string, render ...Render) (string, error) {
	var out promptResponse
	req := promptRequest{Prompt: prompt, URL: pageURL}
	if len(render) > 0 {
		req.Render = render[0]
	}
	err := c.do(ctx, "POST", "/v1/prompt", nil, req, true, &out)
	return out.Response, err
}

type promptRequest struct {
	Prompt string `json:"prompt"`
	URL    string `json:"url,omitempty"`
	Render Render `json:"render,omitempty"`
}

type promptResponse struct {
	Response string `json:"response"`
}

// ExtractRequest asks for data from a page shaped by a JSON Schema.
type ExtractRequest struct {
	URL string `json:"url"`
	// Schema is the JSON Schema the data must validate against.
	Schema json.RawMessage `json:"schema"`
	// Prompt optionally says what to extract, or how.
	Prompt string `json:"prompt,omitempty"`
	// Render is auto (default), always or never.
	Render string `json:"render,omitempty"`
	// Changes compares the data with the previous extraction this account
	// got for the page under Tag, field by field (Extracted.Change).
	Changes bool   `json:"changes,omitempty"`
	Tag     string `json:"tag,omitempty"`
}

// Extracted is the data of a page, valid against the schema asked for.
type Extracted struct {
	Data json.RawMessage `json:"data"`
	URL  string          `json:"url"`
	// Change compares the data with the previous extraction (changes=true).
	Change *Change `json:"change,omitempty"`
}

// Extract returns data from a page that validates against r.Schema (10
// credits). A model answer that does not validate twice is a 503 *Error
// with Reason "llm_failed", and free.
func (c *Client) Extract(ctx context.Context, r ExtractRequest) (Extracted, error) {
	var out Extracted
	err := c.do(ctx, "POST", "/v1/extract", nil, r, true, &out)
	return out, err
}

// BulkRequest is a bulk job.
type BulkRequest struct {
	URLs        []string `json:"urls,omitempty"`
	Sitemap     string   `json:"sitemap,omitempty"`
	Email       bool     `json:"email,omitempty"`
	CallbackURL string   `json:"callback_url,omitempty"`
	Sync        bool     `json:"sync,omitempty"`
	// Render is how the pages are read: "auto" (default), "always" or "never".
	Render string `json:"render,omitempty"`
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

// BulkAck acknowledges a job.
type BulkAck struct {
	Message                 string `json:"message"`
	JobID                   string `json:"job_id"`
	URLsCount               int    `json:"urls_count"`
	URLSource               string `json:"url_source"`
	DeliveryMethod          string `json:"delivery_method"`
	EstimatedCompletionTime string `json:"estimated_completion_time"`
	Status                  string `json:"status"`
	QueuedAt                string `json:"queued_at"`
}

// CreateBulkJob queues (or, with Sync and 10 URLs or fewer, runs) a bulk job
// (2 credits per URL extracted).
func (c *Client) CreateBulkJob(ctx context.Context, r BulkRequest) (BulkAck, error) {
	var out BulkAck
	return out, c.do(ctx, "POST", "/v1/content/bulk", nil, r, true, &out)
}

// Bulk job states, the values of BulkJob.Status (and BulkAck.Status).
const (
	JobQueued     = "queued"
	JobProcessing = "processing"
	JobCompleted  = "completed"
	JobFailed     = "failed"
)

// BulkJob is a job's state.
type BulkJob struct {
	JobID          string         `json:"job_id"`
	Status         string         `json:"status"` // JobQueued, JobProcessing, JobCompleted or JobFailed
	URLSource      string         `json:"url_source"`
	DeliveryMethod string         `json:"delivery_method"`
	Sync           bool           `json:"sync"`
	Render         string         `json:"render"` // auto, always or never
	URLsCount      int            `json:"urls_count"`
	ProcessedCount int            `json:"processed_count"`
	SuccessCount   int            `json:"success_count"`
	FailedCount    int            `json:"failed_count"`
	QueuedAt       string         `json:"queued_at"`
	StartedAt      *string        `json:"started_at"`
	CompletedAt    *string        `json:"completed_at"`
	FailedAt       *string        `json:"failed_at"`
	DownloadURL    *string        `json:"download_url"`
	Error          *string        `json:"error"`
	Results        []BulkResult   `json:"results"`
	Deliveries     []BulkDelivery `json:"deliveries"`
}

// BulkResult is the outcome of one URL of a job.
type BulkResult struct {
	URL        string  `json:"url"`
	Status     string  `json:"status"` // pending, succeeded or failed
	Success    bool    `json:"success"`
	StatusCode int     `json:"statusCode"`
	Error      *string `json:"error"`
	Engine     string  `json:"engine,omitempty"` // http or browser; empty when the page was not read
	// Reason is why a failed URL failed, the code a single-URL call answers
	// with its 503 ("not_html", "blocked", "timeout"...); empty otherwise.
	Reason string `json:"reason,omitempty"`
	// Retryable says whether reading a failed URL again may succeed.
	Retryable bool `json:"retryable,omitempty"`
}

// BulkDelivery is one attempt to deliver a job's results.
type BulkDelivery struct {
	Channel    string  `json:"channel"` // email or webhook
	Attempt    int     `json:"attempt"`
	StatusCode int     `json:"status_code"` // the receiver's answer, 0 when none
	Error      *string `json:"error"`
	DurationMS int64   `json:"duration_ms"`
	At         string  `json:"at"`
}

// BulkJob reports on a job (free).
func (c *Client) BulkJob(ctx context.Context, jobID string) (BulkJob, error) {
	var out BulkJob
	return out, c.do(ctx, "GET", "/v1/content/bulk/"+url.PathEscape(jobID), nil, nil, false, &out)
}

// ContentRequest is the body of POST /v1/content: the page, its formats,
// actions run before the read, and how it is loaded.
type ContentRequest struct {
	URL string `json:"url"`
	// Render is auto (default), always or never.
	Render string `json:"render,omitempty"`
	// Formats adds links, images, screenshot or screenshot_full.
	Formats []string `json:"formats,omitempty"`
	// Actions are at most 50 steps run in order before the read.
	Actions []Action `json:"actions,omitempty"`
	// Device is desktop (default) or mobile.
	Device string `json:"device,omitempty"`
	// Locale is a language tag such as de-DE.
	Locale string `json:"locale,omitempty"`
	// Headers and Cookies go to the target's host only.
	Headers map[string]string `json:"headers,omitempty"`
	Cookies map[string]string `json:"cookies,omitempty"`
	// Country picks a proxy of the server's pool (ISO 3166-1 alpha-2).
	Country string `json:"country,omitempty"`
	// MaxAge is the oldest cached response accepted, in seconds (0 to 30
	// days); 0 fetches. Content.Cache says whether it came from the cache.
	MaxAge int `json:"max_age,omitempty"`
	// Store false keeps the fetched response out of the cache (nil: true).
	Store *bool `json:"store,omitempty"`
	// Changes compares the page with the previous one this account read
	// under Tag (Content.Change).
	Changes bool   `json:"changes,omitempty"`
	Tag     string `json:"tag,omitempty"`
}

// Action is one step run in the page: Type and the fields of that type.
type Action struct {
	Type         string `json:"type"`
	Milliseconds int    `json:"milliseconds,omitempty"`
	Selector     string `json:"selector,omitempty"`
	Text         string `json:"text,omitempty"`
	Key          string `json:"key,omitempty"`
	Direction    string `json:"direction,omitempty"`
	Script       string `json:"script,omitempty"`
}

// ContentWith extracts the main content of a page with formats, actions
// and page options (2 credits; screenshots and actions add nothing).
func (c *Client) ContentWith(ctx context.Context, r ContentRequest) (Content, error) {
	var out Content
	return out, c.do(ctx, "POST", "/v1/content", nil, r, true, &out)
}
