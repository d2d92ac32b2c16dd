// Package mcpserver is Trawl's Model Context Protocol server: tools an agent
// calls to fetch pages, map sites, search, prompt, extract data and run bulk
// jobs. Every tool calls the Trawl API through the Go client, so a tool call
// is an API call: the same token, limits, billing and answers. Served over
// streamable HTTP at /mcp on the API's own port (the client then reaches the
// API in process) and over stdio by `trawl mcp` (the client reaches the API
// at TRAWL_API_URL).
package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/trawlhq/trawl/client"
)

// Tools lists the tool names, in the order they are registered.
var Tools = []string{"scrape", "content", "map", "search", "search_content", "prompt", "extract", "bulk_submit", "bulk_status", "crawl_submit", "crawl_status", "credits",
	"monitor_create", "monitor_list", "monitor_get", "monitor_update", "monitor_delete"}

// New builds a server whose tools call the API through c.
func New(c *client.Client, version string) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "trawl", Title: "Trawl web data API", Version: version}, &mcp.ServerOptions{
		Instructions: "Trawl fetches public web pages, extracts their main content as Markdown, maps sites from their sitemaps, " +
			"searches the web, runs LLM prompts and schema-shaped extraction on pages, and watches pages for changes on a schedule. " +
			"The read and extraction calls cost credits, and only when they succeed; credits, the status tools and the monitor tools are free " +
			"(a monitor's checks cost as the pages they read). A failed call says why with a reason code and whether retrying may help.",
	})
	t := tools{c}
	add(s, &mcp.Tool{Name: "scrape", Description: "Fetch a whole public web page (1 credit): by default as Markdown with its title, " +
		"status and content type; with format html, its markup as it came. Use content instead to read an article without the " +
		"navigation around it. The site's own error status is reported, not treated as a failure."}, readsWeb, t.scrape)
	add(s, &mcp.Tool{Name: "content", Description: "Read a public web page, PDF or DOCX: its main content as Markdown with the " +
		"title and metadata, without navigation, ads or footers (2 credits); with format html, the clean HTML instead. " +
		"The best tool for reading one page."}, readsWeb, t.content)
	add(s, &mcp.Tool{Name: "map", Description: "List the URLs of a site from its sitemaps (robots.txt, /sitemap.xml), " +
		"deduplicated, in sitemap order (3 credits; free when the site has no sitemap); with include_links, also the URLs its links lead to " +
		"when the sitemaps are missing or short. Use it to discover pages before reading them."}, readsWeb, t.siteMap)
	add(s, &mcp.Tool{Name: "search", Description: "Search the web on Google (default), Bing or DuckDuckGo and return the organic " +
		"results with titles, links and snippets, related questions and searches (5 credits)."}, readsWeb, t.search)
	add(s, &mcp.Tool{Name: "search_content", Description: "Search the web and read the top results in one call: each fetched " +
		"result carries its page content as Markdown (5 credits plus 2 per page read). Limit with max_content and the domain lists."}, readsWeb, t.searchContent)
	add(s, &mcp.Tool{Name: "prompt", Description: "Ask Trawl's language model; with url, the answer is grounded on that page's " +
		"content (10 credits)."}, readsWeb, t.prompt)
	add(s, &mcp.Tool{Name: "extract", Description: "Extract structured data from a web page: give a JSON Schema and get JSON that " +
		"validates against it, taken from the page (10 credits; free when the model's answer does not validate). " +
		"Prefer this over prompt when you need fields, not prose."}, readsWeb, t.extract)
	add(s, &mcp.Tool{Name: "bulk_submit", Description: "Start a bulk job reading up to 100 URLs (or a sitemap's URLs) in the " +
		"background; results go to an email and/or a webhook (2 credits per page read). Returns a job_id for bulk_status."}, readsWeb, t.bulkSubmit)
	add(s, &mcp.Tool{Name: "bulk_status", Description: "The state and progress of a bulk job started with bulk_submit (free)."}, readsAccount, t.bulkStatus)
	add(s, &mcp.Tool{Name: "crawl_submit", Description: "Start a crawl of a whole site from a start URL in the background: " +
		"pages linked from it (and from its sitemaps), within a page limit, a link depth, include/exclude path patterns and a scope, " +
		"obeying robots.txt (2 credits per page extracted; the limit's cost is held until the end). Returns a crawl_id for crawl_status."}, readsWeb, t.crawlSubmit)
	add(s, &mcp.Tool{Name: "crawl_status", Description: "The state and counts of a crawl started with crawl_submit, and a page of " +
		"its extracted pages as Markdown, in the order they finished; pass next_cursor back as cursor for more (free)."}, readsAccount, t.crawlStatus)
	add(s, &mcp.Tool{Name: "credits", Description: "The account's credit balance, monthly allowance and usage (free). " +
		"Check it before a large job."}, readsAccount, t.credits)
	addMonitorTools(s, t)
	return s
}

