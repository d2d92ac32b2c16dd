package mcpserver

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/trawlhq/trawl/client"
)

// addMonitorTools registers the monitor tools.
func addMonitorTools(s *mcp.Server, t tools) {
	add(s, &mcp.Tool{Name: "monitor_create", Description: "Watch pages for changes: give 1 to 100 URLs (or a crawl) and a cron schedule " +
		"(at most every 5 minutes); each check compares the pages with the previous check and sends one signed webhook " +
		"(callback_url) and/or email listing what changed, with a diff. Free to create; each check costs 2 credits per page read."}, changesAccount, t.monitorCreate)
	add(s, &mcp.Tool{Name: "monitor_list", Description: "The account's monitors, newest first: schedule, status (active or paused, " +
		"with why) and the next check (free)."}, readsAccount, t.monitorList)
	add(s, &mcp.Tool{Name: "monitor_get", Description: "A monitor and its latest checks: when each ran, how many pages it read, " +
		"how many changed, what it cost (free)."}, readsAccount, t.monitorGet)
	add(s, &mcp.Tool{Name: "monitor_update", Description: "Pause or resume a monitor (status), or change its schedule, name, " +
		"webhook, email or changes_only (free). A resumed monitor's next check is its schedule's first time from now."}, changesAccount, t.monitorUpdate)
	add(s, &mcp.Tool{Name: "monitor_delete", Description: "Delete a monitor and its checks (free). A check already running " +
		"finishes and reports nothing."}, deletes, t.monitorDelete)
}

// The monitor tools' annotations: they change the account's monitors, not
// the web; deleting one cannot be undone.
var (
	changesAccount = &mcp.ToolAnnotations{DestructiveHint: ptr(false), OpenWorldHint: ptr(false)}
	deletes        = &mcp.ToolAnnotations{DestructiveHint: ptr(true), IdempotentHint: true, OpenWorldHint: ptr(false)}
)

// MonitorCrawl is the crawl a monitor runs at each check.
type MonitorCrawl struct {
	URL      string   `json:"url" jsonschema:"the start URL: http or https, at most 180 characters"`
	Limit    int      `json:"limit,omitempty" jsonschema:"pages to read at each check, 1 to 10000 (default 100)"`
	MaxDepth *int     `json:"max_depth,omitempty" jsonschema:"link hops from the start URL, 0 to 20 (default 3)"`
	Include  []string `json:"include,omitempty" jsonschema:"read only paths (plus query) matching one of these globs, e.g. /blog/**, or RE2 expressions prefixed re:"`
	Exclude  []string `json:"exclude,omitempty" jsonschema:"skip paths matching one of these globs or re: expressions; exclude wins over include"`
	Scope    string   `json:"scope,omitempty" jsonschema:"host (default), domain or subdomains"`
}

// MonitorInput is the monitor_create tool's input.
type MonitorInput struct {
	Name        string        `json:"name,omitempty" jsonschema:"a name for the monitor, at most 200 characters"`
	URLs        []string      `json:"urls,omitempty" jsonschema:"1 to 100 page URLs to watch; or give crawl"`
	Crawl       *MonitorCrawl `json:"crawl,omitempty" jsonschema:"a site to crawl and watch at each check, instead of urls"`
	Schedule    string        `json:"schedule" jsonschema:"a five-field cron expression in UTC (minute hour day-of-month month day-of-week, e.g. 0 */6 * * * or @daily; CRON_TZ=Europe/Paris first for another zone), at most once every 5 minutes"`
	CallbackURL string        `json:"callback_url,omitempty" jsonschema:"a webhook URL each check's report is POSTed to (signed; X-Trawl-Webhook: monitor-check)"`
	Email       bool          `json:"email,omitempty" jsonschema:"email each report to the account's address"`
	ChangesOnly *bool         `json:"changes_only,omitempty" jsonschema:"true (default): report only new, changed and removed pages, and send nothing when none changed; false: report every page at every check"`
}

