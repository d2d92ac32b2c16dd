package crawl

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/trawlhq/trawl/core/billing"
	"github.com/trawlhq/trawl/core/bulk"
	"github.com/trawlhq/trawl/core/content"
	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/ports"
)

// Webhook events of a crawl, in the X-Trawl-Webhook header.
const (
	EventStarted    = "crawl-started"
	EventPage       = "crawl-page"
	EventPageFailed = "crawl-page-failed"
	EventCompleted  = "crawl-completed"
)

// RunnerOptions tune how crawls run.
type RunnerOptions struct {
	// Concurrency is how many pages one crawl reads at once on a node.
	Concurrency int
	// PerHost is how many requests may be in flight to one host across
	// every node (default 2); Delay the least time between their starts.
	PerHost int
	Delay   time.Duration
	// MaxCrawlDelay caps a robots.txt Crawl-delay (default 10 s).
	MaxCrawlDelay time.Duration
	// IgnoreRobots switches robots.txt off: the operator's choice alone.
	IgnoreRobots bool
	// URLLease is how long a claimed URL stays its node's (default 2 min):
	// a node that dies gives its URLs back when their leases run out.
	URLLease time.Duration
	// Backoff is the first wait after a 429 or 503 without Retry-After,
	// doubled at each attempt (default 2 s, at most 2 min); MaxAttempts
	// is how often a page is tried before it fails (default 4).
	Backoff     time.Duration
	MaxAttempts int
	// Poll is how often a crawl waiting on leases or backoffs looks again.
	Poll time.Duration
}

func (o RunnerOptions) withDefaults() RunnerOptions {
	if o.Concurrency <= 0 {
		o.Concurrency = 8
	}
	if o.PerHost <= 0 {
		o.PerHost = 2
	}
	if o.Delay < 0 {
		o.Delay = 0
	}
	if o.MaxCrawlDelay <= 0 {
		o.MaxCrawlDelay = 10 * time.Second
	}
	if o.URLLease <= 0 {
		o.URLLease = 2 * time.Minute
	}
	if o.Backoff <= 0 {
		o.Backoff = 2 * time.Second
	}
	if o.MaxAttempts <= 0 {
		o.MaxAttempts = 4
	}
	if o.Poll <= 0 {
		o.Poll = 200 * time.Millisecond
	}
	return o
}

// RunnerDeps are the ports a crawl runs on.
type RunnerDeps struct {
	Jobs     ports.JobStore
	Crawls   ports.CrawlStore
	Robots   ports.RobotsCache
	Gate     ports.HostGate
	Accounts ports.AccountStore
	Ledger   ports.Ledger
	Pages    *content.Service
	Fetcher  ports.Fetcher
	Sitemaps ports.SitemapDiscoverer
	Worker   *bulk.Worker
	Clock    ports.Clock
	Logger   *slog.Logger
}

// Runner runs crawl jobs claimed from the bulk queue.
type Runner struct {
	d    RunnerDeps
	opts RunnerOptions
	log  *slog.Logger

	mu     sync.Mutex
	robots map[string]parsedRobots // this node's copy of the store's cache, parsed once
}

var _ bulk.JobRunner = (*Runner)(nil)

// NewRunner builds a runner and registers it with the worker.
func NewRunner(d RunnerDeps, o RunnerOptions) (*Runner, error) {
	if d.Jobs == nil || d.Crawls == nil || d.Robots == nil || d.Gate == nil || d.Accounts == nil || d.Ledger == nil || d.Pages == nil || d.Fetcher == nil || d.Sitemaps == nil || d.Worker == nil || d.Clock == nil {
		return nil, errors.New("crawl.NewRunner: every dependency is required")
	}
	log := d.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	r := &Runner{d: d, opts: o.withDefaults(), log: log, robots: map[string]parsedRobots{}}
	d.Worker.Register(ports.KindCrawl, r)
	return r, nil
}

