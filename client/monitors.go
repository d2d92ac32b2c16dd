package client

import (
	"context"
	"net/url"
)

// MonitorRequest is a monitor: pages (URLs) or a crawl read on a cron
// schedule and compared with the previous check, each check reported to a
// webhook (CallbackURL) and/or by email.
type MonitorRequest struct {
	Name string `json:"name,omitempty"`
	// URLs are 1 to 100 pages; or Crawl.
	URLs []string `json:"urls,omitempty"`
	// Crawl is a crawl each check runs.
	Crawl *MonitorCrawl `json:"crawl,omitempty"`
	// Schedule is a five-field cron expression (UTC unless it starts with
	// CRON_TZ=), at most once every 5 minutes.
	Schedule    string `json:"schedule"`
	CallbackURL string `json:"callback_url,omitempty"`
	Email       bool   `json:"email,omitempty"`
	// ChangesOnly (nil: true) reports only new, changed and removed pages,
	// and nothing when a check found none.
	ChangesOnly *bool `json:"changes_only,omitempty"`
}

// MonitorCrawl is the crawl a monitor runs at each check: a crawl's fields
// (see CrawlRequest and ContentRequest) but delivery and change tracking,
// which are the monitor's.
type MonitorCrawl struct {
	URL               string            `json:"url"`
	Limit             *int              `json:"limit,omitempty"`
	MaxDepth          *int              `json:"max_depth,omitempty"`
	Include           []string          `json:"include,omitempty"`
	Exclude           []string          `json:"exclude,omitempty"`
	Scope             string            `json:"scope,omitempty"`
	Sitemap           string            `json:"sitemap,omitempty"`
	IgnoreQueryParams []string          `json:"ignore_query_params,omitempty"`
	Render            string            `json:"render,omitempty"`
	MaxAge            int               `json:"max_age,omitempty"`
	Store             *bool             `json:"store,omitempty"`
	Formats           []string          `json:"formats,omitempty"`
	Actions           []Action          `json:"actions,omitempty"`
	Device            string            `json:"device,omitempty"`
	Locale            string            `json:"locale,omitempty"`
	Headers           map[string]string `json:"headers,omitempty"`
	Cookies           map[string]string `json:"cookies,omitempty"`
	Country           string            `json:"country,omitempty"`
}

// MonitorPatch changes a monitor; nil fields are left as they are.
type MonitorPatch struct {
	Name     *string `json:"name,omitempty"`
	Schedule *string `json:"schedule,omitempty"`
	// CallbackURL "" removes the webhook.
	CallbackURL *string `json:"callback_url,omitempty"`
	Email       *bool   `json:"email,omitempty"`
	ChangesOnly *bool   `json:"changes_only,omitempty"`
	// Status is MonitorPaused or MonitorActive (resume).
	Status *string `json:"status,omitempty"`
}

// Monitor states, the values of Monitor.Status and MonitorPatch.Status.
const (
	MonitorActive = "active"
	MonitorPaused = "paused"
)

// Monitor is a monitor as the API shows it.
type Monitor struct {
	ID           string        `json:"id"`
	Name         string        `json:"name"`
	URLs         []string      `json:"urls"`
	Crawl        *MonitorCrawl `json:"crawl"`
	Schedule     string        `json:"schedule"`
	CallbackURL  *string       `json:"callback_url"`
	Email        bool          `json:"email"`
	ChangesOnly  bool          `json:"changes_only"`
	Status       string        `json:"status"`
	PausedReason *string       `json:"paused_reason"`
	// NextRunAt is the next scheduled check; nil while paused.
	NextRunAt *string `json:"next_run_at"`
	CreatedAt string  `json:"created_at"`
	UpdatedAt string  `json:"updated_at"`
	// Checks are the latest checks, newest first (Monitor only, not Monitors).
	Checks []MonitorCheck `json:"checks,omitempty"`
}

// MonitorCheck is one check of a monitor.
type MonitorCheck struct {
	ID          string  `json:"id"`
	ScheduledAt string  `json:"scheduled_at"`
	StartedAt   *string `json:"started_at"`
	FinishedAt  *string `json:"finished_at"`
	// Status is queued, running, completed, failed or insufficient_credits.
	Status       string  `json:"status"`
	PagesChecked int     `json:"pages_checked"`
	Changed      int     `json:"changed"`
	Credits      int64   `json:"credits"`
	Error        *string `json:"error"`
}

// MonitorPage is a page of an account's monitors, newest first.
type MonitorPage = Page[Monitor]

// CreateMonitor starts a monitor (free; each check costs 2 credits per page read).
func (c *Client) CreateMonitor(ctx context.Context, r MonitorRequest) (Monitor, error) {
	var out Monitor
	return out, c.do(ctx, "POST", "/v1/monitors", nil, r, false, &out)
}

// Monitors lists the account's monitors, newest first (free). Zero values take the defaults.
func (c *Client) Monitors(ctx context.Context, page, perPage int) (MonitorPage, error) {
	var out MonitorPage
	return out, c.do(ctx, "GET", "/v1/monitors", listQuery(page, perPage), nil, false, &out)
}

// Monitor answers a monitor with its latest checks (free).
func (c *Client) Monitor(ctx context.Context, id string) (Monitor, error) {
	var out Monitor
	return out, c.do(ctx, "GET", "/v1/monitors/"+url.PathEscape(id), nil, nil, false, &out)
}

// UpdateMonitor pauses, resumes or changes a monitor (free).
func (c *Client) UpdateMonitor(ctx context.Context, id string, p MonitorPatch) (Monitor, error) {
	var out Monitor
	return out, c.do(ctx, "PATCH", "/v1/monitors/"+url.PathEscape(id), nil, p, false, &out)
}

// DeleteMonitor removes a monitor and its checks (free).
func (c *Client) DeleteMonitor(ctx context.Context, id string) error {
	return c.do(ctx, "DELETE", "/v1/monitors/"+url.PathEscape(id), nil, nil, false, nil)
}
