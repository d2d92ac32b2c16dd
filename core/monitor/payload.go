package monitor

import (
	"encoding/json"
	"fmt"
	"html"
	"strings"
	"time"

	"github.com/trawlhq/trawl/core/bulk"
	"github.com/trawlhq/trawl/core/changes"
	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/ports"
)

// EventCheck is the X-Trawl-Webhook header of a check's report.
const EventCheck = "monitor-check"

// StatusFailed is the status of a page a check could not read (and that
// is not known to be gone): it is neither compared nor charged.
const StatusFailed = "failed"

// PageResult is what a check found of one page.
type PageResult struct {
	URL string `json:"url"`
	// Status is new, same, changed, removed (changes' statuses) or failed.
	Status     string  `json:"status"`
	PreviousAt *string `json:"previous_at,omitempty"`
	// Diff is the unified diff of the page's Markdown (changed pages).
	Diff string `json:"diff,omitempty"`
	// Error and Reason say why a failed page was not read.
	Error  string         `json:"error,omitempty"`
	Reason failure.Reason `json:"reason,omitempty"`
}

// resultOf reads a page's outcome from what its job recorded: the page
// object (succeeded) or the removed change kept of a failed page.
func resultOf(pageURL string, ok bool, errMsg, reason string, content []byte) PageResult {
	var v struct {
		Change *changes.Object `json:"change"`
	}
	if len(content) > 0 {
		_ = json.Unmarshal(content, &v)
	}
	p := PageResult{URL: pageURL, Status: StatusFailed}
	if c := v.Change; c != nil && (ok || c.Status == changes.StatusRemoved) {
		p.Status, p.PreviousAt = c.Status, c.PreviousAt
		if c.Diff != nil {
			p.Diff = *c.Diff
		}
		return p
	}
	if ok {
		p.Status = changes.StatusNew // read, but nothing was compared
		return p
	}
	p.Error = errMsg
	p.Reason, _ = failure.Reason(reason).Normal()
	return p
}

// Summary counts a check's pages by status.
type Summary struct {
	New     int `json:"new"`
	Changed int `json:"changed"`
	Same    int `json:"same"`
	Removed int `json:"removed"`
	Failed  int `json:"failed"`
	// Read is the pages read (and charged): new, changed and same.
	Read int `json:"-"`
}

// Reported counts the pages worth reporting: new, changed or removed.
func (s Summary) Reported() int { return s.New + s.Changed + s.Removed }

func summarise(pages []PageResult) Summary {
	var s Summary
	for _, p := range pages {
		switch p.Status {
		case changes.StatusNew:
			s.New++
		case changes.StatusChanged:
			s.Changed++
		case changes.StatusSame:
			s.Same++
		case changes.StatusRemoved:
			s.Removed++
		default:
			s.Failed++
		}
	}
	s.Read = s.New + s.Changed + s.Same
	return s
}

// MonitorRef names the monitor in a report.
type MonitorRef struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Schedule    string `json:"schedule"`
	Status      string `json:"status"`
	ChangesOnly bool   `json:"changes_only"`
	// PausedReason says why the monitor is paused.
	PausedReason string `json:"paused_reason,omitempty"`
}

// CheckRef is the check in a report.
type CheckRef struct {
	ID           string  `json:"id"`
	Status       string  `json:"status"`
	ScheduledAt  string  `json:"scheduled_at"`
	StartedAt    *string `json:"started_at"`
	FinishedAt   string  `json:"finished_at"`
	PagesChecked int     `json:"pages_checked"`
	Changed      int     `json:"changed"`
	Credits      int64   `json:"credits"`
	Error        string  `json:"error,omitempty"`
}

// Report is the monitor-check webhook payload: the check, its counts, and
// the pages it lists (with changes_only, only new, changed and removed
// ones; else every page).
type Report struct {
	Event   string       `json:"event"`
	Monitor MonitorRef   `json:"monitor"`
	Check   CheckRef     `json:"check"`
	Counts  Summary      `json:"counts"`
	Changes []PageResult `json:"changes"`
	User    bulk.User    `json:"user"`
}