// run is one crawl being worked on by this node.
type run struct {
	r     *Runner
	job   ports.BulkJob
	c     ports.Crawl
	p     Params
	rules Rules
	hold  ports.Hold
	mode  content.RenderMode
	hooks sync.WaitGroup // page events being sent
	// hostSent counts the URLs this run sent to the frontier, by host.
	hostMu   sync.Mutex
	hostSent map[string]int
	// hookCtx is what page events are sent under: it ends when the node
	// starts shutting down, so no event retry holds the shutdown up.
	hookCtx context.Context
	// writes are the pages' outcomes on their way to the finisher, which
	// writes those that wait together in one transaction (see finisher).
	writes chan pageWrite
	// slots bound the pages handed to the finisher and not committed yet
	// (as many as are taken); pending counts those whose commit, or what
	// follows it (their event, their refusal written), is not done yet;
	// wake tells the loop a commit added to the frontier.
	slots   chan struct{}
	pending sync.WaitGroup
	wake    chan struct{}
}

// RunJob runs a claimed crawl until its frontier is done, its limit is
// reached or it is cancelled, then releases the rest of its hold and
// delivers. Stopped early (shutdown, lost lease), it returns with the
// frontier as it is: whoever claims the job next goes on from there.
func (r *Runner) RunJob(stop, work context.Context, job ports.BulkJob) error {
	cr, cancelled, err := r.frontier(stop, work, job)
	if err != nil {
		return err
	}
	return cr.finish(work, cancelled)
}

// Frontier runs a claimed job's crawl (stored under the job's id) as
// RunJob does, but leaves the hold, the delivery and the job to the
// caller: another use case's job that reads its pages by crawling (a
// monitor check). It returns once the frontier is done, the limit reached
// (the rest of the frontier then skipped) or the crawl cancelled.
func (r *Runner) Frontier(stop, work context.Context, job ports.BulkJob) error {
	cr, cancelled, err := r.frontier(stop, work, job)
	if err != nil {
		return err
	}
	_, err = cr.counts(work, cancelled)
	return err
}

func (r *Runner) frontier(stop, work context.Context, job ports.BulkJob) (*run, bool, error) {
	c, err := r.d.Crawls.Crawl(work, job.ID)
	if err != nil {
		return nil, false, err
	}
	var p Params
	if err := json.Unmarshal(c.Params, &p); err != nil {
		return nil, false, fmt.Errorf("crawl %s: stored params: %w", job.ID, err)
	}
	start, err := url.Parse(c.URL)
	if err != nil {
		return nil, false, fmt.Errorf("crawl %s: stored url: %w", job.ID, err)
	}
	cr := &run{r: r, job: job, c: c, p: p, rules: p.rules(c.MaxDepth, start.Hostname()), hold: ports.Hold{ID: job.HoldID, AccountID: job.AccountID}, mode: content.RenderMode(p.Render)}
	hookCtx, cancelHooks := context.WithCancel(work)
	defer cancelHooks()
	stopHooks := context.AfterFunc(stop, cancelHooks)
	defer stopHooks()
	cr.hookCtx = hookCtx
	if !c.Seeded && !c.CancelRequested {
		if err := cr.seed(work, start); err != nil {
			return nil, false, err
		}
	}
	cancelled, err := cr.loop(stop, work)
	cr.hooks.Wait()
	return cr, cancelled, err
}

// seed queues the start URL and, unless sitemaps are skipped, the URLs of
// the site's sitemaps (at depth 1), then sends crawl-started.
func (cr *run) seed(ctx context.Context, start *url.URL) error {
	seeds := []string{start.String()}
	if cr.p.Sitemap != SitemapSkip {
		urls, err := cr.r.d.Sitemaps.Read(ctx, start.String(), HostCap(cr.c.Limit))
		if err != nil && ctx.Err() != nil {
			return ctx.Err()
		}
		// A site without sitemaps is crawled from its start URL alone.
		seeds = append(seeds, urls...)
	}
	var add []ports.CrawlURL
	for i, s := range seeds {
		depth := min(i, 1)
		if v, ok := cr.rules.Judge(s, depth); ok {
			if depth == 1 && v.Skip == SkipDepth && cr.c.MaxDepth == 0 {
				v.Skip = ""
			}
			add = append(add, cr.frontierURL(v, depth, ""))
		}
	}
	if len(add) > 0 {
		add[0].State, add[0].Reason, add[0].FinishedAt = ports.CrawlQueued, "", nil // the start URL is always read
	}
	if _, err := cr.r.d.Crawls.AddCrawlURLs(ctx, cr.c.ID, add, HostCap(cr.c.Limit)); err != nil {
		return err
	}
	if err := cr.r.d.Crawls.MarkSeeded(ctx, cr.c.ID); err != nil {
		return err
	}
	now := cr.r.d.Clock.Now()
	cr.send(ctx, EventStarted, map[string]any{"crawl_id": cr.c.ID, "status": "running", "url": cr.c.URL, "limit": cr.c.Limit, "max_depth": cr.c.MaxDepth, "started_at": ports.FormatTime(now)})
	return nil
}

