// Package monitor runs monitors: pages (a list of URLs, or a crawl) read on
// a cron schedule, compared with the previous check's snapshots, and
// reported once per check by a signed webhook and, if asked, an email.
// Every node schedules; a check is taken by one compare-and-set on the
// monitor's next run time and runs on the bulk queue like any job, so each
// scheduled time yields one check and a check whose node dies resumes on
// another without charging a page twice.
package monitor

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/robfig/cron/v3"
	"github.com/trawlhq/trawl/core/bulk"
	"github.com/trawlhq/trawl/core/content"
	"github.com/trawlhq/trawl/core/crawl"
	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/core/weburl"
	"github.com/trawlhq/trawl/ports"
)

// Bounds of a monitor.
const (
	MaxURLs     = 100
	MaxNameLen  = 200
	MinInterval = 5 * time.Minute
	// MaxPerAccount bounds how many monitors one account keeps.
	MaxPerAccount = 100
	// RecentChecks is how many checks a monitor is shown with.
	RecentChecks = 20
)

// Field names of a monitor body, as every delivery names them.
const (
	FieldName        = "name"
	FieldURLs        = "urls"
	FieldCrawl       = "crawl"
	FieldSchedule    = "schedule"
	FieldCallbackURL = "callback_url"
	FieldEmail       = "email"
	FieldChangesOnly = "changes_only"
	FieldStatus      = "status"
)

// Reasons a monitor is paused.
const (
	ReasonPausedByOwner       = "Paused by its owner."
	ReasonInsufficientCredits = "Paused: the account's credits could not pay for a check. Add credits, then resume the monitor."
	ReasonPlanRequired        = "Paused: the account has no active plan. Subscribe to a plan, then resume the monitor."
)

// MsgNotFound is what a caller is told of a monitor that does not exist or
// belongs to another account.
const MsgNotFound = "Monitor not found."

// CrawlBody is a monitor's crawl, in the fields POST /v1/crawl takes (its
// delivery fields and change tracking belong to the monitor instead).
type CrawlBody struct {
	URL               string    `json:"url"`
	Limit             *int      `json:"limit,omitempty"`
	MaxDepth          *int      `json:"max_depth,omitempty"`
	Include           []string  `json:"include,omitempty"`
	Exclude           []string  `json:"exclude,omitempty"`
	Scope             string    `json:"scope,omitempty"`
	Sitemap           string    `json:"sitemap,omitempty"`
	IgnoreQueryParams *[]string `json:"ignore_query_params,omitempty"` // nil: the defaults; empty: none
	Render            string    `json:"render,omitempty"`
	MaxAge            int64     `json:"max_age,omitempty"`
	// Store is false when the crawl's pages stay out of the cache (the
	// crawl body's `store`); absent otherwise.
	Store *bool `json:"store,omitempty"`
	content.Options
}

// CrawlBodyOf is the monitor part of a crawl request.
func CrawlBodyOf(r crawl.Request) CrawlBody {
	b := CrawlBody{URL: r.URL, Limit: r.Limit, MaxDepth: r.MaxDepth, Include: r.Include, Exclude: r.Exclude, Scope: r.Scope, Sitemap: r.Sitemap,
		Render: r.Render, MaxAge: r.MaxAge, Options: r.Options}
	if r.IgnoreQueryParams != nil {
		keep := r.IgnoreQueryParams
		b.IgnoreQueryParams = &keep
	}
	if r.NoStore {
		no := false
		b.Store = &no
	}
	return b
}

// request is the crawl a check runs, comparing every page under tag.
func (b CrawlBody) request(tag string) crawl.Request {
	var ignore []string
	if b.IgnoreQueryParams != nil {
		ignore = append([]string{}, *b.IgnoreQueryParams...)
	}
	return crawl.Request{URL: b.URL, Limit: b.Limit, MaxDepth: b.MaxDepth, Include: b.Include, Exclude: b.Exclude, Scope: b.Scope, Sitemap: b.Sitemap,
		IgnoreQueryParams: ignore, Render: b.Render, MaxAge: b.MaxAge, NoStore: b.Store != nil && !*b.Store, Options: b.Options, Changes: true, Tag: tag}
}

// Request is a monitor as its owner asks for it (POST).
type Request struct {
	Name        string
	URLs        []string
	Crawl       *crawl.Request
	Schedule    string
	CallbackURL string
	Email       bool
	// ChangesOnly: nil takes the default, true.
	ChangesOnly *bool
}

// Patch is a change to a monitor (PATCH): a nil field is left as it is.
type Patch struct {
	Name        *string
	Schedule    *string
	CallbackURL *string
	Email       *bool
	ChangesOnly *bool
	// Status pauses (paused) or resumes (active) the monitor.
	Status *string
}

