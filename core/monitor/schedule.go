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

// SchedulerOptions tune the scheduler.
type SchedulerOptions struct {
	// Tick is how often a node looks for due monitors (default 10 s): a
	// check starts at most this long after its scheduled time.
	Tick time.Duration
	// Batch bounds the due monitors one tick takes up (default 100).
	Batch int
}

// Scheduler starts the checks of due monitors. Every node runs one: a run
// is taken by a compare-and-set of the monitor's next run time, done in the
// same transaction that queues the check's job, so each scheduled time
// yields exactly one check whatever the number of nodes, and a node that
// dies after taking a run leaves its check queued for any node to run.
type Scheduler struct {
	store  ports.MonitorStore
	worker *bulk.Worker
	clock  ports.Clock
	log    *slog.Logger
	opts   SchedulerOptions
}

// NewScheduler builds a scheduler; its checks run on worker's queue.
func NewScheduler(store ports.MonitorStore, worker *bulk.Worker, clock ports.Clock, log *slog.Logger, o SchedulerOptions) (*Scheduler, error) {
	if store == nil || worker == nil || clock == nil {
		return nil, errors.New("monitor.NewScheduler: store, worker and clock are required")
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if o.Tick <= 0 {
		o.Tick = 10 * time.Second
	}
	if o.Batch <= 0 {
		o.Batch = 100
	}
	return &Scheduler{store: store, worker: worker, clock: clock, log: log, opts: o}, nil
}

// Run ticks until ctx ends.
func (s *Scheduler) Run(ctx context.Context) {
	for ctx.Err() == nil {
		if _, err := s.Tick(ctx); err != nil && ctx.Err() == nil {
			s.log.Error("starting monitor checks", "err", err)
		}
		select {
		case <-ctx.Done():
		case <-s.clock.After(s.opts.Tick):
		}
	}
}

// Tick starts a check for every monitor due now that no other node took
// first, and says how many this node started. Runs missed while no node
// ticked (every node down) collapse into one check, taken now: the next
// run is the schedule's first time after now.
func (s *Scheduler) Tick(ctx context.Context) (int, error) {
	now := s.clock.Now()
	due, err := s.store.DueMonitors(ctx, now, s.opts.Batch)
	if err != nil {
		return 0, err
	}
	started := 0
	for _, m := range due {
		ok, err := s.start(ctx, m, now)
		if failure.Is(err, failure.Invalid) {
			// A stored schedule or crawl that no longer holds (a rule or a
			// time zone changed) would stay due for ever: the monitor is
			// paused and says why, so its owner can fix it.
			s.pauseInvalid(ctx, m, err)
			continue
		}
		if err != nil {
			s.log.Error("starting a monitor check", "monitor_id", m.ID, "err", err)
			continue
		}
		if ok {
			started++
		}
	}
	if started > 0 {
		s.worker.Wake()
	}
	return started, nil
}

// start takes the monitor's due run, queuing its check; false when
// another node took it.
func (s *Scheduler) start(ctx context.Context, m ports.Monitor, now time.Time) (bool, error) {
	sched, err := ParseSchedule(m.Schedule, FieldSchedule)
	if err != nil {
		return false, err
	}
	// The next run is the schedule's first time after now, and at least
	// MinInterval after this one: on the day a CRON_TZ zone's clocks
	// change, two local times can be closer than that in real time.
	after := now
	if floor := m.NextRunAt.Add(MinInterval - time.Nanosecond); floor.After(after) {
		after = floor
	}
	next := sched.Next(after)
	id := newCheckID()
	job := ports.BulkJob{ID: id, AccountID: m.AccountID, Status: ports.JobQueued, URLSource: ports.SourceURLs, QueuedAt: now,
		Kind: ports.KindMonitor, Changes: true, ChangeTag: Tag(m.ID)}
	check := ports.MonitorCheck{ID: id, MonitorID: m.ID, AccountID: m.AccountID, ScheduledAt: m.NextRunAt, Status: ports.CheckQueued}
	var frontier *ports.Crawl
	if len(m.Crawl) > 0 {
		body, err := crawlOf(m)
		if err != nil {
			return false, err
		}
		c, err := crawl.Validate(body.request(Tag(m.ID)))
		if err != nil {
			return false, err
		}
		if !body.Options.Empty() {
			o := body.Options
			c.Params.Options = &o
		}
		params, _ := json.Marshal(c.Params)
		frontier = &ports.Crawl{URL: c.URL, Limit: c.Limit, MaxDepth: c.MaxDepth, Params: params}
		job.URLSource, job.Render = ports.URLSource("crawl"), c.Params.Render
	}
	return s.store.StartCheck(ctx, m.ID, m.NextRunAt, next, job, m.URLs, frontier, check)
}

// pauseInvalid pauses a monitor whose stored settings no longer pass the
// rules, with the rule it fails as its reason.
func (s *Scheduler) pauseInvalid(ctx context.Context, m ports.Monitor, cause error) {
	reason := "Paused: " + failure.Public(cause, "its settings are no longer valid.") + " Change it, then resume the monitor."
	if err := pause(ctx, s.store, s.clock.Now(), m.ID, reason); err != nil {
		s.log.Error("pausing a monitor whose settings no longer hold", "monitor_id", m.ID, "err", err)
	}
}

// pause stops a monitor's checks and says why; a monitor deleted
// meanwhile is left so.
func pause(ctx context.Context, store ports.MonitorStore, now time.Time, id, reason string) error {
	_, err := store.UpdateMonitor(ctx, id, func(m *ports.Monitor) error {
		m.Status, m.PausedReason, m.UpdatedAt = ports.MonitorPaused, reason, now
		return nil
	})
	if failure.Is(err, failure.NotFound) {
		return nil
	}
	return err
}
