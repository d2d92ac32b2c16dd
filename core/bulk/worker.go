package bulk

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/trawlhq/trawl/core/billing"
	"github.com/trawlhq/trawl/core/content"
	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/ports"
)

// Webhook headers (spec 6, DECISIONS.md).
const (
	HeaderEvent      = "X-Trawl-Webhook"
	HeaderSignature  = "X-Trawl-Signature"
	EventCompleted   = "content-all-results"
	EventFailed      = "content-bulk-failure"
	WebhookUserAgent = "Trawl-API/1.0"
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
	MailFrom       string
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
	jobs     ports.JobStore
	accounts ports.AccountStore
	ledger   ports.Ledger
	pages    *content.Service
	webhooks ports.WebhookSender
	mailer   ports.Mailer
	blobs    ports.BlobStore
	clock    ports.Clock
	log      *slog.Logger
	opts     WorkerOptions
	owner    string
	wake     chan struct{}
}

// NewWorker builds a worker.
func NewWorker(jobs ports.JobStore, accounts ports.AccountStore, ledger ports.Ledger, pages *content.Service, webhooks ports.WebhookSender,
	mailer ports.Mailer, blobs ports.BlobStore, clock ports.Clock, log *slog.Logger, o WorkerOptions) (*Worker, error) {
	if jobs == nil || accounts == nil || ledger == nil || pages == nil || webhooks == nil || mailer == nil || blobs == nil || clock == nil {
		return nil, errors.New("bulk.NewWorker: every dependency is required")
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	host, _ := os.Hostname()
	var b [4]byte
	_, _ = rand.Read(b[:])
	return &Worker{jobs: jobs, accounts: accounts, ledger: ledger, pages: pages, webhooks: webhooks, mailer: mailer, blobs: blobs,
		clock: clock, log: log, opts: o.withDefaults(), owner: fmt.Sprintf("%s-%d-%s", host, os.Getpid(), hex.EncodeToString(b[:])), wake: make(chan struct{}, 1)}, nil
}

// Wake tells an idle worker a job is waiting.
func (w *Worker) Wake() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// Run claims and processes jobs until ctx ends. Jobs another process left
// unfinished are claimed when their lease runs out, and resumed.
func (w *Worker) Run(ctx context.Context) {
	var wg sync.WaitGroup
	for range w.opts.JobsAtOnce {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				job, ok, err := w.jobs.ClaimJob(ctx, w.owner, w.clock.Now(), w.opts.Lease)
				if err != nil && ctx.Err() == nil {
					w.log.Error("claiming a bulk job", "err", err)
				}
				if ok {
					if err := w.Process(ctx, job); err != nil && ctx.Err() == nil {
						w.log.Error("bulk job interrupted; it resumes when its lease runs out", "job_id", job.ID, "err", err)
					}
					if ctx.Err() != nil {
						w.handBack(job)
					}
					continue
				}
				select {
				case <-ctx.Done():
				case <-w.wake:
				case <-time.After(w.opts.Poll):
				}
			}
		}()
	}
	wg.Wait()
}

