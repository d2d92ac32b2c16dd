package bulk

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/trawlhq/trawl/core/credits"
	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/core/sitemap"
	"github.com/trawlhq/trawl/core/weburl"
	"github.com/trawlhq/trawl/ports"
)

// HoldTTL bounds how long a job's hold outlives a job nobody resumes.
const HoldTTL = 24 * time.Hour

// Service accepts bulk jobs and reports on them.
type Service struct {
	jobs     ports.JobStore
	ledger   ports.Ledger
	sitemaps ports.SitemapDiscoverer
	webhooks ports.WebhookSender
	guard    ports.AddressGuard
	worker   *Worker
	clock    ports.Clock
	rate     float64 // URLs per second, for estimates
}

// NewService builds the service. guard is the check the fetcher runs before
// every request, so a job refuses what a single call would refuse.
func NewService(jobs ports.JobStore, ledger ports.Ledger, sitemaps ports.SitemapDiscoverer, webhooks ports.WebhookSender, guard ports.AddressGuard, worker *Worker, clock ports.Clock) (*Service, error) {
	if jobs == nil || ledger == nil || sitemaps == nil || webhooks == nil || guard == nil || worker == nil || clock == nil {
		return nil, errors.New("bulk.NewService: jobs, ledger, sitemaps, webhooks, guard, worker and clock are required")
	}
	return &Service{jobs: jobs, ledger: ledger, sitemaps: sitemaps, webhooks: webhooks, guard: guard, worker: worker, clock: clock, rate: 4}, nil
}

// Ack is the acknowledgement of an accepted job.
type Ack struct {
	Message                 string
	JobID                   string
	URLsCount               int
	URLSource               ports.URLSource
	DeliveryMethod          string
	EstimatedCompletionTime string
	Status                  ports.JobStatus
	QueuedAt                time.Time
	Sync                    bool // processed inline: answer 200 rather than 202
}

// NewJobID is a fresh job id.
func NewJobID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return "job_" + hex.EncodeToString(b[:])
}

