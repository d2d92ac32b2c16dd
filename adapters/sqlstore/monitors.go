package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"

	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/ports"
)

var _ ports.MonitorStore = (*Store)(nil)

type monitorRow struct {
	ID           string `db:"id"`
	AccountID    int64  `db:"account_id"`
	Name         string `db:"name"`
	URLs         string `db:"urls"`
	Crawl        string `db:"crawl"`
	Schedule     string `db:"schedule"`
	CallbackURL  string `db:"callback_url"`
	Email        bool   `db:"email"`
	ChangesOnly  bool   `db:"changes_only"`
	Status       string `db:"status"`
	PausedReason string `db:"paused_reason"`
	NextRunAt    int64  `db:"next_run_at"`
	CreatedAt    int64  `db:"created_at"`
	UpdatedAt    int64  `db:"updated_at"`
}

const monitorCols = `id, account_id, name, urls, crawl, schedule, callback_url, email, changes_only, status, paused_reason, next_run_at, created_at, updated_at`

func (r monitorRow) monitor() (ports.Monitor, error) {
	m := ports.Monitor{ID: r.ID, AccountID: r.AccountID, Name: r.Name, Schedule: r.Schedule, CallbackURL: r.CallbackURL, Email: r.Email,
		ChangesOnly: r.ChangesOnly, Status: ports.MonitorStatus(r.Status), PausedReason: r.PausedReason,
		NextRunAt: fromMS(r.NextRunAt), CreatedAt: fromMS(r.CreatedAt), UpdatedAt: fromMS(r.UpdatedAt)}
	if r.URLs != "" {
		if err := json.Unmarshal([]byte(r.URLs), &m.URLs); err != nil {
			return m, err
		}
	}
	if r.Crawl != "" {
		m.Crawl = []byte(r.Crawl)
	}
	return m, nil
}

// monitorArgs are a monitor's stored values, in monitorCols' order.
func monitorArgs(m ports.Monitor) []any {
	urls := ""
	if len(m.URLs) > 0 {
		b, _ := json.Marshal(m.URLs)
		urls = string(b)
	}
	return []any{m.ID, m.AccountID, m.Name, urls, string(m.Crawl), m.Schedule, m.CallbackURL, m.Email, m.ChangesOnly, string(m.Status), m.PausedReason,
		ms(m.NextRunAt), ms(m.CreatedAt), ms(m.UpdatedAt)}
}

