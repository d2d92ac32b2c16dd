package sqlstore

import (
	"context"
	"database/sql"
	"time"

	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/ports"
)

var _ ports.JobStore = (*Store)(nil)

type jobRow struct {
	ID          string        `db:"id"`
	AccountID   int64         `db:"account_id"`
	TokenID     int64         `db:"token_id"`
	Status      string        `db:"status"`
	URLSource   string        `db:"url_source"`
	Sitemap     string        `db:"sitemap"`
	Email       bool          `db:"email"`
	CallbackURL string        `db:"callback_url"`
	Sync        bool          `db:"sync"`
	HoldID      string        `db:"hold_id"`
	URLsCount   int           `db:"urls_count"`
	RequestID   string        `db:"request_id"`
	Error       string        `db:"error"`
	ArchiveKey  string        `db:"archive_key"`
	LeaseOwner  string        `db:"lease_owner"`
	LeaseUntil  int64         `db:"lease_until"`
	QueuedAt    int64         `db:"queued_at"`
	StartedAt   sql.NullInt64 `db:"started_at"`
	CompletedAt sql.NullInt64 `db:"completed_at"`
	FailedAt    sql.NullInt64 `db:"failed_at"`
	Render      string        `db:"render"`
	TraceParent string        `db:"trace_parent"`
	Kind        string        `db:"kind"`
	// The page cache's request (migration 00011).
	CacheMaxAge  int64 `db:"cache_max_age"`
	CacheNoStore bool  `db:"cache_no_store"`
	// Change tracking (migration 00012).
	Changes   bool   `db:"changes"`
	ChangeTag string `db:"change_tag"`
	// Each page's options, as JSON (migration 00013).
	PageOptions string `db:"page_options"`
}

const jobCols = `id, account_id, token_id, status, url_source, sitemap, email, callback_url, sync, hold_id, urls_count, request_id, error, archive_key, lease_owner, lease_until, queued_at, started_at, completed_at, failed_at, render, trace_parent, kind, cache_max_age, cache_no_store, changes, change_tag, page_options`

func (r jobRow) job() ports.BulkJob {
	return ports.BulkJob{ID: r.ID, AccountID: r.AccountID, TokenID: r.TokenID, Status: ports.JobStatus(r.Status), URLSource: ports.URLSource(r.URLSource), Sitemap: r.Sitemap,
		Email: r.Email, CallbackURL: r.CallbackURL, Sync: r.Sync, HoldID: r.HoldID, URLsCount: r.URLsCount, RequestID: r.RequestID,
		Error: r.Error, ArchiveKey: r.ArchiveKey, LeaseOwner: r.LeaseOwner, LeaseUntil: fromMS(r.LeaseUntil), QueuedAt: fromMS(r.QueuedAt),
		StartedAt: timePtr(r.StartedAt), CompletedAt: timePtr(r.CompletedAt), FailedAt: timePtr(r.FailedAt), Render: r.Render, TraceParent: r.TraceParent, Kind: ports.JobKind(r.Kind),
		CacheMaxAge: r.CacheMaxAge, CacheNoStore: r.CacheNoStore, Changes: r.Changes, ChangeTag: r.ChangeTag, PageOptions: r.PageOptions}
}

// CreateJob stores a job and its URLs in one transaction.
func (s *Store) CreateJob(ctx context.Context, j ports.BulkJob, urls []string) error {
	err := s.inTx(ctx, func(tx execer) error {
		if err := s.insertJob(ctx, tx, j, len(urls)); err != nil {
			return err
		}
		return s.insertJobURLs(ctx, tx, j.ID, urls)
	})
	return fail(ctx, "sqlstore.CreateJob", err)
}