// Submit validates a request, resolves a sitemap, holds 2 credits per URL
// (the largest possible cost) and queues the job; with sync and at most 10
// URLs it processes the job inline before answering.
func (s *Service) Submit(ctx context.Context, call credits.Call, r Request) (Ack, error) {
	const op = "bulk.Submit"
	c, err := Validate(r)
	if err != nil {
		return Ack{}, err
	}
	options, err := s.pageOptions(r.Options, c.Render)
	if err != nil {
		return Ack{}, err
	}
	if c.Source == ports.SourceURLs {
		if bad := s.nonPublic(ctx, c.URLs); len(bad) > 0 {
			var fe failure.FieldErrors
			for _, i := range bad {
				fe.Add("urls."+strconv.Itoa(c.Index[i]), fmt.Sprintf(weburl.MsgNonPublic, "url"))
			}
			return Ack{}, fe.Err(op)
		}
	}
	if c.Source == ports.SourceSitemap {
		urls, err := s.sitemaps.Read(ctx, c.Sitemap, MaxURLs)
		if err != nil {
			return Ack{}, sitemap.ReadFailure(err, "sitemap")
		}
		switch {
		case len(urls) == 0:
			return Ack{}, failure.Invalidf(op, "sitemap", "The sitemap lists no URL.")
		case len(urls) > MaxURLs:
			return Ack{}, failure.Invalidf(op, "sitemap", "The sitemap lists more than %d URLs; send them in batches with urls.", MaxURLs)
		}
		c.URLs, err = s.sitemapURLs(ctx, urls)
		if err != nil {
			return Ack{}, err
		}
	}
	if c.CallbackURL != "" {
		if err := weburl.CheckCallback(ctx, s.webhooks, c.CallbackURL, "callback_url"); err != nil {
			return Ack{}, err
		}
	}
	// The job's hold is durable: a restarted process resumes the job, and
	// the credits must stay reserved for it.
	hold, err := s.ledger.Reserve(ctx, ports.ReserveRequest{
		AccountID: call.Principal.Account.ID, TokenID: call.Principal.Token.ID, Amount: int64(CostPerURL * len(c.URLs)), TTL: HoldTTL,
		Durable: true,
	})
	if err != nil {
		return Ack{}, err
	}
	now := s.clock.Now()
	sync := r.Sync && len(c.URLs) <= SyncThreshold
	job := ports.BulkJob{
		ID: NewJobID(), AccountID: call.Principal.Account.ID, TokenID: call.Principal.Token.ID, Status: ports.JobQueued,
		URLSource: c.Source, Sitemap: c.Sitemap, Email: r.Email, CallbackURL: c.CallbackURL, Sync: sync, HoldID: hold.ID,
		RequestID: call.RequestID, QueuedAt: now, Render: string(c.Render), TraceParent: traceParent(s.worker.traceParent(ctx, r.TraceParent)),
		CacheMaxAge: c.MaxAge, CacheNoStore: r.NoStore, Changes: r.Changes, ChangeTag: c.Tag,
		PageOptions: options,
	}
	if sync {
		job.Status, job.LeaseOwner, job.LeaseUntil = ports.JobProcessing, "sync-"+job.ID, now.Add(s.worker.Lease())
		job.StartedAt = &now
	}
	if err := s.jobs.CreateJob(ctx, job, c.URLs); err != nil {
		_ = s.ledger.Release(context.WithoutCancel(ctx), hold)
		return Ack{}, failure.Wrap(op, err)
	}
	ack := Ack{JobID: job.ID, URLsCount: len(c.URLs), URLSource: c.Source, DeliveryMethod: DeliveryMethod(r.Email, c.CallbackURL), Status: ports.JobQueued, QueuedAt: now}
	if sync {
		job.URLsCount = len(c.URLs)
		if err := s.worker.Process(context.WithoutCancel(ctx), job); err != nil {
			return Ack{}, err
		}
		ack.Message, ack.EstimatedCompletionTime, ack.Sync = fmt.Sprintf("Processed %d URL(s); the results were delivered by %s.", len(c.URLs), ack.DeliveryMethod), "Completed", true
		return ack, nil
	}
	ahead, _ := s.jobs.PendingURLs(ctx)
	ack.EstimatedCompletionTime = Estimate(ahead-len(c.URLs), len(c.URLs), s.rate)
	ack.Message = fmt.Sprintf("Queued %d URL(s); the results will be delivered by %s.", len(c.URLs), ack.DeliveryMethod)
	if r.Sync {
		ack.Message = fmt.Sprintf("More than %d URLs cannot run synchronously: queued %d URL(s) instead; the results will be delivered by %s.", SyncThreshold, len(c.URLs), ack.DeliveryMethod)
	}
	s.worker.Wake()
	return ack, nil
}

// sitemapURLs applies the URL rules and the address check to a sitemap's
// entries: entries that break them (a raw IP, another port, a host that
// resolves to a non-public address) are dropped, as they could never be
// fetched.
func (s *Service) sitemapURLs(ctx context.Context, urls []string) ([]string, error) {
	c, err := Validate(Request{URLs: urls, Email: true})
	if err != nil {
		c = Checked{}
		for _, u := range urls {
			if cc, err := Validate(Request{URLs: []string{u}, Email: true}); err == nil {
				c.URLs = append(c.URLs, cc.URLs...)
			}
		}
	}
	bad := map[int]bool{}
	for _, i := range s.nonPublic(ctx, c.URLs) {
		bad[i] = true
	}
	var keep []string
	for i, u := range c.URLs {
		if !bad[i] {
			keep = append(keep, u)
		}
	}
	if len(keep) == 0 {
		return nil, failure.Invalidf("bulk.Submit", "sitemap", "The sitemap lists no URL Trawl can fetch.")
	}
	return keep, nil
}

// Bounds of the address check at submission.
const (
	guardConcurrency = 8
	guardTimeout     = 5 * time.Second
)

