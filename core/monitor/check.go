package monitor

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"time"

	"github.com/trawlhq/trawl/core/bulk"
	"github.com/trawlhq/trawl/core/crawl"
	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/ports"
)

// HoldTTL bounds how long a check's hold outlives a check nobody resumes.
const HoldTTL = 72 * time.Hour

// RunnerDeps are what checks run on.
type RunnerDeps struct {
	Monitors ports.MonitorStore
	Jobs     ports.JobStore
	Accounts ports.AccountStore
	// Ledger is the one bulk jobs and crawls hold and charge through.
	Ledger ports.Ledger
	Mailer ports.Mailer
	Worker *bulk.Worker
	// Crawler runs crawl monitors' pages; nil: this server runs no crawls.
	Crawler *crawl.Runner
	Crawls  ports.CrawlStore
	Clock   ports.Clock
	Logger  *slog.Logger
}

// Runner runs monitor checks claimed from the bulk queue.
type Runner struct {
	d   RunnerDeps
	log *slog.Logger
}

var _ bulk.JobRunner = (*Runner)(nil)

// NewRunner builds a runner and registers it with the worker.
func NewRunner(d RunnerDeps) (*Runner, error) {
	if d.Monitors == nil || d.Jobs == nil || d.Accounts == nil || d.Ledger == nil || d.Mailer == nil || d.Worker == nil || d.Clock == nil {
		return nil, errors.New("monitor.NewRunner: every dependency but the crawler is required")
	}
	if d.Crawler != nil && d.Crawls == nil {
		return nil, errors.New("monitor.NewRunner: a crawler needs the crawl store")
	}
	log := d.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	r := &Runner{d: d, log: log}
	d.Worker.Register(ports.KindMonitor, r)
	return r, nil
}

// RunJob runs a claimed check: it holds credits for its pages (a monitor
// whose account cannot pay is paused, and the check says so), reads them
// as a bulk job or a crawl does (each page charged at most once, keyed by
// the check, however often the check is resumed), then reports and ends
// the job. Stopped early, it returns with its pages as they are: whoever
// claims the job next goes on from there.
func (r *Runner) RunJob(stop, work context.Context, job ports.BulkJob) error {
	check, err := r.d.Monitors.MonitorCheck(work, job.ID)
	if failure.Is(err, failure.NotFound) {
		// The monitor was deleted with its checks while this one waited
		// to be resumed: nothing is left to report to.
		return r.endJob(work, job)
	}
	if err != nil {
		return err
	}
	m, err := r.d.Monitors.Monitor(work, check.MonitorID)
	if failure.Is(err, failure.NotFound) {
		var held *ports.Hold
		if check.HoldID != "" {
			held = &ports.Hold{ID: check.HoldID, AccountID: check.AccountID}
		}
		return r.end(work, job, check, held, ports.CheckFailed, "The monitor was deleted.")
	}
	if err != nil {
		return err
	}
	if check.Delivered {
		return r.endJob(work, job) // reported before the node running it stopped
	}
	if check.HoldID == "" {
		held, err := r.hold(work, job, m, &check)
		if err != nil || !held {
			return err
		}
	}
	job.HoldID = check.HoldID
	hold := ports.Hold{ID: check.HoldID, AccountID: job.AccountID}
	if len(m.Crawl) > 0 {
		if r.d.Crawler == nil {
			return r.end(work, job, check, &hold, ports.CheckFailed, "This server no longer runs crawls.")
		}
		err = r.d.Crawler.Frontier(stop, work, job)
	} else {
		var urls []ports.BulkURL
		if urls, err = r.d.Jobs.JobURLs(work, job.ID); err == nil {
			err = r.d.Worker.ProcessURLs(stop, work, job, hold, urls)
		}
	}
	if err != nil {
		return err
	}
	if err := stop.Err(); err != nil {
		return err
	}
	if err := work.Err(); err != nil {
		return err
	}
	return r.report(work, job, m, check, &hold)
}

// hold reserves the most the check's pages can cost. An account that
// cannot pay pauses the monitor: the check ends saying why, and the owner
// is told. held is false when the check ended so.
func (r *Runner) hold(ctx context.Context, job ports.BulkJob, m ports.Monitor, check *ports.MonitorCheck) (held bool, err error) {
	amount := int64(bulk.CostPerURL * len(m.URLs))
	if len(m.Crawl) > 0 && r.d.Crawls != nil {
		c, err := r.d.Crawls.Crawl(ctx, job.ID)
		if err != nil {
			return false, err
		}
		amount = int64(crawl.CostPerPage * c.Limit)
	}
	h, err := r.d.Ledger.Reserve(ctx, ports.ReserveRequest{AccountID: job.AccountID, Amount: amount, TTL: HoldTTL, Durable: true})
	var reason string
	switch {
	case failure.Is(err, failure.InsufficientCredits):
		reason = ReasonInsufficientCredits
	case failure.Is(err, failure.PlanRequired):
		reason = ReasonPlanRequired
	case err != nil:
		return false, err
	}
	if reason != "" {
		if err := pause(ctx, r.d.Monitors, r.d.Clock.Now(), m.ID, reason); err != nil {
			return false, err
		}
		m.Status, m.PausedReason = ports.MonitorPaused, reason
		now := r.d.Clock.Now()
		check.StartedAt, check.Status, check.Error = &now, ports.CheckInsufficientCredits, reason
		r.deliver(ctx, job, m, *check, nil)
		return false, r.end(ctx, job, *check, nil, ports.CheckInsufficientCredits, reason)
	}
	now := r.d.Clock.Now()
	check.HoldID, check.Status, check.StartedAt = h.ID, ports.CheckRunning, &now
	if err := r.d.Monitors.UpdateCheck(ctx, *check); err != nil {
		_ = r.d.Ledger.Release(context.WithoutCancel(ctx), h)
		return false, err
	}
	return true, nil
}