func (cr *run) frontierURL(v Verdict, depth int, parent string) ports.CrawlURL {
	u := ports.CrawlURL{URL: v.URL.String(), Key: v.Key, Host: v.URL.Hostname(), Depth: depth, Parent: parent}
	if v.Skip != "" {
		now := cr.r.d.Clock.Now()
		u.State, u.Reason, u.FinishedAt = ports.CrawlSkipped, v.Skip, &now
	}
	return u
}

// loop claims and reads URLs, Concurrency at a time, until there is
// nothing left to read. cancelled reports a crawl stopped by its owner.
// A claim takes up to Concurrency URLs whenever at most half Concurrency
// claimed URLs wait for a worker (claimQueue), so pages finishing together
// start their successors from one claim rather than one claim each, and a
// free worker finds a URL waiting; what is left over when the loop ends
// goes back to the queue.
func (cr *run) loop(stop, work context.Context) (cancelled bool, err error) {
	r := cr.r
	var inflight atomic.Int64
	var wg sync.WaitGroup
	wake := make(chan struct{}, r.opts.Concurrency)
	cr.openWrites(r.opts.Concurrency, wake)
	endWrites := cr.startFinisher(work)
	// Concurrency workers read the claimed pages, each one page at a time:
	// a page is handed over only when one is free (inflight below
	// Concurrency), so the channel never holds more than it has room for.
	pages := make(chan ports.CrawlURL, r.opts.Concurrency)
	for range r.opts.Concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for u := range pages {
				if err := cr.process(stop, work, u); err != nil {
					cr.interrupted(work, err)
				}
				inflight.Add(-1)
				select {
				case wake <- struct{}{}:
				default:
				}
			}
		}()
	}
	defer func() {
		close(pages)
		wg.Wait()
		endWrites()
	}()
	var ready claimQueue
	defer func() { cr.requeue(context.WithoutCancel(work), ready.take(ready.len())) }()
	lastCheck := time.Time{}
	for {
		if err := stop.Err(); err != nil {
			return false, err
		}
		if err := work.Err(); err != nil {
			return false, err
		}
		now := r.d.Clock.Now()
		if now.Sub(lastCheck) >= time.Second {
			lastCheck = now
			c, err := r.d.Crawls.Crawl(work, cr.c.ID)
			if err != nil {
				return false, err
			}
			if c.CancelRequested {
				return true, nil
			}
		}
		free := r.opts.Concurrency - int(inflight.Load())
		// URLs claimed and still waiting for a free worker (a slow or
		// polite host) go back before their leases run out.
		if old := ready.expired(now, r.opts.URLLease/2); len(old) > 0 {
			cr.requeue(work, old)
		}
		if ready.low(r.opts.Concurrency) {
			claimed, err := r.d.Crawls.ClaimCrawlURLs(work, cr.c.ID, r.opts.Concurrency, cr.c.Limit, now, r.opts.URLLease)
			if err != nil {
				return false, err
			}
			ready.add(claimed, now)
		}
		if free > 0 && ready.len() > 0 {
			for _, u := range ready.take(free) {
				inflight.Add(1)
				pages <- u
			}
			continue
		}
		// A page waiting for its commit is in flight in the store: its
		// commit wakes the loop, which counts then.
		if inflight.Load() == 0 && ready.len() == 0 && len(cr.slots) == 0 {
			counts, err := r.d.Crawls.CrawlCounts(work, cr.c.ID)
			if err != nil {
				return false, err
			}
			if counts.Succeeded >= cr.c.Limit || counts.Queued+counts.InFlight == 0 {
				return false, nil
			}
		}
		select {
		case <-wake:
		case <-r.d.Clock.After(r.opts.Poll):
		case <-stop.Done():
		case <-work.Done():
		}
	}
}