// Process runs a claimed job to the end: every pending URL, then the
// deliveries. It stops when its lease is lost.
func (w *Worker) Process(ctx context.Context, job ports.BulkJob) error {
	owner := job.LeaseOwner
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go w.heartbeat(ctx, cancel, job.ID, owner)

	urls, err := w.jobs.JobURLs(ctx, job.ID)
	if err != nil {
		return err
	}
	hold := ports.Hold{ID: job.HoldID, AccountID: job.AccountID, TokenID: 0}
	if err := w.processURLs(ctx, job, hold, urls); err != nil {
		return err
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	urls, err = w.jobs.JobURLs(ctx, job.ID)
	if err != nil {
		return err
	}
	acct, err := w.accounts.AccountByID(ctx, job.AccountID)
	if err != nil {
		return err
	}
	now := w.clock.Now()
	job.Status, job.CompletedAt = ports.JobCompleted, &now
	if derr := w.deliver(ctx, &job, acct, urls); derr != nil {
		w.log.Error("bulk job failed to deliver", "job_id", job.ID, "request_id", job.RequestID, "err", derr)
		job.Status, job.CompletedAt, job.FailedAt = ports.JobFailed, nil, &now
		job.Error = failureMessage(derr)
		w.sendFailure(ctx, job, acct)
	}
	_ = w.ledger.Release(context.WithoutCancel(ctx), hold)
	return w.jobs.FinishJob(context.WithoutCancel(ctx), job, owner)
}

func (w *Worker) heartbeat(ctx context.Context, lost context.CancelFunc, jobID, owner string) {
	t := time.NewTicker(w.opts.Lease / 3)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := w.jobs.RenewLease(ctx, jobID, owner, w.clock.Now().Add(w.opts.Lease)); err != nil && ctx.Err() == nil {
				w.log.Warn("bulk job lease lost; stopping", "job_id", jobID, "err", err)
				lost()
				return
			}
		}
	}
}

// processURLs fetches the pending URLs concurrently, at most PerHost at a
// time from one host. A success is charged (keyed job:index, so a resumed
// job never charges a URL twice) before it is recorded; a failure gives its
// part of the hold back.
func (w *Worker) processURLs(ctx context.Context, job ports.BulkJob, hold ports.Hold, urls []ports.BulkURL) error {
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
			case <-ctx.Done():
				return
			}
			defer func() { <-hs }()
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				return
			}
			defer func() { <-sem }()
			if err := w.processURL(ctx, job, hold, u); err != nil {
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
	page, err := w.pages.Extract(ctx, u.URL)
	if ctx.Err() != nil {
		return ctx.Err() // stopped or lease lost: the URL stays pending for whoever resumes
	}
	svc, _ := billing.ServiceByType(billing.BulkContent)
	now := w.clock.Now()
	out := ports.BulkURL{JobID: job.ID, Index: u.Index, StatusCode: page.StatusCode, FinishedAt: &now}
	if err == nil {
		_, _, cerr := w.ledger.ChargeHold(ctx, hold, ports.Charge{Credits: CostPerURL, ServiceType: string(svc.Type), ServiceName: svc.DisplayName,
			Metadata: ports.TransactionMetadata{URL: u.URL, JobID: job.ID, RequestID: job.RequestID}}, fmt.Sprintf("%s:%d", job.ID, u.Index))
		switch {
		case cerr == nil:
			body, _ := json.Marshal(page.Object())
			out.Status, out.Content = ports.URLSucceeded, body
		case failure.Is(cerr, failure.InsufficientCredits):
			out.Status, out.Error = ports.URLFailed, "Insufficient credits to extract this URL."
		default:
			return cerr
		}
	} else {
		_ = w.ledger.ReleasePart(ctx, hold, CostPerURL)
		out.Status, out.Error = ports.URLFailed, failureMessage(err)
	}
	return w.jobs.FinishURL(ctx, out)
}

func failureMessage(err error) string { return failure.Public(err, "The page could not be extracted.") }

// Result is one entry of the completion payload.
type Result struct {
	URL     string          `json:"url"`
	Success bool            `json:"success"`
	Content *content.Object `json:"content"`
	Error   *string         `json:"error"`
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
	JobID    string `json:"job_id"`
	Status   string `json:"status"`
	Error    string `json:"error"`
	FailedAt string `json:"failed_at"`
	User     User   `json:"user"`
}