// Checked is a valid request, ready to store.
type Checked struct {
	Name        string
	URLs        []string
	Crawl       *CrawlBody
	Schedule    string
	CallbackURL string
	Email       bool
	ChangesOnly bool
}

// Schedule is a checked cron schedule.
type Schedule struct{ s cron.Schedule }

// Next is the first scheduled time after t; zero when there is none.
func (s Schedule) Next(t time.Time) time.Time { return s.s.Next(t).UTC() }

var parser = cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)

// horizon is how far ahead ParseSchedule looks for two consecutive days
// that both run: four years hold every calendar the five fields can
// describe (leap days included).
const horizon = 4*366*24*time.Hour + 24*time.Hour

// scheduleEpoch is where that look starts: a fixed time, so a schedule is
// judged the same whenever it is submitted.
var scheduleEpoch = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

const day = 24 * time.Hour

// shortestGap is the least time between two runs of s, the first at first.
// The minute and hour fields do not depend on the date, so every day that
// runs, runs at the same times of day: the 24 hours from first hold every
// gap within a day, and the gap across midnight (the day's last run to the
// next day's first, 24 hours after first) counts only if two consecutive
// days run.
func shortestGap(s cron.Schedule, first time.Time) time.Duration {
	gap, last := time.Duration(1<<63-1), first
	for t := s.Next(first); !t.IsZero() && t.Before(first.Add(day)); last, t = t, s.Next(t) {
		gap = min(gap, t.Sub(last))
	}
	across := first.Add(day).Sub(last)
	if across >= gap {
		return gap
	}
	end := first.Add(horizon)
	for d := first; d.Before(end); {
		next := s.Next(d.Add(day - time.Nanosecond))
		if next.IsZero() {
			break
		}
		if next.Equal(d.Add(day)) {
			return across // two consecutive days run
		}
		d = next
	}
	return gap
}

// ParseSchedule checks a five-field cron expression (minute, hour, day of
// month, month, day of week; @hourly and the like too), read in UTC
// unless it starts with CRON_TZ=<zone>. It refuses one that never runs or
// runs twice within MinInterval.
func ParseSchedule(expr, field string) (Schedule, error) {
	const op = "monitor.ParseSchedule"
	expr = strings.TrimSpace(expr)
	if expr == "" {
		return Schedule{}, failure.Invalidf(op, field, "The %s field is required.", field)
	}
	if len(expr) > 200 {
		return Schedule{}, failure.Invalidf(op, field, "The %s may have at most 200 characters.", field)
	}
	if strings.HasPrefix(expr, "@every") {
		return Schedule{}, failure.Invalidf(op, field, "The %s must be a five-field cron expression (minute hour day-of-month month day-of-week).", field)
	}
	s, err := parser.Parse(expr)
	if err != nil {
		return Schedule{}, failure.Invalidf(op, field, "The %s must be a five-field cron expression (minute hour day-of-month month day-of-week).", field)
	}
	// The first run at or after midnight of the epoch, in the schedule's
	// zone: the first run of its day.
	epoch := scheduleEpoch
	if spec, ok := s.(*cron.SpecSchedule); ok && spec.Location != nil {
		epoch = time.Date(epoch.Year(), epoch.Month(), epoch.Day(), 0, 0, 0, 0, spec.Location)
	}
	first := s.Next(epoch.Add(-time.Nanosecond))
	if first.IsZero() {
		return Schedule{}, failure.Invalidf(op, field, "The %s never runs.", field)
	}
	if shortestGap(s, first) < MinInterval {
		return Schedule{}, failure.Invalidf(op, field, "The %s may run at most once every %d minutes.", field, int(MinInterval/time.Minute))
	}
	return Schedule{s: s}, nil
}

// Validate checks a monitor without the network; every bad value is named.
func Validate(r Request) (Checked, error) {
	const op = "monitor.Validate"
	var fe failure.FieldErrors
	c := Checked{Email: r.Email, ChangesOnly: r.ChangesOnly == nil || *r.ChangesOnly}
	c.Name = checkName(&fe, r.Name)
	switch {
	case len(r.URLs) > 0 && r.Crawl != nil:
		fe.Add(FieldURLs, "Give either urls or crawl, not both.")
	case len(r.URLs) > 0:
		c.URLs = checkURLs(&fe, r.URLs)
	case r.Crawl != nil:
		body := CrawlBodyOf(*r.Crawl)
		if _, err := crawl.Validate(body.request("")); err != nil {
			addFields(&fe, err, FieldCrawl+".")
		}
		c.Crawl = &body
	default:
		fe.Add(FieldURLs, "The urls field is required when crawl is not present.")
	}
	if _, err := ParseSchedule(r.Schedule, FieldSchedule); err != nil {
		addFields(&fe, err, "")
	}
	c.Schedule = strings.TrimSpace(r.Schedule)
	c.CallbackURL = checkCallback(&fe, r.CallbackURL)
	if c.CallbackURL == "" && !c.Email && !fe.Has(FieldCallbackURL) {
		fe.Add(FieldCallbackURL, "Give a callback_url, or set email to true, or both: a monitor must report somewhere.")
	}
	if err := fe.Err(op); err != nil {
		return Checked{}, err
	}
	return c, nil
}