// requeue gives back URLs claimed and not started, for whoever reads on.
func (cr *run) requeue(ctx context.Context, urls []ports.CrawlURL) {
	for _, u := range urls {
		if err := cr.r.d.Crawls.RequeueCrawlURL(ctx, cr.c.ID, u.ID, cr.r.d.Clock.Now(), false); err != nil {
			cr.r.log.Warn("a claimed URL was not given back; it is read again when its lease runs out", "crawl_id", cr.c.ID, "err", err)
			return
		}
	}
}

// process reads one claimed URL: robots.txt, the host's politeness and
// the page, then hands its outcome (its charge, its record and its links)
// to the finisher, its event to follow the commit.
func (cr *run) process(stop, ctx context.Context, u ports.CrawlURL) error {
	r := cr.r
	pu, err := url.Parse(u.URL)
	if err != nil {
		return cr.finishURL(ctx, ports.CrawlOutcome{URL: u}, ports.CrawlSkipped, SkipFilter, nil)
	}
	delay := r.opts.Delay
	if !r.opts.IgnoreRobots {
		rb, err := r.robotsFor(ctx, pu)
		if err != nil {
			return err
		}
		if !rb.Allowed(pu) {
			return cr.finishURL(ctx, ports.CrawlOutcome{URL: u}, ports.CrawlSkipped, SkipRobots, nil)
		}
		delay = max(delay, rb.CrawlDelay(r.opts.MaxCrawlDelay))
	}
	token := newToken()
	host := pu.Hostname()
	for {
		ok, retryAt, err := r.d.Gate.AcquireHost(ctx, host, token, r.opts.PerHost, delay, r.d.Clock.Now(), r.opts.URLLease)
		if err != nil {
			return err
		}
		if ok {
			break
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-stop.Done():
			// Shutting down before the page started: it goes back to the
			// queue for whoever resumes the crawl.
			return r.d.Crawls.RequeueCrawlURL(ctx, cr.c.ID, u.ID, r.d.Clock.Now(), false)
		case <-r.d.Clock.After(max(retryAt.Sub(r.d.Clock.Now()), 10*time.Millisecond)):
		}
	}
	// The page's links, robots meta and canonical link are read from its
	// document before it is extracted: a page that is not kept (noindex,
	// or a duplicate of a page seen) is recorded skipped unextracted.
	var (
		o       ports.CrawlOutcome
		skip    string
		keepErr error
		judged  bool
	)
	keep := func(src content.Source) bool {
		judged = true
		o, skip, keepErr = cr.judgePage(ctx, u, src)
		return skip == "" && keepErr == nil
	}
	page, src, err := cr.extract(cr.cacheRequest(ctx), r.d.Pages, u.URL, keep)
	var backoff time.Time
	if page.StatusCode == 429 || page.StatusCode == 503 {
		wait := src.RetryAfter
		if wait <= 0 {
			wait = min(r.opts.Backoff<<min(u.Attempts, 6), 2*time.Minute)
		}
		backoff = r.d.Clock.Now().Add(wait)
	}
	_ = r.d.Gate.ReleaseHost(context.WithoutCancel(ctx), host, token, backoff)
	if ctx.Err() != nil {
		return ctx.Err() // stopped: the URL is claimed again when its lease runs out
	}
	if !backoff.IsZero() && u.Attempts+1 < r.opts.MaxAttempts {
		// The site asked to slow down: the host waits, the page is tried again.
		return r.d.Crawls.RequeueCrawlURL(ctx, cr.c.ID, u.ID, backoff, true)
	}
	if errors.Is(err, content.ErrNotKept) {
		if keepErr != nil {
			return keepErr
		}
		return cr.finishURL(ctx, o, ports.CrawlSkipped, skip, nil)
	}
	if err != nil {
		reason, _ := failure.Outcome(err)
		u.StatusCode = page.StatusCode
		u.Error = failure.Public(err, "The page could not be extracted.")
		return cr.finishURL(ctx, ports.CrawlOutcome{URL: u}, ports.CrawlFailed, string(reason), func() {
			cr.sendAsync(EventPageFailed, map[string]any{"crawl_id": cr.c.ID, "url": u.URL, "reason": reason, "error": u.Error, "status_code": u.StatusCode, "depth": u.Depth, "parent": u.Parent})
		})
	}
	if !judged {
		// A page that is not HTML (plain text, a document) has no links,
		// but may have been redirected to a page seen.
		if o, skip, keepErr = cr.judgePage(ctx, u, src); keepErr != nil {
			return keepErr
		} else if skip != "" {
			return cr.finishURL(ctx, o, ports.CrawlSkipped, skip, nil)
		}
	}
	obj := PageObject{Object: page.Object(), Depth: u.Depth, Parent: u.Parent}
	body, _ := json.Marshal(obj.Object)
	done := o
	done.URL.StatusCode, done.URL.Engine = page.StatusCode, string(page.Engine)
	done.URL.State, done.URL.Content, done.Now = ports.CrawlSucceeded, body, r.d.Clock.Now()
	svc, _ := billing.ServiceByType(billing.Crawl)
	status := page.StatusCode // what follows the commit keeps no more of the page than its event
	// The worker goes on to its next page while this one waits for its
	// commit; what follows the commit runs once it is done.
	return cr.write(ctx, ports.KeyedCharge{Key: fmt.Sprintf("%s:%d", cr.c.ID, u.ID), Charge: ports.Charge{Credits: CostPerPage, ServiceType: string(svc.Type), ServiceName: svc.DisplayName,
		Metadata: ports.TransactionMetadata{URL: u.URL, JobID: cr.c.ID, RequestID: cr.job.RequestID}, Outcome: &done}}, func(res ports.ChargeResult) {
		switch {
		case failure.Is(res.Err, failure.InsufficientCredits):
			o.URL.Error = "Insufficient credits to extract this page."
			if err := cr.finishURL(ctx, o, ports.CrawlFailed, string(failure.ReasonUnavailable), func() {
				cr.sendAsync(EventPageFailed, map[string]any{"crawl_id": cr.c.ID, "url": u.URL, "reason": failure.ReasonUnavailable, "error": o.URL.Error, "status_code": status, "depth": u.Depth, "parent": u.Parent})
			}); err != nil {
				cr.interrupted(ctx, err)
			}
		case res.Err != nil:
			cr.interrupted(ctx, res.Err)
		default:
			// The page is stored: it can be listed before its event arrives.
			cr.sendAsync(EventPage, map[string]any{"crawl_id": cr.c.ID, "page": obj})
		}
	})
}