// The tools' annotations. Every tool reads from Trawl; those that read the
// web also spend credits (which is not destructive: nothing is deleted or
// overwritten) and reach an open world of sites. The free ones only read
// the account.
var (
	readsWeb     = &mcp.ToolAnnotations{DestructiveHint: ptr(false), OpenWorldHint: ptr(true)}
	readsAccount = &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)}
)

func ptr[T any](v T) *T { return &v }

// add registers a tool with its annotations and the schemas of its input
// and output types.
func add[In, Out any](s *mcp.Server, t *mcp.Tool, a *mcp.ToolAnnotations, h mcp.ToolHandlerFor[In, Out]) {
	t.Annotations = a
	t.InputSchema = schemaFor[In]()
	t.OutputSchema = schemaFor[Out]()
	mcp.AddTool(s, t, h)
}

type tools struct{ c *client.Client }

// URLInput is a tool input naming one page.
type URLInput struct {
	URL    string `json:"url" jsonschema:"the page's URL: http or https, at most 180 characters, no raw IP address or non-default port"`
	Render Render `json:"render,omitempty" jsonschema:"how the page is read: auto (default; a browser when the static page needs one), always (a browser) or never (HTTP only)"`
}

// CacheInput says which cached answers a tool takes from the page cache.
type CacheInput struct {
	MaxAge int   `json:"max_age,omitempty" jsonschema:"accept an answer from Trawl's page cache up to this many seconds old, 0 to 2592000; 0 (default) fetches live. The answer's cache object says whether it came from the cache and how old it is"`
	Store  *bool `json:"store,omitempty" jsonschema:"false keeps what is fetched out of the page cache (default true)"`
}

// ChangesInput asks a tool to compare pages with the account's previous read.
type ChangesInput struct {
	Changes bool   `json:"changes,omitempty" jsonschema:"compare with the previous read of the same page by this account: the answer's change says new, same or changed, with a diff of the Markdown; page chrome (menus, banners, footers) does not count"`
	Tag     string `json:"tag,omitempty" jsonschema:"a label, at most 100 characters, keeping this comparison's snapshots apart from others (a daily check and a weekly one)"`
}

// PageInput is the input of the page tools, content and scrape.
type PageInput struct {
	URLInput
	CacheInput
	Format Format `json:"format,omitempty" jsonschema:"markdown (default): the page as Markdown with its metadata; html: its HTML instead"`
}

// ContentInput is the content tool's input: a page tool's, and how the
// page is loaded and whether it is photographed.
type ContentInput struct {
	PageInput
	Device     Device `json:"device,omitempty" jsonschema:"desktop (default) or mobile: a phone's viewport, touch and User-Agent"`
	Locale     string `json:"locale,omitempty" jsonschema:"a language tag such as de-DE: Accept-Language, navigator.language and the time zone"`
	Country    string `json:"country,omitempty" jsonschema:"the ISO 3166-1 alpha-2 code of a proxy in the server's pool"`
	Screenshot Shot   `json:"screenshot,omitempty" jsonschema:"viewport or full: a PNG of the page behind a signed link that expires (the browser reads the page)"`
	ChangesInput
}

// MapInput is the map tool's input.
type MapInput struct {
	URL   string `json:"url" jsonschema:"any URL on the site; only its host is used"`
	Limit int    `json:"limit,omitempty" jsonschema:"how many URLs to return, 1 to 1000 (default 1000)"`
	// IncludeLinks follows links when the sitemaps are missing or short.
	IncludeLinks bool `json:"include_links,omitempty" jsonschema:"when the site has no sitemap or a short one, add the URLs found by following its links two hops from url (robots.txt obeyed)"`
}

// SearchInput is the search tools' input.
type SearchInput struct {
	Query  string `json:"query" jsonschema:"the search query, 1 to 100 characters"`
	Engine Engine `json:"engine,omitempty" jsonschema:"google (default), bing or duckduckgo"`
	Loc    string `json:"loc,omitempty" jsonschema:"a location to search from, free-form"`
	HL     string `json:"hl,omitempty" jsonschema:"interface language code, e.g. en"`
	GL     string `json:"gl,omitempty" jsonschema:"country code, e.g. us"`
	CacheInput
}