func iso(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000000Z07:00") }

// CompletionOf builds the completion payload of a job.
func CompletionOf(job ports.BulkJob, acct ports.Account, urls []ports.BulkURL, at time.Time) Completion {
	c := Completion{JobID: job.ID, User: User{ID: acct.ID, Email: acct.Email}, ProcessingCompletedAt: iso(at), Results: []Result{}}
	c.ProcessedCount, c.SuccessCount, c.FailedCount = Counts(urls)
	for _, u := range urls {
		r := Result{URL: u.URL, Success: u.Status == ports.URLSucceeded}
		if r.Success {
			var obj content.Object
			if json.Unmarshal(u.Content, &obj) == nil {
				r.Content = &obj
			}
		} else {
			msg := u.Error
			r.Error = &msg
		}
		c.Results = append(c.Results, r)
	}
	return c
}

// deliver builds the archive and sends the email and the webhook. A failure
// to store the archive or to send the email fails the job; a webhook that
// never gets a 2xx is recorded but does not.
func (w *Worker) deliver(ctx context.Context, job *ports.BulkJob, acct ports.Account, urls []ports.BulkURL) error {
	if job.Email {
		key := "bulk/" + job.ID + "/trawl-" + job.ID + ".zip"
		archive, err := Archive(urls)
		if err != nil {
			return failure.E("bulk.deliver", failure.Unavailable, "The results archive could not be built.", err)
		}
		if err := w.blobs.Put(ctx, key, archive, "application/zip"); err != nil {
			return failure.E("bulk.deliver", failure.Unavailable, "The results archive could not be stored.", err)
		}
		job.ArchiveKey = key
		link, err := w.blobs.URL(ctx, key, w.opts.LinkTTL)
		if err != nil {
			return failure.E("bulk.deliver", failure.Unavailable, "The results archive could not be linked.", err)
		}
		_, ok, bad := Counts(urls)
		start := w.clock.Now()
		err = w.mailer.Send(ctx, ResultsMail(w.opts.MailFrom, acct.Email, job.ID, link, ok, bad, w.opts.LinkTTL))
		w.record(ctx, ports.DeliveryAttempt{JobID: job.ID, Channel: ChannelEmail, Attempt: 1, Target: acct.Email, Duration: w.clock.Now().Sub(start), At: start}, err)
		if err != nil {
			return failure.E("bulk.deliver", failure.Unavailable, DeliveryMessage(ChannelEmail, err), err)
		}
	}
	if job.CallbackURL != "" {
		body, _ := json.Marshal(CompletionOf(*job, acct, urls, w.clock.Now()))
		w.sendWebhook(ctx, *job, EventCompleted, body)
	}
	return nil
}

func (w *Worker) sendFailure(ctx context.Context, job ports.BulkJob, acct ports.Account) {
	if job.CallbackURL == "" {
		return
	}
	body, _ := json.Marshal(Failure{JobID: job.ID, Status: ports.JobFailed, Error: job.Error, FailedAt: iso(*job.FailedAt), User: User{ID: acct.ID, Email: acct.Email}})
	w.sendWebhook(ctx, job, EventFailed, body)
}

// sendWebhook posts a payload with up to WebhookRetries retries on a non-2xx
// answer or a timeout, waiting RetryBackoff, then twice that, and so on.
// Each attempt is signed afresh and recorded.
func (w *Worker) sendWebhook(ctx context.Context, job ports.BulkJob, event string, body []byte) bool {
	secret, err := w.jobs.WebhookSecret(ctx, job.AccountID, NewWebhookSecret)
	if err != nil {
		w.log.Error("webhook secret", "job_id", job.ID, "err", err)
		return false
	}
	wait := w.opts.RetryBackoff
	for attempt := 1; attempt <= 1+w.opts.WebhookRetries; attempt++ {
		start := w.clock.Now()
		status, err := w.webhooks.Send(ctx, ports.Webhook{URL: job.CallbackURL, Body: body, Timeout: w.opts.WebhookTimeout, Headers: map[string]string{
			"Content-Type": "application/json", "User-Agent": WebhookUserAgent, HeaderEvent: event, HeaderSignature: Sign(secret, start, body),
		}})
		if err == nil && (status < 200 || status > 299) {
			err = &ports.DeliveryError{Reason: ports.DeliveryAnswered, Code: status, Err: fmt.Errorf("the receiver answered %d", status)}
		}
		w.record(ctx, ports.DeliveryAttempt{JobID: job.ID, Channel: ChannelWebhook, Attempt: attempt, Target: job.CallbackURL, StatusCode: status, Duration: w.clock.Now().Sub(start), At: start}, err)
		if err == nil {
			return true
		}
		if attempt > w.opts.WebhookRetries {
			break
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(wait):
		}
		wait *= 2
	}
	w.log.Warn("webhook not delivered", "job_id", job.ID, "event", event)
	return false
}

// record stores a delivery attempt with the sentence its failure gets in
// the job record, and logs the cause itself.
func (w *Worker) record(ctx context.Context, a ports.DeliveryAttempt, failed error) {
	if failed != nil {
		a.Error = DeliveryMessage(a.Channel, failed)
		w.log.Warn("delivery attempt failed", "job_id", a.JobID, "channel", a.Channel, "attempt", a.Attempt, "err", failed)
	}
	if err := w.jobs.RecordDelivery(context.WithoutCancel(ctx), a); err != nil {
		w.log.Error("recording a delivery attempt", "job_id", a.JobID, "err", err)
	}
}

// NewWebhookSecret is a fresh per-account signing secret.
func NewWebhookSecret() string {
	var b [24]byte
	_, _ = rand.Read(b[:])
	return "whsec_" + hex.EncodeToString(b[:])
}

// Archive builds the ZIP of a job's results: html/ and markdown/ trees
// following the URLs' paths.
func Archive(urls []ports.BulkURL) ([]byte, error) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	used := map[string]bool{}
	for _, u := range urls {
		if u.Status != ports.URLSucceeded {
			continue
		}
		var obj content.Object
		if err := json.Unmarshal(u.Content, &obj); err != nil {
			continue
		}
		hp0, mp0 := ArchivePaths(u.URL)
		hp, mp := hp0, mp0
		for n := 2; used[hp]; n++ { // two URLs that map to one name (case, trailing slash) get -2, -3...
			hp = fmt.Sprintf("%s-%d.html", strings.TrimSuffix(hp0, ".html"), n)
			mp = fmt.Sprintf("%s-%d.md", strings.TrimSuffix(mp0, ".md"), n)
		}
		used[hp] = true
		page := "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>" + escape(obj.Metadata.Title) + "</title>" +
			"<link rel=\"canonical\" href=\"" + escape(u.URL) + "\"></head><body>\n" + obj.HTML + "\n</body></html>\n"
		for name, data := range map[string]string{hp: page, mp: obj.Markdown + "\n"} {
			f, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate, Modified: time.Now().UTC()})
			if err != nil {
				return nil, err
			}
			if _, err := f.Write([]byte(data)); err != nil {
				return nil, err
			}
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func escape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace(s)
}