// Apply checks a patch and applies it to m; it reports whether the
// schedule must be taken up again from now (a new schedule, or a resume).
func Apply(m *ports.Monitor, p Patch) (reschedule bool, err error) {
	const op = "monitor.Apply"
	var fe failure.FieldErrors
	if p.Name != nil {
		m.Name = checkName(&fe, *p.Name)
	}
	if p.Schedule != nil {
		if _, err := ParseSchedule(*p.Schedule, FieldSchedule); err != nil {
			addFields(&fe, err, "")
		}
		if s := strings.TrimSpace(*p.Schedule); s != m.Schedule {
			m.Schedule, reschedule = s, true
		}
	}
	if p.CallbackURL != nil {
		m.CallbackURL = checkCallback(&fe, *p.CallbackURL)
	}
	if p.Email != nil {
		m.Email = *p.Email
	}
	if p.ChangesOnly != nil {
		m.ChangesOnly = *p.ChangesOnly
	}
	if p.Status != nil {
		switch ports.MonitorStatus(*p.Status) {
		case ports.MonitorActive:
			if m.Status != ports.MonitorActive {
				m.Status, m.PausedReason, reschedule = ports.MonitorActive, "", true
			}
		case ports.MonitorPaused:
			if m.Status != ports.MonitorPaused {
				m.Status, m.PausedReason = ports.MonitorPaused, ReasonPausedByOwner
			}
		default:
			fe.Add(FieldStatus, "The status must be active or paused.")
		}
	}
	if m.CallbackURL == "" && !m.Email && !fe.Has(FieldCallbackURL) {
		fe.Add(FieldCallbackURL, "Give a callback_url, or set email to true, or both: a monitor must report somewhere.")
	}
	return reschedule, fe.Err(op)
}

func checkName(fe *failure.FieldErrors, name string) string {
	name = strings.TrimSpace(name)
	if utf8.RuneCountInString(name) > MaxNameLen {
		fe.Add(FieldName, fmt.Sprintf("The name may have at most %d characters.", MaxNameLen))
	}
	return name
}

// checkURLs checks every URL (naming urls.3) and drops repeats.
func checkURLs(fe *failure.FieldErrors, urls []string) []string {
	if len(urls) > MaxURLs {
		fe.Add(FieldURLs, fmt.Sprintf("The urls may not have more than %d items.", MaxURLs))
		return nil
	}
	var out []string
	seen := map[string]bool{}
	for i, raw := range urls {
		u, err := weburl.Parse(raw, weburl.Rules{Field: FieldURLs + "." + strconv.Itoa(i)})
		if err != nil {
			addFields(fe, err, "")
			continue
		}
		if k := weburl.DedupKey(u.String()); !seen[k] {
			seen[k] = true
			out = append(out, u.String())
		}
	}
	return out
}

func checkCallback(fe *failure.FieldErrors, raw string) string {
	cb := strings.TrimSpace(raw)
	if cb == "" {
		return ""
	}
	u, err := bulk.ParseCallback(cb)
	addFields(fe, err, "")
	return u
}

// addFields adds the field errors of err to fe, their names prefixed.
func addFields(fe *failure.FieldErrors, err error, prefix string) {
	if e, ok := failure.As(err); ok {
		for f, msgs := range e.Fields {
			for _, m := range msgs {
				fe.Add(prefix+f, m)
			}
		}
	}
}

// NewID is a fresh monitor id.
func NewID() string { return "mon_" + randomHex() }

// newCheckID is a fresh check id (its job's id on the queue).
func newCheckID() string { return "chk_" + randomHex() }

func randomHex() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Tag is the change-tracking tag a monitor's checks compare under: each
// monitor compares with its own previous check, never with the account's
// other calls.
func Tag(monitorID string) string { return "monitor:" + monitorID }

// crawlOf decodes a stored monitor's crawl.
func crawlOf(m ports.Monitor) (CrawlBody, error) {
	var b CrawlBody
	err := json.Unmarshal(m.Crawl, &b)
	return b, err
}