// SearchContentInput is the search_content tool's input.
type SearchContentInput struct {
	SearchInput
	MaxContent int      `json:"max_content,omitempty" jsonschema:"how many results to read, 1 to 50 (default 10)"`
	Whitelist  []string `json:"whitelist_domains,omitempty" jsonschema:"read only results on these domains (example.com covers its subdomains; *.example.com too)"`
	Blacklist  []string `json:"blacklist_domains,omitempty" jsonschema:"never read results on these domains"`
	Render     Render   `json:"render,omitempty" jsonschema:"how result pages are read: auto (default; a browser when the static page needs one), always (a browser) or never (HTTP only)"`
}

// PromptInput is the prompt tool's input.
type PromptInput struct {
	Prompt string `json:"prompt" jsonschema:"what to ask"`
	URL    string `json:"url,omitempty" jsonschema:"a page to ground the answer on"`
	Render Render `json:"render,omitempty" jsonschema:"how the page is read: auto (default; a browser when the static page needs one), always (a browser) or never (HTTP only)"`
}

// ExtractInput is the extract tool's input.
type ExtractInput struct {
	URL    string         `json:"url" jsonschema:"the page to extract from"`
	Schema map[string]any `json:"schema" jsonschema:"the JSON Schema the data must validate against (an object schema; at most 16 KiB, 12 levels deep)"`
	Prompt string         `json:"prompt,omitempty" jsonschema:"what to extract, or how"`
	Render Render         `json:"render,omitempty" jsonschema:"how the page is read: auto (default; a browser when the static page needs one), always (a browser) or never (HTTP only)"`
	ChangesInput
}

// BulkInput is the bulk_submit tool's input.
type BulkInput struct {
	URLs        []string `json:"urls,omitempty" jsonschema:"1 to 100 page URLs; or give sitemap"`
	Sitemap     string   `json:"sitemap,omitempty" jsonschema:"the URL of an XML sitemap whose URLs to read"`
	Email       bool     `json:"email,omitempty" jsonschema:"email the results to the account's address"`
	CallbackURL string   `json:"callback_url,omitempty" jsonschema:"a webhook URL to POST the results to"`
	Render      Render   `json:"render,omitempty" jsonschema:"how the pages are read: auto (default; a browser when the static page needs one), always (a browser) or never (HTTP only)"`
	CacheInput
	ChangesInput
}

// CrawlInput is the crawl_submit tool's input.
type CrawlInput struct {
	URL      string   `json:"url" jsonschema:"the start URL: http or https, at most 180 characters"`
	Limit    int      `json:"limit,omitempty" jsonschema:"pages to extract, 1 to 10000 (default 100)"`
	MaxDepth *int     `json:"max_depth,omitempty" jsonschema:"link hops from the start URL, 0 to 20 (default 3)"`
	Include  []string `json:"include,omitempty" jsonschema:"read only paths (plus query) matching one of these globs, e.g. /blog/**, or RE2 expressions prefixed re:"`
	Exclude  []string `json:"exclude,omitempty" jsonschema:"skip paths matching one of these globs or re: expressions; exclude wins over include"`
	Scope    string   `json:"scope,omitempty" jsonschema:"host (default), domain (the registrable domain and its subdomains) or subdomains (the start host and its subdomains)"`
	Render   Render   `json:"render,omitempty" jsonschema:"how the pages are read: auto (default; a browser when the static page needs one), always (a browser) or never (HTTP only)"`
	CacheInput
	ChangesInput
}

// CrawlStatusInput names a crawl and the page of its pages to list.
type CrawlStatusInput struct {
	CrawlID string `json:"crawl_id" jsonschema:"the crawl_id crawl_submit returned"`
	Cursor  string `json:"cursor,omitempty" jsonschema:"the next_cursor of a previous answer; empty for the first pages"`
	PerPage int    `json:"per_page,omitempty" jsonschema:"pages to return, 1 to 100 (default 20)"`
}

// CrawlPage is one extracted page of a crawl, as an agent reads it.
type CrawlPage struct {
	URL      string         `json:"url"`
	Title    string         `json:"title"`
	Markdown string         `json:"markdown"`
	Depth    int            `json:"depth" jsonschema:"link hops from the start URL"`
	Parent   string         `json:"parent" jsonschema:"the page the URL was found on; empty for the start URL and sitemap URLs"`
	Cache    *client.Cache  `json:"cache,omitempty" jsonschema:"whether the page came from the page cache (hit) and how old it is (age, seconds)"`
	Change   *client.Change `json:"change,omitempty" jsonschema:"the comparison with the previous read (crawls asked with changes): status new, same or changed, and the diff"`
}