// ResultsMail is the message that links to a job's archive.
func ResultsMail(from, to, jobID, link string, ok, failed int, ttl time.Duration) ports.Mail {
	days := int(ttl.Hours() / 24)
	expiry := fmt.Sprintf("%d days", days)
	if days < 1 {
		expiry = ttl.String()
	}
	subject := fmt.Sprintf("Your Trawl bulk extraction is ready: %d of %d URLs extracted", ok, ok+failed)
	text := fmt.Sprintf("Hello,\n\nYour bulk content job %s has finished: %d URL(s) extracted, %d failed (failed URLs are not charged).\n\n"+
		"Download the results (a ZIP with html/ and markdown/ folders):\n%s\n\nThe link expires in %s.\n\n-- Trawl\n", jobID, ok, failed, link, expiry)
	html := fmt.Sprintf(`<p>Hello,</p><p>Your bulk content job <code>%s</code> has finished: <strong>%d</strong> URL(s) extracted, %d failed (failed URLs are not charged).</p>`+
		`<p><a href="%s">Download the results</a> (a ZIP with <code>html/</code> and <code>markdown/</code> folders). The link expires in %s.</p><p>— Trawl</p>`,
		escape(jobID), ok, failed, escape(link), expiry)
	return ports.Mail{From: from, To: to, Subject: subject, Text: text, HTML: html}
}
