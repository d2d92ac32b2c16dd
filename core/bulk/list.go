package bulk

import (
	"context"
	"errors"
	"time"

	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/ports"
)

// JobList pages through an account's jobs for the dashboard, with their
// counts and, for finished jobs with results, a fresh download link.
type JobList struct {
	lister  ports.JobLister
	blobs   ports.BlobStore
	linkTTL time.Duration
}

// NewJobList builds the listing; linkTTL is how long download links work.
func NewJobList(lister ports.JobLister, blobs ports.BlobStore, linkTTL time.Duration) (*JobList, error) {
	if lister == nil || blobs == nil {
		return nil, errors.New("bulk.NewJobList: lister and blobs are required")
	}
	if linkTTL <= 0 {
		linkTTL = time.Hour
	}
	return &JobList{lister: lister, blobs: blobs, linkTTL: linkTTL}, nil
}

// JobRow is one job as its owner sees it in a list.
type JobRow struct {
	ports.JobSummary
	Pending  int
	Download string
}

// JobPage is one page of jobs.
type JobPage struct {
	Jobs    []JobRow
	Page    int
	PerPage int
	Total   int
}

// LastPage is the number of the last page (1 when empty).
func (p JobPage) LastPage() int {
	if p.Total == 0 {
		return 1
	}
	return (p.Total + p.PerPage - 1) / p.PerPage
}

// Page lists one page of an account's jobs, newest first.
func (l *JobList) Page(ctx context.Context, accountID int64, page, perPage int) (JobPage, error) {
	const op = "bulk.JobList"
	if page < 1 {
		return JobPage{}, failure.Invalidf(op, "page", "The page field must be at least 1.")
	}
	if perPage < 1 || perPage > 100 {
		return JobPage{}, failure.Invalidf(op, "per_page", "The per page field must be between 1 and 100.")
	}
	sums, total, err := l.lister.ListJobs(ctx, accountID, perPage, (page-1)*perPage)
	if err != nil {
		return JobPage{}, failure.Wrap(op, err)
	}
	out := JobPage{Page: page, PerPage: perPage, Total: total}
	for _, s := range sums {
		row := JobRow{JobSummary: s, Pending: max(0, s.Job.URLsCount-s.Succeeded-s.Failed)}
		if s.Job.ArchiveKey != "" {
			// A link that cannot be signed right now leaves the row without one.
			row.Download, _ = l.blobs.URL(ctx, s.Job.ArchiveKey, l.linkTTL)
		}
		out.Jobs = append(out.Jobs, row)
	}
	return out, nil
}