// nonPublic runs the fetcher's address check on each distinct host of urls,
// at most guardConcurrency at once and within guardTimeout, and returns the
// positions of the URLs whose host resolves to a non-public address. A host
// that cannot be resolved now is left to the fetch, which fails that URL
// alone, uncharged.
func (s *Service) nonPublic(ctx context.Context, urls []string) []int {
	ctx, cancel := context.WithTimeout(ctx, guardTimeout)
	defer cancel()
	byHost := map[string][]int{}
	var hosts []string
	for i, raw := range urls {
		u, err := url.Parse(raw)
		if err != nil {
			continue
		}
		key := u.Scheme + "://" + strings.ToLower(u.Host)
		if byHost[key] == nil {
			hosts = append(hosts, key)
		}
		byHost[key] = append(byHost[key], i)
	}
	refused := make([]bool, len(hosts))
	sem := make(chan struct{}, guardConcurrency)
	var wg sync.WaitGroup
	for h, key := range hosts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			err := weburl.CheckHost(ctx, s.guard, urls[byHost[key][0]], "url")
			refused[h] = failure.Is(err, failure.Invalid)
		}()
	}
	wg.Wait()
	var bad []int
	for h, key := range hosts {
		if refused[h] {
			bad = append(bad, byHost[key]...)
		}
	}
	sort.Ints(bad)
	return bad
}

// Status is a job as its owner sees it.
type Status struct {
	Job        ports.BulkJob
	URLs       []ports.BulkURL
	Deliveries []ports.DeliveryAttempt
	Download   string
	// Processed, Succeeded and Failed count the URLs done so far.
	Processed, Succeeded, Failed int
	// DeliveryMethod names the channels the result goes to ("email,webhook").
	DeliveryMethod string
}

// MsgJobNotFound is what every caller is told of a job that does not exist
// or belongs to another account (the two are not told apart).
const MsgJobNotFound = "Job not found."

// Status reads a job of the caller's account; another account's job is NotFound.
func (s *Service) Status(ctx context.Context, accountID int64, jobID string) (Status, error) {
	notFound := failure.E("bulk.Status", failure.NotFound, MsgJobNotFound)
	if !plausibleJobID(jobID) {
		return Status{}, notFound // no job has such an id; the store is not asked
	}
	j, err := s.jobs.Job(ctx, jobID)
	switch {
	case failure.Is(err, failure.NotFound):
		return Status{}, notFound
	case err != nil:
		// The store could not answer: that is not the job missing.
		return Status{}, failure.Wrap("bulk.Status", err)
	case j.AccountID != accountID, j.Kind != "" && j.Kind != ports.KindBulk:
		return Status{}, notFound
	}
	urls, err := s.jobs.JobURLs(ctx, jobID)
	if err != nil {
		return Status{}, failure.Wrap("bulk.Status", err)
	}
	ds, err := s.jobs.Deliveries(ctx, jobID)
	if err != nil {
		return Status{}, failure.Wrap("bulk.Status", err)
	}
	st := Status{Job: j, URLs: urls, Deliveries: ds, DeliveryMethod: DeliveryMethod(j.Email, j.CallbackURL)}
	st.Processed, st.Succeeded, st.Failed = Counts(urls)
	if j.ArchiveKey != "" {
		st.Download, _ = s.worker.ArchiveLink(ctx, j.ArchiveKey)
	}
	return st, nil
}

// PlausibleJobID reports whether id could name a job: anything else is
// not found without asking the store.
func PlausibleJobID(id string) bool { return plausibleJobID(id) }

// plausibleJobID: job ids are short runs of letters, digits, '_' and '-'.
func plausibleJobID(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for _, c := range id {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// Counts sums a job's URL outcomes.
func Counts(urls []ports.BulkURL) (processed, succeeded, failed int) {
	for _, u := range urls {
		switch u.Status {
		case ports.URLSucceeded:
			succeeded++
		case ports.URLFailed:
			failed++
		}
	}
	return succeeded + failed, succeeded, failed
}

// traceParent keeps a W3C traceparent (version-traceid-parentid-flags, 55
// characters of lowercase hex and dashes) and drops anything else: the
// value only links the job's later work to the request's trace.
func traceParent(s string) string {
	if len(s) != 55 || s[2] != '-' || s[35] != '-' || s[52] != '-' {
		return ""
	}
	for i, c := range s {
		if i == 2 || i == 35 || i == 52 {
			continue
		}
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return ""
		}
	}
	return s
}
