package bulk

import (
	"context"
	"time"

	"github.com/trawlhq/trawl/ports"
)

// handBack gives up the lease of a job this worker stopped before
// finishing (the process is shutting down), so another process resumes it
// at once instead of when the lease runs out. The URLs it did not finish
// stay pending; those it charged are keyed, so none is charged twice. A job
// already finished, or lost to another owner, is left as it is.
func (w *Worker) handBack(job ports.BulkJob) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	// A lease that ended at the epoch can be claimed now by any process,
	// whatever its clock says.
	if err := w.d.Jobs.RenewLease(ctx, job.ID, job.LeaseOwner, time.UnixMilli(0).UTC()); err == nil {
		w.log.Info("bulk job handed back for another process to resume", "job_id", job.ID)
	}
}