// judgePage reads a page's document before it is extracted: the links it
// adds to the frontier (written with its outcome, in one transaction),
// and the reason it is skipped when it is not kept (noindex, or a
// duplicate of a page seen); skip is empty for a page to extract.
func (cr *run) judgePage(ctx context.Context, u ports.CrawlURL, src content.Source) (o ports.CrawlOutcome, skip string, err error) {
	base := src.FinalURL
	if base == "" {
		base = u.URL
	}
	links := ExtractLinks(base, src.HTML)
	o = ports.CrawlOutcome{URL: u}
	if cr.p.Sitemap != SitemapOnly && !links.NoFollow {
		o.Links = cr.follow(u, links.URLs)
		o.HostCap = cr.hostCap(o.Links)
	}
	if links.NoIndex {
		return o, SkipRobots, nil
	}
	dup, err := cr.duplicate(ctx, &o, base, links.Canonical)
	if err != nil {
		return o, "", err
	}
	if dup {
		return o, SkipDuplicate, nil
	}
	return o, "", nil
}

// duplicate reports whether a page is one already seen under another URL:
// it was redirected to, or names as canonical, a URL of the frontier or
// of its own links. A canonical URL not seen yet is added to o's links,
// recorded skipped, so the page it names is read once.
func (cr *run) duplicate(ctx context.Context, o *ports.CrawlOutcome, final, canonical string) (bool, error) {
	u := o.URL
	for i, other := range []string{final, canonical} {
		if other == "" {
			continue
		}
		v, ok := cr.rules.Judge(other, u.Depth)
		if !ok || v.Key == u.Key {
			continue
		}
		if slices.ContainsFunc(o.Links, func(l ports.CrawlURL) bool { return l.Key == v.Key }) {
			return true, nil
		}
		seen, err := cr.r.d.Crawls.HasCrawlKey(ctx, cr.c.ID, v.Key)
		if err != nil || seen {
			return seen, err
		}
		if i == 1 && v.Skip == "" {
			now := cr.r.d.Clock.Now()
			alias := ports.CrawlURL{URL: v.URL.String(), Key: v.Key, Host: v.URL.Hostname(), Depth: u.Depth, Parent: u.URL, State: ports.CrawlSkipped, Reason: SkipDuplicate, FinishedAt: &now}
			o.Links = append(o.Links, alias)
			if o.HostCap == 0 {
				o.HostCap = cr.hostCap([]ports.CrawlURL{alias})
			}
		}
	}
	return false, nil
}

