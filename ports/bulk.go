package ports

import (
	"context"
	"net/url"
	"time"
)

// JobStatus is where a bulk job stands.
type JobStatus string

// Bulk job states.
const (
	JobQueued     JobStatus = "queued"
	JobProcessing JobStatus = "processing"
	JobCompleted  JobStatus = "completed"
	JobFailed     JobStatus = "failed"
)

// URLStatus is where one URL of a bulk job stands.
type URLStatus string

// Bulk URL states.
const (
	URLPending   URLStatus = "pending"
	URLSucceeded URLStatus = "succeeded"
	URLFailed    URLStatus = "failed"
)

// DeliveryChannel is how a job's results reach its owner.
type DeliveryChannel string

// Delivery channels as job records name them.
const (
	ChannelEmail   DeliveryChannel = "email"
	ChannelWebhook DeliveryChannel = "webhook"
)

// URLSource is where a bulk job's URLs came from.
type URLSource string

// URL sources as requests and job records name them.
const (
	SourceURLs    URLSource = "urls"
	SourceSitemap URLSource = "sitemap"
)

// BulkJob is an accepted bulk content job.
type BulkJob struct {
	ID          string
	AccountID   int64
	TokenID     int64
	Status      JobStatus
	URLSource   URLSource
	Sitemap     string
	Email       bool
	CallbackURL string
	Sync        bool
	HoldID      string
	URLsCount   int
	RequestID   string
	Error       string
	ArchiveKey  string
	QueuedAt    time.Time
	StartedAt   *time.Time
	CompletedAt *time.Time
	FailedAt    *time.Time
	LeaseOwner  string
	LeaseUntil  time.Time
	// Render is how the job's pages are read: auto, always or never
	// (empty reads as auto).
	Render string
	// TraceParent is the W3C traceparent of the request that submitted the
	// job, so the work done for it later joins the same trace; empty when
	// the request carried none.
	TraceParent string
	// Kind is the use case the job belongs to (empty reads as bulk).
	Kind JobKind
	// CacheMaxAge (seconds) and CacheNoStore are the page cache's request
	// for the job's pages (max_age, store: false).
	CacheMaxAge  int64
	CacheNoStore bool
	// Changes compares each page with the account's previous snapshot of
	// it under ChangeTag (changes=true).
	Changes   bool
	ChangeTag string
	// PageOptions are the options each page is read with (formats,
	// actions, device, locale, headers, cookies, country), as the JSON the
	// job's use case wrote when it accepted the job; empty: none.
	PageOptions string
}

// BulkURL is one URL of a job and its outcome.
type BulkURL struct {
	JobID      string
	Index      int
	URL        string
	Status     URLStatus
	StatusCode int
	Error      string
	Content    []byte // the extracted page, JSON, for deliveries
	// Engine says how the page was read (http or browser); empty when it
	// was not read.
	Engine string
	// Reason is the stable code of a failed URL's failure (failure.Reason).
	Reason     string
	FinishedAt *time.Time
}

// DeliveryAttempt records one try at delivering a job's results.
type DeliveryAttempt struct {
	JobID      string
	Channel    DeliveryChannel
	Attempt    int
	Target     string
	StatusCode int
	Error      string
	Duration   time.Duration
	At         time.Time
}

// JobStore keeps bulk jobs as a durable queue: workers in any process
// claim a job with a lease, and a lease that runs out lets another claim it.
type JobStore interface {
	CreateJob(ctx context.Context, job BulkJob, urls []string) error
	Job(ctx context.Context, id string) (BulkJob, error)
	JobURLs(ctx context.Context, id string) ([]BulkURL, error)
	// ClaimJob leases the oldest job that is queued, or processing under an
	// expired lease; ok is false when there is none.
	ClaimJob(ctx context.Context, owner string, now time.Time, lease time.Duration) (job BulkJob, ok bool, err error)
	// RenewLease extends a lease the owner still holds; failure.Conflict when lost.
	RenewLease(ctx context.Context, jobID, owner string, until time.Time) error
	// FinishURL records a URL's outcome.
	FinishURL(ctx context.Context, u BulkURL) error
	// FinishJob ends a job (completed or failed) if the owner still holds it.
	FinishJob(ctx context.Context, job BulkJob, owner string) error
	RecordDelivery(ctx context.Context, a DeliveryAttempt) error
	Deliveries(ctx context.Context, jobID string) ([]DeliveryAttempt, error)
	// PendingURLs counts the URLs not yet processed across unfinished jobs.
	PendingURLs(ctx context.Context) (int, error)
}

// Webhook is one POST to a callback URL.
type Webhook struct {
	URL     string
	Headers map[string]string
	Body    []byte
	Timeout time.Duration
}

// WebhookSender posts webhooks to public addresses only.
type WebhookSender interface {
	// Check refuses a callback URL whose host is not public (a *FetchError
	// with FetchNonPublic) or cannot be resolved (another reason). Any port
	// is allowed.
	Check(ctx context.Context, callbackURL *url.URL) error
	// Send makes one attempt and returns the receiver's status code; a
	// failure to get an answer is a *DeliveryError.
	Send(ctx context.Context, w Webhook) (int, error)
}

// DeliveryReason says, in terms safe to show a job's owner, why a webhook
// or an email could not be delivered.
type DeliveryReason int

// Delivery reasons.
const (
	DeliveryFailed    DeliveryReason = iota // any other failure
	DeliveryRefused                         // the connection was refused
	DeliveryTimedOut                        // no answer in time
	DeliveryDNS                             // the host name did not resolve
	DeliveryTLS                             // the TLS handshake or certificate failed
	DeliveryNonPublic                       // the host resolved to a non-public address
	DeliveryAnswered                        // the server answered with an error code (Code)
	DeliveryAuth                            // the mail server refused the login
)

// DeliveryError is what a WebhookSender or a Mailer returns when it could
// not deliver: a Reason (and a Code for DeliveryAnswered) for the job
// record, and the cause, which may name internal addresses, for the logs.
type DeliveryError struct {
	Reason DeliveryReason
	Code   int // the HTTP status or SMTP reply code, when the server answered
	Err    error
}

func (e *DeliveryError) Error() string {
	if e.Err == nil {
		return "delivery failed"
	}
	return e.Err.Error()
}

func (e *DeliveryError) Unwrap() error { return e.Err }

// Mail is one message.
type Mail struct {
	From, To, Subject string
	Text, HTML        string
}

// Mailer sends mail; a failure to send is a *DeliveryError.
type Mailer interface {
	Send(ctx context.Context, m Mail) error
}

// BlobStore keeps delivered files and hands out expiring links to them.
type BlobStore interface {
	Put(ctx context.Context, key string, data []byte, contentType string) error
	URL(ctx context.Context, key string, ttl time.Duration) (string, error)
}

// JobTracer joins a bulk job's work to the request that queued it: the
// request's trace context is stored with the job, and the worker's span for
// the job is linked to it. Optional: nil means jobs are not traced.
type JobTracer interface {
	// TraceParent is the W3C traceparent of the request served in ctx, ""
	// when it is not traced.
	TraceParent(ctx context.Context) string
	// StartLinked starts the span of work done for a stored traceparent;
	// end ends it with the work's error.
	StartLinked(ctx context.Context, name, traceParent string) (_ context.Context, end func(error))
}
