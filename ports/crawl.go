package ports

import (
	"context"
	"time"
)

// JobKind says which use case a job of the bulk queue belongs to.
type JobKind string

// Job kinds. A job stored before kinds existed is a bulk job.
const (
	KindBulk  JobKind = "bulk"
	KindCrawl JobKind = "crawl"
)

// Crawl is what a crawl was asked to do, stored beside its job (same id).
type Crawl struct {
	ID       string
	URL      string
	Limit    int
	MaxDepth int
	// Params are the crawl's rules as the core encodes them (filters,
	// scope, sitemap mode, ignored parameters, render mode).
	Params []byte
	// Seeded is set once the start URL and the sitemaps' URLs are queued
	// and the crawl-started event was sent.
	Seeded          bool
	CancelRequested bool
}

// CrawlURLState is where one URL of a crawl's frontier stands.
type CrawlURLState string

// Frontier states.
const (
	CrawlQueued    CrawlURLState = "queued"
	CrawlInFlight  CrawlURLState = "in_flight"
	CrawlSucceeded CrawlURLState = "succeeded"
	CrawlFailed    CrawlURLState = "failed"
	CrawlSkipped   CrawlURLState = "skipped"
)

// CrawlURL is one URL of a crawl's frontier and, once done, its outcome.
type CrawlURL struct {
	CrawlID string
	ID      int64 // assigned by the store
	URL     string
	// Key is the URL's comparison form: a crawl holds one URL per key.
	Key    string
	Host   string
	Depth  int
	Parent string
	State  CrawlURLState
	// Reason: the skip reason of a skipped URL, the failure reason code of
	// a failed one.
	Reason     string
	StatusCode int
	Error      string
	Content    []byte // the extracted page, JSON
	Engine     string
	Attempts   int
	// Seq orders the finished URLs of a crawl (1, 2, ...): the pages list
	// pages in this order. Zero while the URL is not finished.
	Seq        int64
	FinishedAt *time.Time
}

// CrawlOutcome is what reading one claimed URL came to, written at once:
// the URL's outcome (URL.State: succeeded, failed or skipped) and the
// links its page adds to the frontier, under HostCap (as AddCrawlURLs).
// A page's charge carries it (Charge.Outcome), so that a page is recorded
// charged or not recorded at all.
type CrawlOutcome struct {
	URL     CrawlURL
	Links   []CrawlURL
	HostCap int
	Now     time.Time
}

// CrawlCounts sums a crawl's frontier.
type CrawlCounts struct {
	Discovered, Queued, InFlight, Succeeded, Failed int
	Skipped                                         map[string]int // by reason
}

// CrawlStore keeps crawls and their frontiers. A crawl's job is a row of
// the bulk queue (JobStore): claimed, leased and handed back like any job.
type CrawlStore interface {
	// CreateCrawl stores a crawl and its queued job in one transaction.
	CreateCrawl(ctx context.Context, job BulkJob, c Crawl) error
	Crawl(ctx context.Context, id string) (Crawl, error)
	// MarkSeeded records that the crawl's seeding is done.
	MarkSeeded(ctx context.Context, id string) error
	// CancelCrawl asks a crawl to stop; NotFound when there is none.
	CancelCrawl(ctx context.Context, id string) error
	// AddCrawlURLs records discovered URLs, each key at most once per
	// crawl: a URL whose key is already there is not added. A URL whose
	// State is skipped is recorded finished, with the next Seq. Past
	// hostCap URLs of one host, that host's new URLs are dropped; a hostCap
	// of 0 is no cap (the caller knows the host is far from it). It
	// returns how many were added as queued.
	AddCrawlURLs(ctx context.Context, crawlID string, urls []CrawlURL, hostCap int) (queued int, err error)
	// ClaimCrawlURLs leases up to n queued URLs (or in-flight ones whose
	// lease ran out), shallowest first, but never so many that succeeded
	// plus in-flight URLs exceed limit.
	ClaimCrawlURLs(ctx context.Context, crawlID string, n, limit int, now time.Time, lease time.Duration) ([]CrawlURL, error)
	// FinishCrawlURL records the outcome of a claimed URL (succeeded,
	// failed or skipped) and gives it the crawl's next Seq.
	FinishCrawlURL(ctx context.Context, u CrawlURL, now time.Time) error
	// FinishCrawlPage records a page's outcome in one transaction: its
	// URL's, as FinishCrawlURL, and the links it found, as AddCrawlURLs.
	// It returns how many links were added as queued.
	FinishCrawlPage(ctx context.Context, o CrawlOutcome) (queued int, err error)
	// RequeueCrawlURL puts a claimed URL back, to be claimed again no
	// earlier than notBefore, with one more attempt counted when attempted
	// (the site was asked and said to wait); a URL handed back before it
	// started keeps its count.
	RequeueCrawlURL(ctx context.Context, crawlID string, id int64, notBefore time.Time, attempted bool) error
	// SkipQueued marks every queued URL skipped for reason; it returns how many.
	SkipQueued(ctx context.Context, crawlID, reason string, now time.Time) (int, error)
	// HasCrawlKey reports whether a key is in the crawl's frontier.
	HasCrawlKey(ctx context.Context, crawlID, key string) (bool, error)
	CrawlCounts(ctx context.Context, crawlID string) (CrawlCounts, error)
	// CrawlPages lists finished URLs with Seq > after, by Seq, at most n;
	// only succeeded pages when succeededOnly.
	CrawlPages(ctx context.Context, crawlID string, after int64, n int, succeededOnly bool) ([]CrawlURL, error)
}

// RobotsRecord is a host's robots.txt as last fetched, shared by every node.
type RobotsRecord struct {
	Origin     string // scheme://host
	StatusCode int    // 0: could not be read
	Body       []byte
	FetchedAt  time.Time
	ExpiresAt  time.Time
}

// RobotsCache keeps robots.txt records until they expire.
type RobotsCache interface {
	// Robots returns a record that has not expired at now; ok false when none.
	Robots(ctx context.Context, origin string, now time.Time) (rec RobotsRecord, ok bool, err error)
	PutRobots(ctx context.Context, rec RobotsRecord) error
}

// HostGate holds politeness per host across every node: at most max
// requests in flight to a host and at least a delay between their starts.
type HostGate interface {
	// AcquireHost takes a slot for a request to host under token (unique
	// per request), leased until now+lease so a dead node's slot frees
	// itself. When none is free, or the host's next start is later, ok is
	// false and retryAt says when to ask again.
	AcquireHost(ctx context.Context, host, token string, max int, delay time.Duration, now time.Time, lease time.Duration) (ok bool, retryAt time.Time, err error)
	// ReleaseHost frees a slot; a notBefore after now delays the host's
	// next start (the site asked to slow down).
	ReleaseHost(ctx context.Context, host, token string, notBefore time.Time) error
}