// follow judges a page's links: what it adds to the frontier.
func (cr *run) follow(u ports.CrawlURL, links []string) []ports.CrawlURL {
	var add []ports.CrawlURL
	seen := map[string]bool{}
	for _, l := range links {
		v, ok := cr.rules.Judge(l, u.Depth+1)
		if !ok || seen[v.Key] || v.Key == u.Key {
			continue
		}
		seen[v.Key] = true
		add = append(add, cr.frontierURL(v, u.Depth+1, u.URL))
	}
	return add
}

// hostCap is the cap AddCrawlURLs checks for a batch: none (0) while every
// host in it has had fewer than half the cap sent by this run, the cap
// itself from then on. Counting a host's URLs in the store costs as many
// reads as it has URLs, at every page; this run's own count is an upper
// bound of what it added. A crawl resumed by another node starts its count
// again, so a host may pass the cap by at most half of it.
func (cr *run) hostCap(add []ports.CrawlURL) int {
	capN := HostCap(cr.c.Limit)
	cr.hostMu.Lock()
	defer cr.hostMu.Unlock()
	if cr.hostSent == nil {
		cr.hostSent = map[string]int{}
	}
	near := false
	for _, u := range add {
		cr.hostSent[u.Host]++
		near = near || cr.hostSent[u.Host] >= capN/2
	}
	if near {
		return capN
	}
	return 0
}

// finishURL hands a page's outcome, with its links, uncharged, to the
// finisher; then, if not nil, runs once it is committed.
func (cr *run) finishURL(ctx context.Context, o ports.CrawlOutcome, state ports.CrawlURLState, reason string, then func()) error {
	o.URL.State, o.URL.Reason, o.URL.Content, o.Now = state, reason, nil, cr.r.d.Clock.Now()
	return cr.write(ctx, ports.KeyedCharge{Charge: ports.Charge{Outcome: &o}}, func(res ports.ChargeResult) {
		if res.Err != nil {
			cr.interrupted(ctx, res.Err)
		} else if then != nil {
			then()
		}
	})
}

// interrupted logs a page whose write failed: it is read again when its
// lease runs out, and its charge key keeps it charged once.
func (cr *run) interrupted(ctx context.Context, err error) {
	if ctx.Err() == nil {
		cr.r.log.Warn("crawl page interrupted; it is read again when its lease runs out", "crawl_id", cr.c.ID, "err", err)
	}
}

// pageWrite is a page's outcome, with its charge if it has one, waiting
// for its commit; then receives what the write came to.
type pageWrite struct {
	item ports.KeyedCharge
	then func(ports.ChargeResult)
}

// maxGroup bounds the pages one commit writes.
const maxGroup = 64

// openWrites makes room for at most n pages waiting for their commit;
// wake is told of each commit.
func (cr *run) openWrites(n int, wake chan struct{}) {
	cr.writes, cr.slots, cr.wake = make(chan pageWrite, n), make(chan struct{}, n), wake
}

// startFinisher starts the run's finisher and returns what ends it: it
// waits for every page handed over and what follows its commit, then
// stops the finisher.
func (cr *run) startFinisher(ctx context.Context) (end func()) {
	written := make(chan struct{})
	go func() {
		defer close(written)
		cr.finisher(ctx)
	}()
	return func() {
		// Only workers, all returned, and what follows a commit, counted
		// in pending, write: none writes once pending is done.
		cr.pending.Wait()
		close(cr.writes)
		<-written
	}
}

