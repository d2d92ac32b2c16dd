package bulk

import (
	"encoding/json"
	"time"

	"github.com/trawlhq/trawl/core/content"
	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/ports"
)

// Result is one entry of the completion payload.
type Result struct {
	URL     string          `json:"url"`
	Success bool            `json:"success"`
	Content *content.Object `json:"content"`
	Error   *string         `json:"error"`
	// Engine says how the page was read (http or browser); absent when it
	// was not read.
	Engine string `json:"engine,omitempty"`
	// Reason and Retryable say why a URL failed, as the stable code a
	// single-URL call answers with its 503; absent on success.
	Reason    failure.Reason `json:"reason,omitempty"`
	Retryable *bool          `json:"retryable,omitempty"`
}

// outcomeOf fills a result's reason and retryable from its URL.
func (r *Result) outcomeOf(u ports.BulkURL) {
	if reason, retry, ok := URLOutcome(u); ok {
		r.Reason, r.Retryable = reason, &retry
	}
}

// User identifies the account in payloads.
type User struct {
	ID    int64  `json:"id"`
	Email string `json:"email"`
}

// Completion is the content-all-results payload.
type Completion struct {
	JobID                 string   `json:"job_id"`
	ProcessedCount        int      `json:"processed_count"`
	SuccessCount          int      `json:"success_count"`
	FailedCount           int      `json:"failed_count"`
	Results               []Result `json:"results"`
	User                  User     `json:"user"`
	ProcessingCompletedAt string   `json:"processing_completed_at"`
}

// Failure is the content-bulk-failure payload.
type Failure struct {
	JobID    string          `json:"job_id"`
	Status   ports.JobStatus `json:"status"`
	Error    string          `json:"error"`
	FailedAt string          `json:"failed_at"`
	User     User            `json:"user"`
}

// CompletionOf builds the completion payload of a job.
func CompletionOf(job ports.BulkJob, acct ports.Account, urls []ports.BulkURL, at time.Time) Completion {
	c := Completion{JobID: job.ID, User: User{ID: acct.ID, Email: acct.Email}, ProcessingCompletedAt: ports.FormatTime(at), Results: []Result{}}
	c.ProcessedCount, c.SuccessCount, c.FailedCount = Counts(urls)
	for _, u := range urls {
		r := Result{URL: u.URL, Success: u.Status == ports.URLSucceeded, Engine: u.Engine}
		if r.Success {
			var obj content.Object
			if json.Unmarshal(u.Content, &obj) == nil {
				r.Content = &obj
			}
		} else {
			msg := u.Error
			r.Error = &msg
			r.outcomeOf(u)
		}
		c.Results = append(c.Results, r)
	}
	return c
}
