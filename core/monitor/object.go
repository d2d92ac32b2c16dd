package monitor

import (
	"encoding/json"

	"github.com/trawlhq/trawl/ports"
)

// Object is a monitor as the API shows it.
type Object struct {
	ID          string     `json:"id"`
	Name        string     `json:"name"`
	URLs        []string   `json:"urls"`
	Crawl       *CrawlBody `json:"crawl"`
	Schedule    string     `json:"schedule"`
	CallbackURL *string    `json:"callback_url"`
	Email       bool       `json:"email"`
	ChangesOnly bool       `json:"changes_only"`
	Status      string     `json:"status"`
	// PausedReason says why a paused monitor is paused.
	PausedReason *string `json:"paused_reason"`
	// NextRunAt is the next scheduled check; null while paused.
	NextRunAt *string `json:"next_run_at"`
	CreatedAt string  `json:"created_at"`
	UpdatedAt string  `json:"updated_at"`
	// Checks are the latest checks, newest first (GET of one monitor).
	Checks *[]CheckObject `json:"checks,omitempty"`
}

// CheckObject is one check as the API shows it.
type CheckObject struct {
	ID           string  `json:"id"`
	ScheduledAt  string  `json:"scheduled_at"`
	StartedAt    *string `json:"started_at"`
	FinishedAt   *string `json:"finished_at"`
	Status       string  `json:"status"`
	PagesChecked int     `json:"pages_checked"`
	Changed      int     `json:"changed"`
	Credits      int64   `json:"credits"`
	Error        *string `json:"error"`
}

// ObjectOf renders a monitor.
func ObjectOf(m ports.Monitor) Object {
	o := Object{ID: m.ID, Name: m.Name, URLs: m.URLs, Schedule: m.Schedule, Email: m.Email, ChangesOnly: m.ChangesOnly, Status: string(m.Status),
		CreatedAt: ports.FormatTime(m.CreatedAt), UpdatedAt: ports.FormatTime(m.UpdatedAt)}
	if len(m.Crawl) > 0 {
		var b CrawlBody
		if json.Unmarshal(m.Crawl, &b) == nil {
			o.Crawl = &b
		}
	}
	if m.CallbackURL != "" {
		o.CallbackURL = &m.CallbackURL
	}
	if m.PausedReason != "" {
		o.PausedReason = &m.PausedReason
	}
	if m.Status == ports.MonitorActive {
		s := ports.FormatTime(m.NextRunAt)
		o.NextRunAt = &s
	}
	return o
}

// Object renders a monitor with its latest checks.
func (d Detail) Object() Object {
	o := ObjectOf(d.Monitor)
	checks := make([]CheckObject, len(d.Checks))
	for i, c := range d.Checks {
		checks[i] = CheckObjectOf(c)
	}
	o.Checks = &checks
	return o
}

// CheckObjectOf renders a check.
func CheckObjectOf(c ports.MonitorCheck) CheckObject {
	o := CheckObject{ID: c.ID, ScheduledAt: ports.FormatTime(c.ScheduledAt), Status: string(c.Status), PagesChecked: c.Pages, Changed: c.Changed, Credits: c.Credits}
	if c.StartedAt != nil {
		s := ports.FormatTime(*c.StartedAt)
		o.StartedAt = &s
	}
	if c.FinishedAt != nil {
		s := ports.FormatTime(*c.FinishedAt)
		o.FinishedAt = &s
	}
	if c.Error != "" {
		o.Error = &c.Error
	}
	return o
}
