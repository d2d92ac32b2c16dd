package bulk

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"sync"

	"github.com/trawlhq/trawl/core/billing"
	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/ports"
)

// Process runs a claimed job to the end: every pending URL, then the
// deliveries. It stops when its lease is lost. When ctx ends (the process
// is shutting down) it starts no new URL, gives the URLs in flight up to
// Drain to finish and be recorded, and returns ctx's error without
// delivering; the caller then hands the job back.
func (w *Worker) Process(ctx context.Context, job ports.BulkJob) (err error) {
	if w.d.Tracer != nil {
		var end func(error)
		ctx, end = w.d.Tracer.StartLinked(ctx, "bulk.job", job.TraceParent)
		defer func() { end(err) }()
	}
	return w.leased(ctx, job, func(work context.Context) error {
		if job.Kind != "" && job.Kind != ports.KindBulk {
			r := w.runners[job.Kind]
			if r == nil {
				return fmt.Errorf("no runner for jobs of kind %q", job.Kind)
			}
			return r.RunJob(ctx, work, job)
		}
		return w.processBulk(ctx, work, job)
	})
}

// leased runs fn under the job's lease: work, the context fn's work runs
// under, outlives ctx by up to Drain and ends when the lease is lost; a
// heartbeat renews the lease until fn returns.
func (w *Worker) leased(ctx context.Context, job ports.BulkJob, fn func(work context.Context) error) error {
	// work is what the URLs in flight and the deliveries run under: it
	// outlives ctx by up to Drain, and ends when the lease is lost.
	work, cancel := context.WithCancel(context.WithoutCancel(ctx))
	beat := make(chan struct{})
	go func() { defer close(beat); w.heartbeat(work, cancel, job.ID, job.LeaseOwner) }()
	go func() {
		select {
		case <-work.Done():
		case <-ctx.Done():
			select {
			case <-work.Done():
			case <-w.d.Clock.After(w.opts.Drain):
				cancel()
			}
		}
	}()
	defer func() { cancel(); <-beat }()
	return fn(work)
}

// JobRunner runs a claimed job of another kind than bulk (a crawl) to its
// end under the worker's lease: stop ends when the process starts shutting
// down (start nothing new), work when the drain runs out or the lease is
// lost (stop everything).
type JobRunner interface {
	RunJob(stop, work context.Context, job ports.BulkJob) error
}

// Register makes the worker run jobs of kind with r. It is called once at
// start-up, before Run.
func (w *Worker) Register(kind ports.JobKind, r JobRunner) { w.runners[kind] = r }

// processBulk processes a bulk job's pending URLs, then delivers it.
func (w *Worker) processBulk(ctx, work context.Context, job ports.BulkJob) error {
	owner := job.LeaseOwner
	urls, err := w.d.Jobs.JobURLs(work, job.ID)
	if err != nil {
		return err
	}
	hold := ports.Hold{ID: job.HoldID, AccountID: job.AccountID, TokenID: 0}
	if err := w.processURLs(ctx, work, job, hold, urls); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := work.Err(); err != nil {
		return err
	}
	urls, err = w.d.Jobs.JobURLs(work, job.ID)
	if err != nil {
		return err
	}
	acct, err := w.d.Accounts.AccountByID(work, job.AccountID)
	if err != nil {
		return err
	}
	now := w.d.Clock.Now()
	job.Status, job.CompletedAt = ports.JobCompleted, &now
	derr := w.deliver(work, &job, acct, urls)
	if err := work.Err(); err != nil {
		// Cut short (the drain ran out, or the lease was lost): whoever
		// resumes the job delivers it.
		return err
	}
	if derr != nil {
		w.log.Error("bulk job failed to deliver", "job_id", job.ID, "request_id", job.RequestID, "err", derr)
		job.Status, job.CompletedAt, job.FailedAt = ports.JobFailed, nil, &now
		job.Error = failureMessage(derr)
		w.sendFailure(work, job, acct)
	}
	_ = w.d.Ledger.Release(context.WithoutCancel(work), hold)
	return w.d.Jobs.FinishJob(context.WithoutCancel(work), job, owner)
}

// ProcessURLs reads a job's pending URLs as a bulk job's are read and
// charged (another use case's job on the same queue: a monitor check).
func (w *Worker) ProcessURLs(stop, work context.Context, job ports.BulkJob, hold ports.Hold, urls []ports.BulkURL) error {
	return w.processURLs(stop, work, job, hold, urls)
}