// insertJobURLs adds a job's URLs, pending, in order.
func (s *Store) insertJobURLs(ctx context.Context, tx execer, jobID string, urls []string) error {
	for i, u := range urls {
		if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO bulk_job_urls (job_id, idx, url) VALUES (?, ?, ?)`), jobID, i, u); err != nil {
			return err
		}
	}
	return nil
}

// insertJob adds a job's row to the queue.
func (s *Store) insertJob(ctx context.Context, tx execer, j ports.BulkJob, urlsCount int) error {
	leaseUntil := int64(0)
	if !j.LeaseUntil.IsZero() {
		leaseUntil = ms(j.LeaseUntil)
	}
	kind := j.Kind
	if kind == "" {
		kind = ports.KindBulk
	}
	_, err := tx.ExecContext(ctx, s.q(`INSERT INTO bulk_jobs (id, account_id, token_id, status, url_source, sitemap, email, callback_url, sync, hold_id, urls_count, request_id, queued_at, lease_owner, lease_until, started_at, render, trace_parent, kind, cache_max_age, cache_no_store, changes, change_tag, page_options)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
		j.ID, j.AccountID, j.TokenID, j.Status, j.URLSource, j.Sitemap, j.Email, j.CallbackURL, j.Sync, j.HoldID, urlsCount, j.RequestID, ms(j.QueuedAt),
		j.LeaseOwner, leaseUntil, msPtr(j.StartedAt), j.Render, j.TraceParent, kind, j.CacheMaxAge, j.CacheNoStore, j.Changes, j.ChangeTag, j.PageOptions)
	return err
}

// Job reads a job.
func (s *Store) Job(ctx context.Context, id string) (ports.BulkJob, error) {
	var r jobRow
	if err := s.x().GetContext(ctx, &r, s.q(`SELECT `+jobCols+` FROM bulk_jobs WHERE id = ?`), id); err != nil {
		return ports.BulkJob{}, notFound(ctx, "sqlstore.Job", "job", err)
	}
	return r.job(), nil
}

type urlRow struct {
	JobID      string        `db:"job_id"`
	Index      int           `db:"idx"`
	URL        string        `db:"url"`
	Status     string        `db:"status"`
	StatusCode int           `db:"status_code"`
	Error      string        `db:"error"`
	Content    string        `db:"content"`
	Engine     string        `db:"engine"`
	Reason     string        `db:"reason"`
	FinishedAt sql.NullInt64 `db:"finished_at"`
}

// JobURLs lists a job's URLs in order.
func (s *Store) JobURLs(ctx context.Context, id string) ([]ports.BulkURL, error) {
	var rows []urlRow
	if err := s.x().SelectContext(ctx, &rows, s.q(`SELECT job_id, idx, url, status, status_code, error, content, engine, reason, finished_at FROM bulk_job_urls WHERE job_id = ? ORDER BY idx`), id); err != nil {
		return nil, fail(ctx, "sqlstore.JobURLs", err)
	}
	out := make([]ports.BulkURL, len(rows))
	for i, r := range rows {
		out[i] = ports.BulkURL{JobID: r.JobID, Index: r.Index, URL: r.URL, Status: ports.URLStatus(r.Status), StatusCode: r.StatusCode, Error: r.Error, Engine: r.Engine, Reason: r.Reason, FinishedAt: timePtr(r.FinishedAt)}
		if r.Content != "" {
			out[i].Content = []byte(r.Content)
		}
	}
	return out, nil
}

// ClaimJob leases the oldest runnable job. On Postgres, FOR UPDATE SKIP
// LOCKED lets several processes claim at once without waiting on each other.
func (s *Store) ClaimJob(ctx context.Context, owner string, now time.Time, lease time.Duration) (ports.BulkJob, bool, error) {
	var out ports.BulkJob
	found := false
	err := s.inTx(ctx, func(tx execer) error {
		var id string
		if err := tx.GetContext(ctx, &id, s.q(`SELECT id FROM bulk_jobs WHERE status IN ('queued', 'processing') AND lease_until < ? ORDER BY queued_at, id LIMIT 1`+s.eng.skipLocked()), ms(now)); err != nil {
			if err == sql.ErrNoRows {
				return nil
			}
			return err
		}
		if _, err := tx.ExecContext(ctx, s.q(`UPDATE bulk_jobs SET status = 'processing', lease_owner = ?, lease_until = ?, started_at = COALESCE(started_at, ?) WHERE id = ?`),
			owner, ms(now.Add(lease)), ms(now), id); err != nil {
			return err
		}
		var r jobRow
		if err := tx.GetContext(ctx, &r, s.q(`SELECT `+jobCols+` FROM bulk_jobs WHERE id = ?`), id); err != nil {
			return err
		}
		out, found = r.job(), true
		return nil
	})
	if err != nil {
		return ports.BulkJob{}, false, fail(ctx, "sqlstore.ClaimJob", err)
	}
	return out, found, nil
}