// CreateMonitor implements ports.MonitorStore.
func (s *Store) CreateMonitor(ctx context.Context, m ports.Monitor) error {
	_, err := s.w().ExecContext(ctx, s.q(`INSERT INTO monitors (`+monitorCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`), monitorArgs(m)...)
	return fail(ctx, "sqlstore.CreateMonitor", err)
}

// Monitor implements ports.MonitorStore.
func (s *Store) Monitor(ctx context.Context, id string) (ports.Monitor, error) {
	var r monitorRow
	if err := s.x().GetContext(ctx, &r, s.q(`SELECT `+monitorCols+` FROM monitors WHERE id = ?`), id); err != nil {
		return ports.Monitor{}, notFound(ctx, "sqlstore.Monitor", "monitor", err)
	}
	m, err := r.monitor()
	return m, fail(ctx, "sqlstore.Monitor", err)
}

func monitorsOf(rows []monitorRow) ([]ports.Monitor, error) {
	out := make([]ports.Monitor, 0, len(rows))
	for _, r := range rows {
		m, err := r.monitor()
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

// Monitors implements ports.MonitorStore.
func (s *Store) Monitors(ctx context.Context, accountID int64, limit, offset int) ([]ports.Monitor, int, error) {
	const op = "sqlstore.Monitors"
	var total int
	if err := s.x().GetContext(ctx, &total, s.q(`SELECT COUNT(*) FROM monitors WHERE account_id = ?`), accountID); err != nil {
		return nil, 0, fail(ctx, op, err)
	}
	var rows []monitorRow
	if err := s.x().SelectContext(ctx, &rows, s.q(`SELECT `+monitorCols+` FROM monitors WHERE account_id = ? ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`), accountID, limit, offset); err != nil {
		return nil, 0, fail(ctx, op, err)
	}
	out, err := monitorsOf(rows)
	return out, total, fail(ctx, op, err)
}

// UpdateMonitor implements ports.MonitorStore: the row is locked for the
// transaction, so a scheduler's compare-and-set waits for it (and sees
// its next run time) or went first (and fn sees the new one).
func (s *Store) UpdateMonitor(ctx context.Context, id string, fn func(*ports.Monitor) error) (ports.Monitor, error) {
	var out ports.Monitor
	err := s.inTx(ctx, func(tx execer) error {
		var r monitorRow
		if err := tx.GetContext(ctx, &r, s.q(`SELECT `+monitorCols+` FROM monitors WHERE id = ?`+s.eng.forUpdate()), id); err != nil {
			return notFound(ctx, "sqlstore.UpdateMonitor", "monitor", err)
		}
		m, err := r.monitor()
		if err != nil {
			return err
		}
		if err := fn(&m); err != nil {
			return err
		}
		m.ID, m.AccountID, m.CreatedAt = r.ID, r.AccountID, fromMS(r.CreatedAt)
		a := monitorArgs(m) // id, account_id, name ... updated_at
		if _, err := tx.ExecContext(ctx, s.q(`UPDATE monitors SET name = ?, urls = ?, crawl = ?, schedule = ?, callback_url = ?, email = ?, changes_only = ?, status = ?, paused_reason = ?, next_run_at = ?, updated_at = ? WHERE id = ?`),
			a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11], a[13], id); err != nil {
			return err
		}
		out = m
		return nil
	})
	return out, fail(ctx, "sqlstore.UpdateMonitor", err)
}

// DeleteMonitor implements ports.MonitorStore.
func (s *Store) DeleteMonitor(ctx context.Context, id string) error {
	found := false
	err := s.inTx(ctx, func(tx execer) error {
		if _, err := tx.ExecContext(ctx, s.q(`DELETE FROM monitor_checks WHERE monitor_id = ?`), id); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, s.q(`DELETE FROM monitors WHERE id = ?`), id)
		if err != nil {
			return err
		}
		n, _ := res.RowsAffected()
		found = n > 0
		return nil
	})
	if err == nil && !found {
		return failure.E("sqlstore.DeleteMonitor", failure.NotFound, "monitor not found")
	}
	return fail(ctx, "sqlstore.DeleteMonitor", err)
}

// DueMonitors implements ports.MonitorStore.
func (s *Store) DueMonitors(ctx context.Context, now time.Time, n int) ([]ports.Monitor, error) {
	var rows []monitorRow
	if err := s.x().SelectContext(ctx, &rows, s.q(`SELECT `+monitorCols+` FROM monitors WHERE status = 'active' AND next_run_at <= ? ORDER BY next_run_at, id LIMIT ?`), ms(now), n); err != nil {
		return nil, fail(ctx, "sqlstore.DueMonitors", err)
	}
	out, err := monitorsOf(rows)
	return out, fail(ctx, "sqlstore.DueMonitors", err)
}

// errRunTaken rolls back a StartCheck whose run another node took.
var errRunTaken = errors.New("run taken")

// StartCheck implements ports.MonitorStore: the compare-and-set of
// next_run_at and the check's job are one transaction.
func (s *Store) StartCheck(ctx context.Context, monitorID string, scheduled, next time.Time, job ports.BulkJob, urls []string, crawl *ports.Crawl, c ports.MonitorCheck) (bool, error) {
	err := s.inTx(ctx, func(tx execer) error {
		res, err := tx.ExecContext(ctx, s.q(`UPDATE monitors SET next_run_at = ? WHERE id = ? AND next_run_at = ? AND status = 'active'`), ms(next), monitorID, ms(scheduled))
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return errRunTaken
		}
		if err := s.insertJob(ctx, tx, job, len(urls)); err != nil {
			return err
		}
		if err := s.insertJobURLs(ctx, tx, job.ID, urls); err != nil {
			return err
		}
		if crawl != nil {
			if err := s.insertCrawl(ctx, tx, job.ID, *crawl); err != nil {
				return err
			}
		}
		_, err = tx.ExecContext(ctx, s.q(`INSERT INTO monitor_checks (id, monitor_id, account_id, scheduled_at, status) VALUES (?, ?, ?, ?, ?)`),
			c.ID, monitorID, c.AccountID, ms(c.ScheduledAt), string(c.Status))
		return err
	})
	if errors.Is(err, errRunTaken) {
		return false, nil
	}
	return err == nil, fail(ctx, "sqlstore.StartCheck", err)
}

type checkRow struct {
	ID          string        `db:"id"`
	MonitorID   string        `db:"monitor_id"`
	AccountID   int64         `db:"account_id"`
	ScheduledAt int64         `db:"scheduled_at"`
	Status      string        `db:"status"`
	HoldID      string        `db:"hold_id"`
	StartedAt   sql.NullInt64 `db:"started_at"`
	FinishedAt  sql.NullInt64 `db:"finished_at"`
	Pages       int           `db:"pages"`
	Changed     int           `db:"changed"`
	Credits     int64         `db:"credits"`
	Error       string        `db:"error"`
	Delivered   bool          `db:"delivered"`
}

const checkCols = `id, monitor_id, account_id, scheduled_at, status, hold_id, started_at, finished_at, pages, changed, credits, error, delivered`

func (r checkRow) check() ports.MonitorCheck {
	return ports.MonitorCheck{ID: r.ID, MonitorID: r.MonitorID, AccountID: r.AccountID, ScheduledAt: fromMS(r.ScheduledAt), Status: ports.CheckStatus(r.Status),
		HoldID: r.HoldID, StartedAt: timePtr(r.StartedAt), FinishedAt: timePtr(r.FinishedAt), Pages: r.Pages, Changed: r.Changed, Credits: r.Credits,
		Error: r.Error, Delivered: r.Delivered}
}

// MonitorCheck implements ports.MonitorStore.
func (s *Store) MonitorCheck(ctx context.Context, id string) (ports.MonitorCheck, error) {
	var r checkRow
	if err := s.x().GetContext(ctx, &r, s.q(`SELECT `+checkCols+` FROM monitor_checks WHERE id = ?`), id); err != nil {
		return ports.MonitorCheck{}, notFound(ctx, "sqlstore.MonitorCheck", "check", err)
	}
	return r.check(), nil
}

// UpdateCheck implements ports.MonitorStore.
func (s *Store) UpdateCheck(ctx context.Context, c ports.MonitorCheck) error {
	res, err := s.w().ExecContext(ctx, s.q(`UPDATE monitor_checks SET status = ?, hold_id = ?, started_at = ?, finished_at = ?, pages = ?, changed = ?, credits = ?, error = ?, delivered = ? WHERE id = ?`),
		string(c.Status), c.HoldID, msPtr(c.StartedAt), msPtr(c.FinishedAt), c.Pages, c.Changed, c.Credits, c.Error, c.Delivered, c.ID)
	if err != nil {
		return fail(ctx, "sqlstore.UpdateCheck", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return failure.E("sqlstore.UpdateCheck", failure.NotFound, "check not found")
	}
	return nil
}

// MonitorChecks implements ports.MonitorStore.
func (s *Store) MonitorChecks(ctx context.Context, monitorID string, n int) ([]ports.MonitorCheck, error) {
	var rows []checkRow
	if err := s.x().SelectContext(ctx, &rows, s.q(`SELECT `+checkCols+` FROM monitor_checks WHERE monitor_id = ? ORDER BY scheduled_at DESC, id DESC LIMIT ?`), monitorID, n); err != nil {
		return nil, fail(ctx, "sqlstore.MonitorChecks", err)
	}
	out := make([]ports.MonitorCheck, len(rows))
	for i, r := range rows {
		out[i] = r.check()
	}
	return out, nil
}