// processURLs fetches the pending URLs concurrently, at most PerHost at a
// time from one host. A success is charged (keyed job:index, so a resumed
// job never charges a URL twice) before it is recorded; a failure gives its
// part of the hold back. Once stop ends no URL is started; those already
// started run on under work.
func (w *Worker) processURLs(stop, work context.Context, job ports.BulkJob, hold ports.Hold, urls []ports.BulkURL) error {
	sem := make(chan struct{}, w.opts.URLConcurrency)
	var hostMu sync.Mutex
	hosts := map[string]chan struct{}{}
	hostSem := func(u string) chan struct{} {
		h := "?"
		if pu, err := url.Parse(u); err == nil {
			h = strings.ToLower(pu.Hostname())
		}
		hostMu.Lock()
		defer hostMu.Unlock()
		if hosts[h] == nil {
			hosts[h] = make(chan struct{}, w.opts.PerHost)
		}
		return hosts[h]
	}
	var wg sync.WaitGroup
	var errMu sync.Mutex
	var firstErr error
	for _, u := range urls {
		if u.Status != ports.URLPending {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			hs := hostSem(u.URL)
			select {
			case hs <- struct{}{}:
			case <-stop.Done():
				return
			case <-work.Done():
				return
			}
			defer func() { <-hs }()
			select {
			case sem <- struct{}{}:
			case <-stop.Done():
				return
			case <-work.Done():
				return
			}
			defer func() { <-sem }()
			if stop.Err() != nil || work.Err() != nil {
				return // a slot freed as the process began to stop
			}
			if err := w.processURL(work, job, hold, u); err != nil {
				errMu.Lock()
				if firstErr == nil {
					firstErr = err
				}
				errMu.Unlock()
			}
		}()
	}
	wg.Wait()
	return firstErr
}

func (w *Worker) processURL(ctx context.Context, job ports.BulkJob, hold ports.Hold, u ports.BulkURL) error {
	pctx := cacheRequest(ctx, job)
	page, err := w.extract(pctx, job, u.URL)
	if ctx.Err() != nil {
		return ctx.Err() // stopped or lease lost: the URL stays pending for whoever resumes
	}
	svc, _ := billing.ServiceByType(billing.BulkContent)
	now := w.d.Clock.Now()
	out := ports.BulkURL{JobID: job.ID, Index: u.Index, StatusCode: page.StatusCode, Engine: string(page.Engine), FinishedAt: &now}
	if err == nil {
		_, _, cerr := w.d.Ledger.ChargeHold(ctx, hold, ports.Charge{Credits: CostPerURL, ServiceType: string(svc.Type), ServiceName: svc.DisplayName,
			Metadata: ports.TransactionMetadata{URL: u.URL, JobID: job.ID, RequestID: job.RequestID}}, fmt.Sprintf("%s:%d", job.ID, u.Index))
		switch {
		case cerr == nil:
			body, _ := json.Marshal(page.Object())
			out.Status, out.Content = ports.URLSucceeded, body
		case failure.Is(cerr, failure.InsufficientCredits):
			out.Status, out.Error = ports.URLFailed, "Insufficient credits to extract this URL."
			out.Reason = string(failure.ReasonUnavailable)
		default:
			return cerr
		}
	} else {
		_ = w.d.Ledger.ReleasePart(ctx, hold, CostPerURL)
		reason, _ := failure.Outcome(err)
		out.Status, out.Error, out.Reason = ports.URLFailed, failureMessage(err), string(reason)
		out.Content = removedContent(w.d.Pages.Removed(pctx, u.URL, page.StatusCode))
	}
	return w.d.Jobs.FinishURL(ctx, out)
}

func failureMessage(err error) string { return failure.Public(err, "The page could not be extracted.") }

// URLOutcome is the reason code of a failed URL and whether reading it
// again may succeed, as a single-URL call would have answered it; ok is
// false for a URL that did not fail. A URL recorded without a code reads
// as "unavailable".
func URLOutcome(u ports.BulkURL) (reason failure.Reason, retryable, ok bool) {
	if u.Status != ports.URLFailed {
		return "", false, false
	}
	reason, retryable = failure.Reason(u.Reason).Normal()
	return reason, retryable, true
}