// CrawlStatusOutput is the crawl_status tool's answer.
type CrawlStatusOutput struct {
	Crawl      client.CrawlStatus `json:"crawl"`
	Pages      []CrawlPage        `json:"pages"`
	NextCursor string             `json:"next_cursor,omitempty" jsonschema:"give it as cursor for the next pages; absent when every page of a finished crawl was listed"`
}

// JobInput names a bulk job.
type JobInput struct {
	JobID string `json:"job_id" jsonschema:"the job_id bulk_submit returned"`
}

// NoInput is the input of a tool that takes none.
type NoInput struct{}

// PromptOutput is the prompt tool's answer.
type PromptOutput struct {
	Response string `json:"response" jsonschema:"the model's answer"`
}

// ExtractOutput is the extract tool's answer.
type ExtractOutput struct {
	Data   any            `json:"data" jsonschema:"the data taken from the page; it validates against the schema given"`
	URL    string         `json:"url" jsonschema:"the page the data was taken from"`
	Change *client.Change `json:"change,omitempty" jsonschema:"with changes: new, same or changed, and the changed fields with their previous and current values"`
}

func (t tools) scrape(ctx context.Context, _ *mcp.CallToolRequest, in PageInput) (*mcp.CallToolResult, Page, error) {
	out, err := t.c.ScrapeWith(ctx, client.ScrapeRequest{URL: in.URL, Render: client.Render(in.Render), MaxAge: in.MaxAge, Store: in.Store})
	if err != nil {
		return nil, Page{}, explain(err)
	}
	return answer(scrapedPage(out, in.Format))
}

func (t tools) content(ctx context.Context, _ *mcp.CallToolRequest, in ContentInput) (*mcp.CallToolResult, Page, error) {
	req := client.ContentRequest{URL: in.URL, Render: string(in.Render), Device: string(in.Device), Locale: in.Locale, Country: in.Country,
		MaxAge: in.MaxAge, Store: in.Store, Changes: in.Changes, Tag: in.Tag}
	switch in.Screenshot {
	case "viewport":
		req.Formats = []string{"screenshot"}
	case "full":
		req.Formats = []string{"screenshot_full"}
	}
	out, err := t.c.ContentWith(ctx, req)
	if err != nil {
		return nil, Page{}, explain(err)
	}
	return answer(contentPage(out, in.Format))
}

// answer is a page tool's result: the page as text for the agent to read,
// and the same as structured content.
func answer(p Page) (*mcp.CallToolResult, Page, error) {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: p.text()}}}, p, nil
}

func (t tools) siteMap(ctx context.Context, _ *mcp.CallToolRequest, in MapInput) (*mcp.CallToolResult, client.SiteMap, error) {
	mapSite := t.c.Map
	if in.IncludeLinks {
		mapSite = t.c.MapIncludingLinks
	}
	out, err := mapSite(ctx, in.URL, in.Limit)
	return nil, out, explain(err)
}

func (t tools) search(ctx context.Context, _ *mcp.CallToolRequest, in SearchInput) (*mcp.CallToolResult, client.SearchResults, error) {
	out, err := t.c.Search(ctx, client.SearchParams{Q: in.Query, Engine: string(in.Engine), Loc: in.Loc, HL: in.HL, GL: in.GL, MaxAge: in.MaxAge, Store: in.Store})
	return nil, out, explain(err)
}

func (t tools) searchContent(ctx context.Context, _ *mcp.CallToolRequest, in SearchContentInput) (*mcp.CallToolResult, client.SearchResults, error) {
	out, err := t.c.SearchContent(ctx, client.SearchParams{Q: in.Query, Engine: string(in.Engine), Loc: in.Loc, HL: in.HL, GL: in.GL,
		MaxContent: in.MaxContent, Whitelist: in.Whitelist, Blacklist: in.Blacklist, Render: client.Render(in.Render), MaxAge: in.MaxAge, Store: in.Store})
	// The pages' Markdown is what an agent reads; their HTML would only
	// double the answer.
	for _, r := range out.OrganicResults {
		if r.Content != nil {
			r.Content.HTML = ""
		}
	}
	return nil, out, explain(err)
}

func (t tools) prompt(ctx context.Context, _ *mcp.CallToolRequest, in PromptInput) (*mcp.CallToolResult, PromptOutput, error) {
	out, err := t.c.Prompt(ctx, in.Prompt, in.URL, client.Render(in.Render))
	return nil, PromptOutput{out}, explain(err)
}