// RenewLease extends a lease the owner still holds.
func (s *Store) RenewLease(ctx context.Context, jobID, owner string, until time.Time) error {
	res, err := s.w().ExecContext(ctx, s.q(`UPDATE bulk_jobs SET lease_until = ? WHERE id = ? AND lease_owner = ? AND status = 'processing'`), ms(until), jobID, owner)
	if err != nil {
		return fail(ctx, "sqlstore.RenewLease", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return failure.E("sqlstore.RenewLease", failure.Conflict, "lease lost")
	}
	return nil
}

// FinishURL records a URL's outcome.
func (s *Store) FinishURL(ctx context.Context, u ports.BulkURL) error {
	_, err := s.w().ExecContext(ctx, s.q(`UPDATE bulk_job_urls SET status = ?, status_code = ?, error = ?, content = ?, engine = ?, reason = ?, finished_at = ? WHERE job_id = ? AND idx = ?`),
		u.Status, u.StatusCode, u.Error, string(u.Content), u.Engine, u.Reason, msPtr(u.FinishedAt), u.JobID, u.Index)
	return fail(ctx, "sqlstore.FinishURL", err)
}

// FinishJob ends a job if the owner still holds its lease.
func (s *Store) FinishJob(ctx context.Context, j ports.BulkJob, owner string) error {
	res, err := s.w().ExecContext(ctx, s.q(`UPDATE bulk_jobs SET status = ?, error = ?, archive_key = ?, completed_at = ?, failed_at = ?, lease_owner = '', lease_until = 0
		WHERE id = ? AND lease_owner = ? AND status = 'processing'`),
		j.Status, j.Error, j.ArchiveKey, msPtr(j.CompletedAt), msPtr(j.FailedAt), j.ID, owner)
	if err != nil {
		return fail(ctx, "sqlstore.FinishJob", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return failure.E("sqlstore.FinishJob", failure.Conflict, "lease lost")
	}
	return nil
}

// RecordDelivery stores one delivery attempt.
func (s *Store) RecordDelivery(ctx context.Context, a ports.DeliveryAttempt) error {
	_, err := s.w().ExecContext(ctx, s.q(`INSERT INTO delivery_attempts (job_id, channel, attempt, target, status_code, error, duration_ms, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`),
		a.JobID, a.Channel, a.Attempt, a.Target, a.StatusCode, a.Error, a.Duration.Milliseconds(), ms(a.At))
	return fail(ctx, "sqlstore.RecordDelivery", err)
}

type deliveryRow struct {
	JobID      string `db:"job_id"`
	Channel    string `db:"channel"`
	Attempt    int    `db:"attempt"`
	Target     string `db:"target"`
	StatusCode int    `db:"status_code"`
	Error      string `db:"error"`
	DurationMS int64  `db:"duration_ms"`
	At         int64  `db:"at"`
}

// Deliveries lists a job's delivery attempts in order.
func (s *Store) Deliveries(ctx context.Context, jobID string) ([]ports.DeliveryAttempt, error) {
	var rows []deliveryRow
	if err := s.x().SelectContext(ctx, &rows, s.q(`SELECT job_id, channel, attempt, target, status_code, error, duration_ms, at FROM delivery_attempts WHERE job_id = ? ORDER BY id`), jobID); err != nil {
		return nil, fail(ctx, "sqlstore.Deliveries", err)
	}
	out := make([]ports.DeliveryAttempt, len(rows))
	for i, r := range rows {
		out[i] = ports.DeliveryAttempt{JobID: r.JobID, Channel: ports.DeliveryChannel(r.Channel), Attempt: r.Attempt, Target: r.Target, StatusCode: r.StatusCode,
			Error: r.Error, Duration: time.Duration(r.DurationMS) * time.Millisecond, At: fromMS(r.At)}
	}
	return out, nil
}

// PendingURLs counts unprocessed URLs of unfinished jobs.
func (s *Store) PendingURLs(ctx context.Context) (int, error) {
	var n int
	err := s.x().GetContext(ctx, &n, `SELECT COUNT(*) FROM bulk_job_urls u JOIN bulk_jobs j ON j.id = u.job_id WHERE u.status = 'pending' AND j.status IN ('queued', 'processing')`)
	return n, fail(ctx, "sqlstore.PendingURLs", err)
}