// write hands a page's outcome to the finisher and returns without
// waiting for its commit: the page's worker goes on to its next page, so
// reading pages does not wait on the store's writer. then runs once the
// page is committed or its write failed (after the commit, beside the
// next one; the run waits for it before it ends): a page is written, and
// listed in its crawl's pages, before its event is sent. At most the
// crawl's concurrency of pages wait for their commit (a worker that finds
// none of the slots free waits), so a run holds at most twice its
// concurrency of pages being read or written, besides the events still
// being sent.
func (cr *run) write(ctx context.Context, item ports.KeyedCharge, then func(ports.ChargeResult)) error {
	select {
	case cr.slots <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	cr.pending.Add(1)
	cr.writes <- pageWrite{item: item, then: then} // room for every slot
	return nil
}

// finisher writes the pages' outcomes of this run in group commits: the
// outcomes handed over while the previous write ran go together in one
// transaction of the ledger (ChargeEach): a page refused or failed of
// itself is left out and the others are written, a group whose
// transaction failed of itself is written a page at a time, and a page
// whose write failed is told so (it is read again when its lease runs
// out; its charge key keeps it charged once). Every page's write
// touches the same rows (the crawl's counters, the account's credits, the
// hold), which one commit then writes once for all of them. A page waits
// for no more than the write before it: the finisher takes what is
// waiting and writes at once.
func (cr *run) finisher(ctx context.Context) {
	for w := range cr.writes {
		group := []pageWrite{w}
	more:
		for len(group) < maxGroup {
			select {
			case w, ok := <-cr.writes:
				if !ok {
					break more
				}
				group = append(group, w)
			default:
				break more
			}
		}
		items := make([]ports.KeyedCharge, len(group))
		for i, w := range group {
			items[i] = w.item
		}
		results, err := cr.r.d.Ledger.ChargeEach(ctx, cr.hold, items)
		for i := range group {
			group[i].item = ports.KeyedCharge{} // the page's body, written
			<-cr.slots
		}
		// What follows each commit (events, a refusal's own write) runs
		// beside the next commit, never in the finisher, which a write it
		// makes would wait on.
		go func() {
			for i, w := range group {
				res := ports.ChargeResult{Err: err}
				if err == nil {
					res = results[i]
				}
				w.then(res)
				group[i] = pageWrite{} // what the page's event holds, sent
				cr.pending.Done()
			}
		}()
		// The pages' links are in the frontier now: the loop may claim them.
		select {
		case cr.wake <- struct{}{}:
		default:
		}
	}
}

// finish ends a crawl: URLs left queued past the limit are skipped, the
// rest of the hold is released, the results are delivered and the job
// is finished.
func (cr *run) finish(ctx context.Context, cancelled bool) error {
	r := cr.r
	counts, err := cr.counts(ctx, cancelled)
	if err != nil {
		return err
	}
	if err := r.d.Ledger.Release(context.WithoutCancel(ctx), cr.hold); err != nil && !failure.Is(err, failure.NotFound) {
		r.log.Warn("releasing a crawl's hold", "crawl_id", cr.c.ID, "err", err)
	}
	acct, err := r.d.Accounts.AccountByID(ctx, cr.job.AccountID)
	if err != nil {
		return err
	}
	now := r.d.Clock.Now()
	job := cr.job
	job.Status, job.CompletedAt = ports.JobCompleted, &now
	if job.Email {
		if err := cr.mail(ctx, &job, acct, counts); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			r.log.Error("crawl results not mailed", "crawl_id", cr.c.ID, "err", err)
			job.Status, job.CompletedAt, job.FailedAt, job.Error = ports.JobFailed, nil, &now, failure.Public(err, "The results could not be delivered.")
		}
	}
	c := cr.c
	c.CancelRequested = cancelled
	st := Status{ID: cr.c.ID, Status: StatusOf(job, c), URL: cr.c.URL, Limit: cr.c.Limit, MaxDepth: cr.c.MaxDepth, Counts: counts,
		CreditsCharged: int64(CostPerPage * counts.Succeeded), QueuedAt: job.QueuedAt, StartedAt: job.StartedAt, CompletedAt: &now, Error: job.Error}
	cr.send(ctx, EventCompleted, st.Object())
	return r.d.Jobs.FinishJob(context.WithoutCancel(ctx), job, job.LeaseOwner)
}