func reportOf(m ports.Monitor, c ports.MonitorCheck, pages []PageResult, finished time.Time) Report {
	sum := summarise(pages)
	r := Report{Event: EventCheck, Monitor: MonitorRef{ID: m.ID, Name: m.Name, Schedule: m.Schedule, Status: string(m.Status), ChangesOnly: m.ChangesOnly, PausedReason: m.PausedReason},
		Check: CheckRef{ID: c.ID, Status: string(c.Status), ScheduledAt: ports.FormatTime(c.ScheduledAt), FinishedAt: ports.FormatTime(finished),
			PagesChecked: sum.Read, Changed: sum.Reported(), Credits: int64(bulk.CostPerURL * sum.Read), Error: c.Error},
		Counts: sum, Changes: []PageResult{}}
	if c.StartedAt != nil {
		s := ports.FormatTime(*c.StartedAt)
		r.Check.StartedAt = &s
	}
	for _, p := range pages {
		switch p.Status {
		case changes.StatusNew, changes.StatusChanged, changes.StatusRemoved:
		default:
			if m.ChangesOnly {
				continue
			}
		}
		r.Changes = append(r.Changes, p)
	}
	return r
}

// reportMail is the email of a check's report: what changed, by page.
func reportMail(from, to string, r Report) ports.Mail {
	name := r.Monitor.Name
	if name == "" {
		name = r.Monitor.ID
	}
	subject := fmt.Sprintf("Trawl monitor %q: %d page(s) changed", name, r.Check.Changed)
	if r.Check.Status == string(ports.CheckInsufficientCredits) {
		subject = fmt.Sprintf("Trawl monitor %q is paused", name)
	}
	var text, htm strings.Builder
	fmt.Fprintf(&text, "Hello,\n\nMonitor %s (%s) checked %d page(s) at %s: %d new, %d changed, %d removed, %d same, %d failed; %d credit(s).\n",
		name, r.Monitor.ID, r.Check.PagesChecked, r.Check.FinishedAt, r.Counts.New, r.Counts.Changed, r.Counts.Removed, r.Counts.Same, r.Counts.Failed, r.Check.Credits)
	fmt.Fprintf(&htm, "<p>Hello,</p><p>Monitor <strong>%s</strong> (<code>%s</code>) checked %d page(s) at %s: %d new, %d changed, %d removed, %d same, %d failed; %d credit(s).</p>",
		html.EscapeString(name), html.EscapeString(r.Monitor.ID), r.Check.PagesChecked, r.Check.FinishedAt, r.Counts.New, r.Counts.Changed, r.Counts.Removed, r.Counts.Same, r.Counts.Failed, r.Check.Credits)
	if r.Check.Error != "" {
		fmt.Fprintf(&text, "\n%s\n", r.Check.Error)
		fmt.Fprintf(&htm, "<p>%s</p>", html.EscapeString(r.Check.Error))
	}
	if len(r.Changes) > 0 {
		text.WriteString("\n")
		htm.WriteString("<ul>")
	}
	for _, p := range r.Changes {
		fmt.Fprintf(&text, "- %s: %s\n", p.Status, p.URL)
		fmt.Fprintf(&htm, "<li><strong>%s</strong>: %s</li>", html.EscapeString(p.Status), html.EscapeString(p.URL))
	}
	if len(r.Changes) > 0 {
		htm.WriteString("</ul>")
	}
	text.WriteString("\nThe webhook (or GET /v1/monitors/" + r.Monitor.ID + ") has the diffs.\n\n-- Trawl\n")
	htm.WriteString("<p>— Trawl</p>")
	return ports.Mail{From: from, To: to, Subject: subject, Text: text.String(), HTML: htm.String()}
}
