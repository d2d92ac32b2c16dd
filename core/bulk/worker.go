package bulk

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/trawlhq/trawl/core/content"
	"github.com/trawlhq/trawl/ports"
)

// WorkerOptions tune the worker.
type WorkerOptions struct {
	Lease          time.Duration // a job's lease; renewed at a third of it
	Poll           time.Duration // how often idle workers look for jobs
	JobsAtOnce     int           // jobs processed at once by one process
	URLConcurrency int           // pages fetched at once within a job
	PerHost        int           // pages fetched at once from one host
	WebhookRetries int           // retries after the first attempt (spec: 3)
	WebhookTimeout time.Duration // per attempt (spec: 30 s)
	RetryBackoff   time.Duration // first wait between webhook attempts, doubled each time
	LinkTTL        time.Duration // lifetime of the ZIP link
	// Drain is how long the URLs in flight may run once the process starts
	// shutting down; past it they are left pending for the next process.
	Drain    time.Duration
	MailFrom string
}

func (o WorkerOptions) withDefaults() WorkerOptions {
	def := func(v *time.Duration, d time.Duration) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&o.Lease, time.Minute)
	def(&o.Poll, 2*time.Second)
	def(&o.WebhookTimeout, 30*time.Second)
	def(&o.RetryBackoff, 2*time.Second)
	def(&o.LinkTTL, 7*24*time.Hour)
	def(&o.Drain, 10*time.Second)
	if o.JobsAtOnce <= 0 {
		o.JobsAtOnce = 2
	}
	if o.URLConcurrency <= 0 {
		o.URLConcurrency = 8
	}
	if o.PerHost <= 0 {
		o.PerHost = 2
	}
	if o.WebhookRetries < 0 {
		o.WebhookRetries = 0
	} else if o.WebhookRetries == 0 {
		o.WebhookRetries = 3
	}
	if o.MailFrom == "" {
		o.MailFrom = "Trawl <no-reply@trawl.localhost>"
	}
	return o
}

// Worker processes bulk jobs from the durable queue.
type Worker struct {
	d     WorkerDeps
	log   *slog.Logger
	opts  WorkerOptions
	owner string
	wake  chan struct{}
	// runners run the jobs of other kinds than bulk (Register).
	runners map[ports.JobKind]JobRunner
}

// WorkerDeps are the ports and services a worker runs on.
type WorkerDeps struct {
	Jobs     ports.JobStore
	Accounts ports.AccountStore
	Ledger   ports.Ledger
	Pages    *content.Service
	Webhooks ports.WebhookSender
	Mailer   ports.Mailer
	Blobs    ports.BlobStore
	Clock    ports.Clock
	// Logger receives what goes wrong in the background (default: discarded).
	Logger *slog.Logger
	// Tracer links each job's processing to the request that queued it
	// (optional).
	Tracer ports.JobTracer
}

// NewWorker builds a worker.
func NewWorker(d WorkerDeps, o WorkerOptions) (*Worker, error) {
	if d.Jobs == nil || d.Accounts == nil || d.Ledger == nil || d.Pages == nil || d.Webhooks == nil || d.Mailer == nil || d.Blobs == nil || d.Clock == nil {
		return nil, errors.New("bulk.NewWorker: every dependency is required")
	}
	log := d.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	host, _ := os.Hostname()
	var b [4]byte
	_, _ = rand.Read(b[:])
	return &Worker{d: d, log: log, opts: o.withDefaults(), owner: fmt.Sprintf("%s-%d-%s", host, os.Getpid(), hex.EncodeToString(b[:])), wake: make(chan struct{}, 1), runners: map[ports.JobKind]JobRunner{}}, nil
}

// Lease is how long a claimed job stays its worker's without a renewal.
func (w *Worker) Lease() time.Duration { return w.opts.Lease }

// ArchiveLink is a fresh download link of a job's results archive.
func (w *Worker) ArchiveLink(ctx context.Context, key string) (string, error) {
	return w.d.Blobs.URL(ctx, key, w.opts.LinkTTL)
}

// Wake tells an idle worker a job is waiting.
func (w *Worker) Wake() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// Run claims and processes jobs until ctx ends. Jobs another process left
// unfinished are claimed when their lease runs out (or at once when it
// handed them back), and resumed. When ctx ends Run claims nothing more,
// lets the URLs in flight finish and be recorded (within Drain), hands the
// lease of each unfinished job back, and returns.
func (w *Worker) Run(ctx context.Context) {
	var wg sync.WaitGroup
	for range w.opts.JobsAtOnce {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				job, ok, err := w.d.Jobs.ClaimJob(ctx, w.owner, w.d.Clock.Now(), w.opts.Lease)
				if err != nil && ctx.Err() == nil {
					w.log.Error("claiming a bulk job", "err", err)
				}
				if ok {
					if err := w.Process(ctx, job); err != nil && ctx.Err() == nil {
						w.log.Error("bulk job interrupted; it resumes when its lease runs out", "job_id", job.ID, "err", err)
					}
					// Process has returned: its lease renewals have stopped, so
					// none can take the lease back after it is handed back.
					if ctx.Err() != nil {
						w.handBack(job)
					}
					continue
				}
				select {
				case <-ctx.Done():
				case <-w.wake:
				case <-w.d.Clock.After(w.opts.Poll):
				}
			}
		}()
	}
	wg.Wait()
}

func (w *Worker) heartbeat(ctx context.Context, lost context.CancelFunc, jobID, owner string) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-w.d.Clock.After(w.opts.Lease / 3):
			if err := w.d.Jobs.RenewLease(ctx, jobID, owner, w.d.Clock.Now().Add(w.opts.Lease)); err != nil && ctx.Err() == nil {
				w.log.Warn("bulk job lease lost; stopping", "job_id", jobID, "err", err)
				lost()
				return
			}
		}
	}
}

// traceParent is given when the caller set one, else the traceparent of the
// request served in ctx, so the job's processing links to it.
func (w *Worker) traceParent(ctx context.Context, given string) string {
	if given != "" || w.d.Tracer == nil {
		return given
	}
	return w.d.Tracer.TraceParent(ctx)
}