// counts sums the ended frontier, once what is still queued past the
// limit is skipped.
func (cr *run) counts(ctx context.Context, cancelled bool) (ports.CrawlCounts, error) {
	r := cr.r
	counts, err := r.d.Crawls.CrawlCounts(ctx, cr.c.ID)
	if err != nil {
		return counts, err
	}
	if !cancelled && counts.Succeeded >= cr.c.Limit && counts.Queued > 0 {
		if _, err := r.d.Crawls.SkipQueued(ctx, cr.c.ID, SkipLimit, r.d.Clock.Now()); err != nil {
			return counts, err
		}
		return r.d.Crawls.CrawlCounts(ctx, cr.c.ID)
	}
	return counts, nil
}

// mail sends the ZIP of the crawl's pages, as a bulk job's.
func (cr *run) mail(ctx context.Context, job *ports.BulkJob, acct ports.Account, counts ports.CrawlCounts) error {
	var urls []ports.BulkURL
	after := int64(0)
	for {
		rows, err := cr.r.d.Crawls.CrawlPages(ctx, cr.c.ID, after, 500, false)
		if err != nil {
			return err
		}
		for _, u := range rows {
			after = u.Seq
			if u.State == ports.CrawlSkipped {
				continue
			}
			status := ports.URLSucceeded
			if u.State == ports.CrawlFailed {
				status = ports.URLFailed
			}
			urls = append(urls, ports.BulkURL{JobID: cr.c.ID, Index: len(urls), URL: u.URL, Status: status, StatusCode: u.StatusCode, Error: u.Error, Content: u.Content, Engine: u.Engine, Reason: u.Reason, FinishedAt: u.FinishedAt})
		}
		if len(rows) < 500 {
			break
		}
	}
	w := cr.r.d.Worker
	return w.MailArchive(ctx, job, acct, urls, func(link string) ports.Mail {
		return ResultsMail(w.MailFrom(), acct.Email, cr.c.ID, cr.c.URL, link, counts, w.LinkTTL())
	})
}

// send posts an event now; sendAsync in the background (a crawl does not
// wait on its receiver), finished before crawl-completed is sent.
func (cr *run) send(ctx context.Context, event string, payload any) {
	if cr.job.CallbackURL == "" {
		return
	}
	body, _ := json.Marshal(payload)
	cr.r.d.Worker.SendEvent(ctx, cr.job, event, body)
}

func (cr *run) sendAsync(event string, payload any) {
	if cr.job.CallbackURL == "" {
		return
	}
	cr.hooks.Add(1)
	go func() {
		defer cr.hooks.Done()
		cr.send(cr.hookCtx, event, payload)
	}()
}

// robotsFor is the robots.txt of u's origin: this node's copy, else the
// store's shared record, else a fresh fetch recorded for every node.
func (r *Runner) robotsFor(ctx context.Context, u *url.URL) (Robots, error) {
	origin := u.Scheme + "://" + u.Host
	now := r.d.Clock.Now()
	r.mu.Lock()
	p, ok := r.robots[origin]
	r.mu.Unlock()
	if ok && p.expiresAt.After(now) {
		return p.robots, nil
	}
	rec, err := loadRobotsRecord(ctx, r.d.Fetcher, r.d.Robots, r.d.Clock, u)
	if err != nil {
		return Robots{}, err
	}
	p = parsedRobots{robots: RobotsFrom(rec), expiresAt: rec.ExpiresAt}
	r.mu.Lock()
	r.robots[origin] = p
	r.mu.Unlock()
	return p.robots, nil
}

// parsedRobots is an origin's robots.txt as parsed from its record, kept
// until the record expires: a page does not parse it again.
type parsedRobots struct {
	robots    Robots
	expiresAt time.Time
}

func newToken() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// extract reads one page of the crawl with its options: those checked
// when the crawl was accepted, checked again against the server as it is
// now (a proxy country gone from the pool fails each page, free).
func (cr *run) extract(ctx context.Context, pages *content.Service, pageURL string, keep content.Keep) (content.Page, content.Source, error) {
	if cr.p.Options == nil {
		return pages.ExtractSourceIf(ctx, pageURL, cr.mode, content.Plan{}, keep)
	}
	plan, mode, err := pages.Plan(*cr.p.Options, cr.mode)
	if err != nil {
		return content.Page{URL: pageURL}, content.Source{}, err
	}
	return pages.ExtractSourceIf(ctx, pageURL, mode, plan, keep)
}