func (t tools) extract(ctx context.Context, _ *mcp.CallToolRequest, in ExtractInput) (*mcp.CallToolResult, ExtractOutput, error) {
	schema, err := json.Marshal(in.Schema)
	if err != nil || in.Schema == nil {
		return nil, ExtractOutput{}, errors.New("the schema must be a JSON Schema object")
	}
	res, err := t.c.Extract(ctx, client.ExtractRequest{URL: in.URL, Schema: schema, Prompt: in.Prompt, Render: string(in.Render), Changes: in.Changes, Tag: in.Tag})
	if err != nil {
		return nil, ExtractOutput{}, explain(err)
	}
	var data any
	if err := json.Unmarshal(res.Data, &data); err != nil {
		return nil, ExtractOutput{}, errors.New("the data could not be read")
	}
	return nil, ExtractOutput{Data: data, URL: res.URL, Change: res.Change}, nil
}

func (t tools) bulkSubmit(ctx context.Context, _ *mcp.CallToolRequest, in BulkInput) (*mcp.CallToolResult, client.BulkAck, error) {
	out, err := t.c.CreateBulkJob(ctx, client.BulkRequest{URLs: in.URLs, Sitemap: in.Sitemap, Email: in.Email, CallbackURL: in.CallbackURL, Render: string(in.Render),
		MaxAge: in.MaxAge, Store: in.Store, Changes: in.Changes, Tag: in.Tag})
	return nil, out, explain(err)
}

func (t tools) bulkStatus(ctx context.Context, _ *mcp.CallToolRequest, in JobInput) (*mcp.CallToolResult, client.BulkJob, error) {
	out, err := t.c.BulkJob(ctx, in.JobID)
	return nil, out, explain(err)
}

func (t tools) crawlSubmit(ctx context.Context, _ *mcp.CallToolRequest, in CrawlInput) (*mcp.CallToolResult, client.CrawlAck, error) {
	r := client.CrawlRequest{URL: in.URL, MaxDepth: in.MaxDepth, Include: in.Include, Exclude: in.Exclude, Scope: in.Scope, Render: string(in.Render),
		MaxAge: in.MaxAge, Store: in.Store, Changes: in.Changes, Tag: in.Tag}
	if in.Limit != 0 {
		r.Limit = &in.Limit
	}
	out, err := t.c.CreateCrawl(ctx, r)
	return nil, out, explain(err)
}

func (t tools) crawlStatus(ctx context.Context, _ *mcp.CallToolRequest, in CrawlStatusInput) (*mcp.CallToolResult, CrawlStatusOutput, error) {
	st, err := t.c.Crawl(ctx, in.CrawlID)
	if err != nil {
		return nil, CrawlStatusOutput{}, explain(err)
	}
	pg, err := t.c.CrawlPages(ctx, in.CrawlID, in.Cursor, in.PerPage)
	if err != nil {
		return nil, CrawlStatusOutput{}, explain(err)
	}
	out := CrawlStatusOutput{Crawl: st, Pages: []CrawlPage{}}
	for _, p := range pg.Pages {
		out.Pages = append(out.Pages, CrawlPage{URL: p.URL, Title: p.Metadata.Title, Markdown: p.Markdown, Depth: p.Depth, Parent: p.Parent, Cache: p.Cache, Change: p.Change})
	}
	if pg.NextCursor != nil {
		out.NextCursor = *pg.NextCursor
	}
	return nil, out, nil
}

func (t tools) credits(ctx context.Context, _ *mcp.CallToolRequest, _ NoInput) (*mcp.CallToolResult, client.Credits, error) {
	out, err := t.c.Credits(ctx)
	return nil, out, explain(err)
}

// explain words an API error for an agent: what happened, the reason code,
// whether retrying may help, and which fields were wrong.
func explain(err error) error {
	if err == nil {
		return nil
	}
	var e *client.Error
	if !errors.As(err, &e) {
		return fmt.Errorf("the Trawl API could not be reached: %v", err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Trawl answered %d: %s", e.Status, e.Message)
	if e.Reason != "" {
		fmt.Fprintf(&b, " (reason: %s", e.Reason)
		if e.Retryable {
			b.WriteString("; retrying later may succeed)")
		} else {
			b.WriteString("; retrying will not help)")
		}
	}
	for field, msgs := range e.Errors {
		fmt.Fprintf(&b, "\n%s: %s", field, strings.Join(msgs, " "))
	}
	if e.RetryAfter > 0 {
		fmt.Fprintf(&b, "\nRetry after %s.", e.RetryAfter)
	}
	return errors.New(b.String())
}