// MonitorIDInput names a monitor.
type MonitorIDInput struct {
	ID string `json:"id" jsonschema:"the monitor's id (mon_...), as monitor_create or monitor_list gave it"`
}

// MonitorListInput is the monitor_list tool's input.
type MonitorListInput struct {
	Page    int `json:"page,omitempty" jsonschema:"the page of the list, from 1 (default 1)"`
	PerPage int `json:"per_page,omitempty" jsonschema:"monitors per page, 1 to 100 (default 20)"`
}

// MonitorUpdateInput is the monitor_update tool's input.
type MonitorUpdateInput struct {
	MonitorIDInput
	Status      MonitorStatus `json:"status,omitempty" jsonschema:"paused stops the checks; active resumes them"`
	Schedule    *string       `json:"schedule,omitempty" jsonschema:"a new cron schedule (as monitor_create takes it)"`
	Name        *string       `json:"name,omitempty" jsonschema:"a new name"`
	CallbackURL *string       `json:"callback_url,omitempty" jsonschema:"a new webhook URL; empty removes it"`
	Email       *bool         `json:"email,omitempty" jsonschema:"email each report, or stop"`
	ChangesOnly *bool         `json:"changes_only,omitempty" jsonschema:"report only changes (true) or every page (false)"`
}

// MonitorDeleted is the monitor_delete tool's answer.
type MonitorDeleted struct {
	ID      string `json:"id" jsonschema:"the monitor that was deleted"`
	Deleted bool   `json:"deleted" jsonschema:"true: the monitor and its checks are gone"`
}

func (t tools) monitorCreate(ctx context.Context, _ *mcp.CallToolRequest, in MonitorInput) (*mcp.CallToolResult, client.Monitor, error) {
	r := client.MonitorRequest{Name: in.Name, URLs: in.URLs, Schedule: in.Schedule, CallbackURL: in.CallbackURL, Email: in.Email, ChangesOnly: in.ChangesOnly}
	if c := in.Crawl; c != nil {
		r.Crawl = &client.MonitorCrawl{URL: c.URL, MaxDepth: c.MaxDepth, Include: c.Include, Exclude: c.Exclude, Scope: c.Scope}
		if c.Limit != 0 {
			r.Crawl.Limit = &c.Limit
		}
	}
	out, err := t.c.CreateMonitor(ctx, r)
	return nil, out, explain(err)
}

func (t tools) monitorList(ctx context.Context, _ *mcp.CallToolRequest, in MonitorListInput) (*mcp.CallToolResult, client.MonitorPage, error) {
	out, err := t.c.Monitors(ctx, in.Page, in.PerPage)
	return nil, out, explain(err)
}

func (t tools) monitorGet(ctx context.Context, _ *mcp.CallToolRequest, in MonitorIDInput) (*mcp.CallToolResult, client.Monitor, error) {
	out, err := t.c.Monitor(ctx, in.ID)
	return nil, out, explain(err)
}

func (t tools) monitorUpdate(ctx context.Context, _ *mcp.CallToolRequest, in MonitorUpdateInput) (*mcp.CallToolResult, client.Monitor, error) {
	p := client.MonitorPatch{Name: in.Name, Schedule: in.Schedule, CallbackURL: in.CallbackURL, Email: in.Email, ChangesOnly: in.ChangesOnly}
	if in.Status != "" {
		s := string(in.Status)
		p.Status = &s
	}
	out, err := t.c.UpdateMonitor(ctx, in.ID, p)
	return nil, out, explain(err)
}

func (t tools) monitorDelete(ctx context.Context, _ *mcp.CallToolRequest, in MonitorIDInput) (*mcp.CallToolResult, MonitorDeleted, error) {
	if err := t.c.DeleteMonitor(ctx, in.ID); err != nil {
		return nil, MonitorDeleted{}, explain(err)
	}
	return nil, MonitorDeleted{ID: in.ID, Deleted: true}, nil
}