// report sums the check's pages, sends the report and ends the check.
func (r *Runner) report(ctx context.Context, job ports.BulkJob, m ports.Monitor, check ports.MonitorCheck, hold *ports.Hold) error {
	pages, err := r.pages(ctx, job, m)
	if err != nil {
		return err
	}
	if err := r.d.Ledger.Release(context.WithoutCancel(ctx), *hold); err != nil && !failure.Is(err, failure.NotFound) {
		r.log.Warn("releasing a monitor check's hold", "check_id", check.ID, "err", err)
	}
	sum := summarise(pages)
	check.Pages, check.Changed, check.Credits = sum.Read, sum.Reported(), int64(bulk.CostPerURL*sum.Read)
	check.Status = ports.CheckCompleted
	if _, err := r.d.Monitors.Monitor(ctx, m.ID); failure.Is(err, failure.NotFound) {
		return r.endJob(ctx, job) // deleted while its pages were read: it reports nothing
	}
	r.deliver(ctx, job, m, check, pages)
	if ctx.Err() != nil {
		return ctx.Err() // cut short while sending: whoever resumes sends it
	}
	return r.end(ctx, job, check, nil, ports.CheckCompleted, "")
}

// pages reads what the check found of each page, in order.
func (r *Runner) pages(ctx context.Context, job ports.BulkJob, m ports.Monitor) ([]PageResult, error) {
	var out []PageResult
	if len(m.Crawl) == 0 {
		urls, err := r.d.Jobs.JobURLs(ctx, job.ID)
		if err != nil {
			return nil, err
		}
		for _, u := range urls {
			out = append(out, resultOf(u.URL, u.Status == ports.URLSucceeded, u.Error, u.Reason, u.Content))
		}
		return out, nil
	}
	for after := int64(0); ; {
		rows, err := r.d.Crawls.CrawlPages(ctx, job.ID, after, 500, false)
		if err != nil {
			return nil, err
		}
		for _, u := range rows {
			after = u.Seq
			if u.State != ports.CrawlSkipped {
				out = append(out, resultOf(u.URL, u.State == ports.CrawlSucceeded, u.Error, u.Reason, u.Content))
			}
		}
		if len(rows) < 500 {
			return out, nil
		}
	}
}

// deliver sends the check's report by webhook and email, as the monitor
// asks, unless changes_only leaves nothing to say; it never fails the
// check (attempts are recorded under the check's id).
func (r *Runner) deliver(ctx context.Context, job ports.BulkJob, m ports.Monitor, check ports.MonitorCheck, pages []PageResult) {
	rep := reportOf(m, check, pages, r.d.Clock.Now())
	if m.ChangesOnly && check.Status == ports.CheckCompleted && len(rep.Changes) == 0 {
		return // nothing changed: nothing is sent
	}
	acct, err := r.d.Accounts.AccountByID(ctx, m.AccountID)
	if err != nil {
		r.log.Error("monitor check report: reading the account", "check_id", check.ID, "err", err)
		return
	}
	rep.User = bulk.User{ID: acct.ID, Email: acct.Email}
	if m.CallbackURL != "" {
		body, _ := json.Marshal(rep)
		to := job
		to.CallbackURL = m.CallbackURL
		r.d.Worker.SendEvent(ctx, to, EventCheck, body)
	}
	if m.Email {
		start := r.d.Clock.Now()
		err := r.d.Mailer.Send(ctx, reportMail(r.d.Worker.MailFrom(), acct.Email, rep))
		a := ports.DeliveryAttempt{JobID: job.ID, Channel: ports.ChannelEmail, Attempt: 1, Target: acct.Email, Duration: r.d.Clock.Now().Sub(start), At: start}
		if err != nil {
			a.Error = bulk.DeliveryMessage(ports.ChannelEmail, err)
			r.log.Warn("monitor check report not mailed", "check_id", check.ID, "err", err)
		}
		if err := r.d.Jobs.RecordDelivery(context.WithoutCancel(ctx), a); err != nil {
			r.log.Warn("recording a monitor report's delivery", "check_id", check.ID, "err", err)
		}
	}
}

// end records the check as ended (its report, if any, sent), releases
// what is left of a hold, and ends the job.
func (r *Runner) end(ctx context.Context, job ports.BulkJob, check ports.MonitorCheck, hold *ports.Hold, status ports.CheckStatus, why string) error {
	ctx = context.WithoutCancel(ctx)
	if hold != nil {
		if err := r.d.Ledger.Release(ctx, *hold); err != nil && !failure.Is(err, failure.NotFound) {
			r.log.Warn("releasing a monitor check's hold", "check_id", check.ID, "err", err)
		}
	}
	now := r.d.Clock.Now()
	if check.StartedAt == nil {
		check.StartedAt = &now
	}
	check.Status, check.Error, check.FinishedAt, check.Delivered = status, why, &now, true
	if err := r.d.Monitors.UpdateCheck(ctx, check); err != nil && !failure.Is(err, failure.NotFound) {
		return err
	}
	return r.endJob(ctx, job)
}

func (r *Runner) endJob(ctx context.Context, job ports.BulkJob) error {
	now := r.d.Clock.Now()
	job.Status, job.CompletedAt = ports.JobCompleted, &now
	return r.d.Jobs.FinishJob(context.WithoutCancel(ctx), job, job.LeaseOwner)
}
