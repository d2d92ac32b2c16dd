package bulk

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

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

// deliver builds the archive and sends the email and the webhook. A failure
// to store the archive or to send the email fails the job; a webhook that
// never gets a 2xx is recorded but does not.
func (w *Worker) deliver(ctx context.Context, job *ports.BulkJob, acct ports.Account, urls []ports.BulkURL) error {
	if job.Email {
		_, ok, bad := Counts(urls)
		if err := w.MailArchive(ctx, job, acct, urls, func(link string) ports.Mail {
			return ResultsMail(w.opts.MailFrom, acct.Email, job.ID, link, ok, bad, w.opts.LinkTTL)
		}); err != nil {
			return err
		}
	}
	if job.CallbackURL != "" {
		body, _ := json.Marshal(CompletionOf(*job, acct, urls, w.d.Clock.Now()))
		w.sendWebhook(ctx, *job, EventCompleted, body)
	}
	return nil
}

// MailArchive stores the ZIP of urls as the job's archive and mails its
// link (the message built by mail) to the account, recording the attempt.
// A failure to build, store or send is a failure of the job.
func (w *Worker) MailArchive(ctx context.Context, job *ports.BulkJob, acct ports.Account, urls []ports.BulkURL, mail func(link string) ports.Mail) error {
	key := "bulk/" + job.ID + "/trawl-" + job.ID + ".zip"
	archive, err := Archive(urls, w.d.Clock.Now())
	if err != nil {
		return failure.Unable("bulk.deliver", failure.ReasonDeliveryFailed, "The results archive could not be built.", err)
	}
	if err := w.d.Blobs.Put(ctx, key, archive, "application/zip"); err != nil {
		return failure.Unable("bulk.deliver", failure.ReasonDeliveryFailed, "The results archive could not be stored.", err)
	}
	job.ArchiveKey = key
	link, err := w.d.Blobs.URL(ctx, key, w.opts.LinkTTL)
	if err != nil {
		return failure.Unable("bulk.deliver", failure.ReasonDeliveryFailed, "The results archive could not be linked.", err)
	}
	start := w.d.Clock.Now()
	err = w.d.Mailer.Send(ctx, mail(link))
	w.record(ctx, ports.DeliveryAttempt{JobID: job.ID, Channel: ChannelEmail, Attempt: 1, Target: acct.Email, Duration: w.d.Clock.Now().Sub(start), At: start}, err)
	if err != nil {
		return failure.Unable("bulk.deliver", failure.ReasonDeliveryFailed, DeliveryMessage(ChannelEmail, err), err)
	}
	return nil
}

// SendEvent posts one signed webhook event of a job to its callback URL,
// with the retries of every job webhook; false when it was not delivered.
func (w *Worker) SendEvent(ctx context.Context, job ports.BulkJob, event string, body []byte) bool {
	return w.sendWebhook(ctx, job, event, body)
}

// MailFrom is the sender of job emails; LinkTTL the lifetime of their links.
func (w *Worker) MailFrom() string { return w.opts.MailFrom }

// LinkTTL is how long an archive link stays valid.
func (w *Worker) LinkTTL() time.Duration { return w.opts.LinkTTL }

func (w *Worker) sendFailure(ctx context.Context, job ports.BulkJob, acct ports.Account) {
	if job.CallbackURL == "" {
		return
	}
	body, _ := json.Marshal(Failure{JobID: job.ID, Status: ports.JobFailed, Error: job.Error, FailedAt: ports.FormatTime(*job.FailedAt), User: User{ID: acct.ID, Email: acct.Email}})
	w.sendWebhook(ctx, job, EventFailed, body)
}

// sendWebhook posts a payload with up to WebhookRetries retries on a non-2xx
// answer or a timeout, waiting RetryBackoff, then twice that, and so on.
// Each attempt is signed afresh and recorded.
func (w *Worker) sendWebhook(ctx context.Context, job ports.BulkJob, event string, body []byte) bool {
	secret, err := w.d.Accounts.WebhookSecret(ctx, job.AccountID, NewWebhookSecret)
	if err != nil {
		w.log.Error("webhook secret", "job_id", job.ID, "err", err)
		return false
	}
	wait := w.opts.RetryBackoff
	for attempt := 1; attempt <= 1+w.opts.WebhookRetries; attempt++ {
		start := w.d.Clock.Now()
		status, err := w.d.Webhooks.Send(ctx, ports.Webhook{URL: job.CallbackURL, Body: body, Timeout: w.opts.WebhookTimeout, Headers: map[string]string{
			"Content-Type": "application/json", "User-Agent": WebhookUserAgent, HeaderEvent: event, HeaderSignature: Sign(secret, start, body),
		}})
		if err == nil && (status < 200 || status > 299) {
			err = &ports.DeliveryError{Reason: ports.DeliveryAnswered, Code: status, Err: fmt.Errorf("the receiver answered %d", status)}
		}
		w.record(ctx, ports.DeliveryAttempt{JobID: job.ID, Channel: ChannelWebhook, Attempt: attempt, Target: job.CallbackURL, StatusCode: status, Duration: w.d.Clock.Now().Sub(start), At: start}, err)
		if err == nil {
			return true
		}
		if attempt > w.opts.WebhookRetries {
			break
		}
		select {
		case <-ctx.Done():
			return false
		case <-w.d.Clock.After(wait):
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
	if err := w.d.Jobs.RecordDelivery(context.WithoutCancel(ctx), a); err != nil {
		w.log.Error("recording a delivery attempt", "job_id", a.JobID, "err", err)
	}
}

// NewWebhookSecret is a fresh per-account signing secret.
func NewWebhookSecret() string {
	var b [24]byte
	_, _ = rand.Read(b[:])
	return "whsec_" + hex.EncodeToString(b[:])
}
