package sqlstore

import (
	"context"
	"time"

	"github.com/trawlhq/trawl/ports"
)

// JobState is how many unfinished bulk jobs are in a state, and when the
// oldest of them was queued.
type JobState struct {
	Status ports.JobStatus
	Count  int
	Oldest time.Time
}

// UnfinishedJobs counts the queued and processing bulk jobs (an index
// range: finished jobs are never read).
func (s *Store) UnfinishedJobs(ctx context.Context) ([]JobState, error) {
	var rows []struct {
		Status ports.JobStatus `db:"status"`
		Count  int             `db:"n"`
		Oldest int64           `db:"oldest"`
	}
	err := s.x().SelectContext(ctx, &rows, `SELECT status, COUNT(*) AS n, MIN(queued_at) AS oldest FROM bulk_jobs WHERE status IN ('queued', 'processing') GROUP BY status ORDER BY status`)
	if err != nil {
		return nil, fail(ctx, "sqlstore.UnfinishedJobs", err)
	}
	out := make([]JobState, 0, len(rows))
	for _, r := range rows {
		out = append(out, JobState{Status: r.Status, Count: r.Count, Oldest: fromMS(r.Oldest)})
	}
	return out, nil
}
