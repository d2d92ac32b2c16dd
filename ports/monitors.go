package ports

import (
	"context"
	"time"
)

// KindMonitor is the job of one monitor check on the bulk queue: its
// pages (the monitor's URLs, or a crawl stored beside it under the same
// id) are read, charged and compared like a bulk job's or a crawl's.
const KindMonitor JobKind = "monitor"

// MonitorStatus says whether a monitor's schedule fires.
type MonitorStatus string

// Monitor states.
const (
	MonitorActive MonitorStatus = "active"
	MonitorPaused MonitorStatus = "paused"
)

// Monitor watches pages on a schedule and reports what changed.
type Monitor struct {
	ID        string
	AccountID int64
	Name      string
	// URLs are the pages checked; empty when Crawl is set.
	URLs []string
	// Crawl is the crawl body each check runs, as JSON the core wrote;
	// nil when URLs are set.
	Crawl []byte
	// Schedule is a cron expression, read in UTC unless it names a zone.
	Schedule    string
	CallbackURL string
	// Email sends each check's report to the account's address.
	Email        bool
	ChangesOnly  bool
	Status       MonitorStatus
	PausedReason string
	// NextRunAt is the scheduled time of the next check: the field every
	// node compares and sets to take a run.
	NextRunAt time.Time
	CreatedAt time.Time
	UpdatedAt time.Time
}

// CheckStatus is where one monitor check stands.
type CheckStatus string

// Check states.
const (
	CheckQueued    CheckStatus = "queued"
	CheckRunning   CheckStatus = "running"
	CheckCompleted CheckStatus = "completed"
	CheckFailed    CheckStatus = "failed"
	// CheckInsufficientCredits: the account could not pay for the check;
	// nothing was read and the monitor was paused.
	CheckInsufficientCredits CheckStatus = "insufficient_credits"
)

// MonitorCheck is one run of a monitor. Its id is its job's on the queue.
type MonitorCheck struct {
	ID        string
	MonitorID string
	AccountID int64
	// ScheduledAt is the scheduled time the check was taken for.
	ScheduledAt time.Time
	Status      CheckStatus
	// HoldID is the credits held for the check's pages, once placed.
	HoldID     string
	StartedAt  *time.Time
	FinishedAt *time.Time
	// Pages counts the pages read, Changed those new, changed or removed.
	Pages   int
	Changed int
	Credits int64
	// Error says, in words fit for the monitor's owner, why the check did
	// not complete.
	Error string
	// Delivered is set once the check's report went out (or there was
	// nothing to send), so a resumed check does not send it again.
	Delivered bool
}

// MonitorStore keeps monitors and their checks.
type MonitorStore interface {
	CreateMonitor(ctx context.Context, m Monitor) error
	// Monitor reads a monitor; failure.NotFound when there is none.
	Monitor(ctx context.Context, id string) (Monitor, error)
	// Monitors lists an account's monitors, newest first, and their count.
	Monitors(ctx context.Context, accountID int64, limit, offset int) ([]Monitor, int, error)
	// UpdateMonitor applies fn to the monitor as it is stored, locked
	// against every other writer of it, and stores the result; fn's error
	// writes nothing. NotFound when there is none.
	UpdateMonitor(ctx context.Context, id string, fn func(*Monitor) error) (Monitor, error)
	// DeleteMonitor deletes a monitor and its checks; NotFound when none.
	DeleteMonitor(ctx context.Context, id string) error
	// DueMonitors lists up to n active monitors whose NextRunAt is not
	// after now, the most overdue first.
	DueMonitors(ctx context.Context, now time.Time, n int) ([]Monitor, error)
	// StartCheck takes the run of monitorID scheduled at scheduled: if
	// the monitor is still active and its NextRunAt is still scheduled, it
	// sets NextRunAt to next and, in the same transaction, queues the
	// check's job (with its URLs, or its crawl when crawl is not nil) and
	// records the check. started is false, and nothing is written, when
	// another node took the run first (or the monitor was paused, edited
	// or deleted meanwhile).
	StartCheck(ctx context.Context, monitorID string, scheduled, next time.Time, job BulkJob, urls []string, crawl *Crawl, check MonitorCheck) (started bool, err error)
	// MonitorCheck reads a check; NotFound when there is none.
	MonitorCheck(ctx context.Context, id string) (MonitorCheck, error)
	// UpdateCheck stores a check's progress (status, hold, times, counts,
	// error, delivered).
	UpdateCheck(ctx context.Context, c MonitorCheck) error
	// MonitorChecks lists a monitor's latest n checks, newest first.
	MonitorChecks(ctx context.Context, monitorID string, n int) ([]MonitorCheck, error)
}
