package sqlstore

import (
	"context"

	"github.com/trawlhq/trawl/ports"
)

var _ ports.JobLister = (*Store)(nil)

type jobSummaryRow struct {
	jobRow
	Succeeded  int `db:"succeeded"`
	Failed     int `db:"failed"`
	Deliveries int `db:"deliveries"`
}

// ListJobs pages through an account's jobs, newest first, with their counts.
func (s *Store) ListJobs(ctx context.Context, accountID int64, limit, offset int) ([]ports.JobSummary, int, error) {
	const op = "sqlstore.ListJobs"
	var total int
	if err := s.x().GetContext(ctx, &total, s.q(`SELECT COUNT(*) FROM bulk_jobs WHERE account_id = ?`), accountID); err != nil {
		return nil, 0, fail(ctx, op, err)
	}
	var rows []jobSummaryRow
	err := s.x().SelectContext(ctx, &rows, s.q(`SELECT `+jobCols+`,
		(SELECT COUNT(*) FROM bulk_job_urls u WHERE u.job_id = j.id AND u.status = 'succeeded') AS succeeded,
		(SELECT COUNT(*) FROM bulk_job_urls u WHERE u.job_id = j.id AND u.status = 'failed') AS failed,
		(SELECT COUNT(*) FROM delivery_attempts d WHERE d.job_id = j.id) AS deliveries
		FROM bulk_jobs j WHERE j.account_id = ? ORDER BY j.queued_at DESC, j.id DESC LIMIT ? OFFSET ?`), accountID, limit, offset)
	if err != nil {
		return nil, 0, fail(ctx, op, err)
	}
	out := make([]ports.JobSummary, len(rows))
	for i, r := range rows {
		out[i] = ports.JobSummary{Job: r.job(), Succeeded: r.Succeeded, Failed: r.Failed, Deliveries: r.Deliveries}
	}
	return out, total, nil
}
