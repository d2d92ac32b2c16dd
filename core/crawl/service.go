package crawl

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/trawlhq/trawl/core/bulk"
	"github.com/trawlhq/trawl/core/cache"
	"github.com/trawlhq/trawl/core/changes"
	"github.com/trawlhq/trawl/core/content"
	"github.com/trawlhq/trawl/core/credits"
	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/core/weburl"
	"github.com/trawlhq/trawl/ports"
)

// HoldTTL bounds how long a crawl's hold outlives a crawl nobody resumes.
const HoldTTL = 72 * time.Hour

// Pages paging bounds.
const (
	MinPerPage     = 1
	MaxPerPage     = 100
	DefaultPerPage = 20
)

// Request is a crawl as the caller asked for it. A nil pointer or slice
// was not given and takes the default.
type Request struct {
	URL               string
	Limit             *int
	MaxDepth          *int
	Include, Exclude  []string
	Scope             string
	Sitemap           string
	IgnoreQueryParams []string // nil: DefaultIgnoreParams
	Render            string
	CallbackURL       string
	Email             bool
	TraceParent       string
	// MaxAge (seconds) and NoStore are the page cache's request for every
	// page of the crawl (max_age, store: false).
	MaxAge  int64
	NoStore bool
	// Changes compares every page with the account's previous snapshot of
	// it under Tag (changes=true).
	Changes bool
	Tag     string
	// Options are each page's formats, actions and page options.
	Options content.Options
}

// Params are a crawl's rules as stored with it.
type Params struct {
	Include           []string    `json:"include,omitempty"`
	Exclude           []string    `json:"exclude,omitempty"`
	Scope             Scope       `json:"scope"`
	Sitemap           SitemapMode `json:"sitemap"`
	IgnoreQueryParams []string    `json:"ignore_query_params"`
	Render            string      `json:"render,omitempty"`
	MaxAge            int64       `json:"max_age,omitempty"` // seconds
	NoStore           bool        `json:"no_store,omitempty"`
	Changes           bool        `json:"changes,omitempty"`
	Tag               string      `json:"tag,omitempty"`
	// Options, checked when the crawl was accepted, apply to every page.
	Options *content.Options `json:"options,omitempty"`
}

// Checked is a validated request.
type Checked struct {
	URL      string
	Limit    int
	MaxDepth int
	Params   Params
	// CallbackURL is the checked webhook URL; empty when none.
	CallbackURL string
}

// Validate checks a request without the network; every bad value is named.
func Validate(r Request) (Checked, error) {
	const op = "crawl.Validate"
	var fe failure.FieldErrors
	c := Checked{Limit: DefaultLimit, MaxDepth: DefaultMaxDepth}
	u, err := weburl.Parse(r.URL, weburl.Rules{Field: "url"})
	if err != nil {
		addFields(&fe, err)
	} else {
		c.URL = u.String()
	}
	if r.Limit != nil {
		if *r.Limit < MinLimit || *r.Limit > MaxLimit {
			fe.Add("limit", fmt.Sprintf("The limit must be between %d and %d.", MinLimit, MaxLimit))
		}
		c.Limit = *r.Limit
	}
	if r.MaxDepth != nil {
		if *r.MaxDepth < 0 || *r.MaxDepth > MaxMaxDepth {
			fe.Add("max_depth", fmt.Sprintf("The max_depth must be between 0 and %d.", MaxMaxDepth))
		}
		c.MaxDepth = *r.MaxDepth
	}
	// The patterns are checked here; the runner compiles them from Params.
	check := func(field string, list []string) {
		if len(list) > MaxPatterns {
			fe.Add(field, fmt.Sprintf("The %s may not have more than %d patterns.", field, MaxPatterns))
			return
		}
		for i, s := range list {
			name := field + "." + strconv.Itoa(i)
			if len(s) > MaxPatternLen {
				fe.Add(name, fmt.Sprintf("A pattern may not be longer than %d characters.", MaxPatternLen))
				continue
			}
			if _, err := CompilePattern(s); err != nil {
				fe.Add(name, "The pattern is not a valid glob, or after re: a valid RE2 regular expression.")
			}
		}
	}
	check("include", r.Include)
	check("exclude", r.Exclude)
	c.Params.Include, c.Params.Exclude = r.Include, r.Exclude
	switch Scope(r.Scope) {
	case "":
		c.Params.Scope = ScopeHost
	case ScopeHost, ScopeDomain, ScopeSubdomains:
		c.Params.Scope = Scope(r.Scope)
	default:
		fe.Add("scope", "The scope must be host, domain or subdomains.")
	}
	switch SitemapMode(r.Sitemap) {
	case "":
		c.Params.Sitemap = SitemapInclude
	case SitemapInclude, SitemapSkip, SitemapOnly:
		c.Params.Sitemap = SitemapMode(r.Sitemap)
	default:
		fe.Add("sitemap", "The sitemap must be include, skip or only.")
	}
	c.Params.IgnoreQueryParams = r.IgnoreQueryParams
	if r.IgnoreQueryParams == nil {
		c.Params.IgnoreQueryParams = DefaultIgnoreParams
	}
	if len(c.Params.IgnoreQueryParams) > MaxIgnoreParams {
		fe.Add("ignore_query_params", fmt.Sprintf("The ignore_query_params may not have more than %d names.", MaxIgnoreParams))
	}
	for i, p := range c.Params.IgnoreQueryParams {
		if p == "" || len(p) > 100 {
			fe.Add("ignore_query_params."+strconv.Itoa(i), "A parameter name must have 1 to 100 characters.")
		}
	}
	if mode, err := content.ParseRenderMode(r.Render, "render"); err != nil {
		addFields(&fe, err)
	} else {
		c.Params.Render = string(mode)
	}
	if d, err := cache.ParseMaxAge(r.MaxAge, cache.FieldMaxAge); err != nil {
		addFields(&fe, err)
	} else {
		c.Params.MaxAge, c.Params.NoStore = int64(d/time.Second), r.NoStore
	}
	if tag, err := changes.ParseTag(r.Tag, "tag"); err != nil {
		addFields(&fe, err)
	} else {
		c.Params.Changes, c.Params.Tag = r.Changes, tag
	}
	if cb := strings.TrimSpace(r.CallbackURL); cb != "" {
		u, err := bulk.ParseCallback(cb)
		addFields(&fe, err)
		c.CallbackURL = u
	}
	if err := fe.Err(op); err != nil {
		return Checked{}, err
	}
	return c, nil
}

// addFields adds the field errors of err to fe.
func addFields(fe *failure.FieldErrors, err error) {
	if e, ok := failure.As(err); ok {
		for f, msgs := range e.Fields {
			for _, m := range msgs {
				fe.Add(f, m)
			}
		}
	}
}

// rules compiles stored params (already valid).
func (p Params) rules(maxDepth int, startHost string) Rules {
	var f Filter
	for _, s := range p.Include {
		if pt, err := CompilePattern(s); err == nil {
			f.Include = append(f.Include, pt)
		}
	}
	for _, s := range p.Exclude {
		if pt, err := CompilePattern(s); err == nil {
			f.Exclude = append(f.Exclude, pt)
		}
	}
	return Rules{Norm: NewNormalizer(p.IgnoreQueryParams), Filter: f, Scope: NewScoper(p.Scope, startHost), MaxDepth: maxDepth}
}

// Ack answers an accepted crawl.
type Ack struct {
	CrawlID  string
	Status   string
	URL      string
	Limit    int
	MaxDepth int
	QueuedAt time.Time
}

// Service accepts crawls and reports on them.
type Service struct {
	jobs     ports.JobStore
	crawls   ports.CrawlStore
	ledger   ports.Ledger
	webhooks ports.WebhookSender
	guard    ports.AddressGuard
	worker   *bulk.Worker
	clock    ports.Clock
	pages    *content.Service // checks the page options; nil: none are taken
	memo     countsMemo
}

// Option configures a Service.
type Option func(*Service)

// WithPages lets crawls take formats, actions and page options, checked by
// the content service that reads their pages.
func WithPages(p *content.Service) Option { return func(s *Service) { s.pages = p } }

// NewService builds the service.
func NewService(jobs ports.JobStore, crawls ports.CrawlStore, ledger ports.Ledger, webhooks ports.WebhookSender, guard ports.AddressGuard, worker *bulk.Worker, clock ports.Clock, opts ...Option) (*Service, error) {
	if jobs == nil || crawls == nil || ledger == nil || webhooks == nil || guard == nil || worker == nil || clock == nil {
		return nil, errors.New("crawl.NewService: every dependency is required")
	}
	s := &Service{jobs: jobs, crawls: crawls, ledger: ledger, webhooks: webhooks, guard: guard, worker: worker, clock: clock}
	for _, o := range opts {
		o(s)
	}
	return s, nil
}

// NewCrawlID is a fresh crawl id.
func NewCrawlID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return "crawl_" + hex.EncodeToString(b[:])
}

// Submit validates a crawl, holds CostPerPage credits per page of its
// limit (InsufficientCredits, a 402, when the balance cannot cover it) and
// queues it.
func (s *Service) Submit(ctx context.Context, call credits.Call, r Request) (Ack, error) {
	const op = "crawl.Submit"
	c, err := Validate(r)
	if err != nil {
		return Ack{}, err
	}
	if !r.Options.Empty() {
		if s.pages == nil {
			return Ack{}, failure.Invalidf(op, "formats", "This server's crawls do not take formats or page options.")
		}
		if _, _, err := s.pages.Plan(r.Options, content.RenderMode(c.Params.Render)); err != nil {
			return Ack{}, err
		}
		o := r.Options
		c.Params.Options = &o
	}
	if err := weburl.CheckHost(ctx, s.guard, c.URL, "url"); failure.Is(err, failure.Invalid) {
		return Ack{}, err
	}
	if c.CallbackURL != "" {
		if err := weburl.CheckCallback(ctx, s.webhooks, c.CallbackURL, "callback_url"); err != nil {
			return Ack{}, err
		}
	}
	params, _ := json.Marshal(c.Params)
	hold, err := s.ledger.Reserve(ctx, ports.ReserveRequest{
		AccountID: call.Principal.Account.ID, TokenID: call.Principal.Token.ID, Amount: int64(CostPerPage * c.Limit), TTL: HoldTTL, Durable: true,
	})
	if err != nil {
		return Ack{}, err
	}
	now := s.clock.Now()
	job := ports.BulkJob{
		ID: NewCrawlID(), AccountID: call.Principal.Account.ID, TokenID: call.Principal.Token.ID, Status: ports.JobQueued, URLSource: ports.URLSource("crawl"),
		Email: r.Email, CallbackURL: c.CallbackURL, HoldID: hold.ID, RequestID: call.RequestID, QueuedAt: now, Render: c.Params.Render, TraceParent: r.TraceParent, Kind: ports.KindCrawl,
	}
	if err := s.crawls.CreateCrawl(ctx, job, ports.Crawl{URL: c.URL, Limit: c.Limit, MaxDepth: c.MaxDepth, Params: params}); err != nil {
		_ = s.ledger.Release(context.WithoutCancel(ctx), hold)
		return Ack{}, failure.Wrap(op, err)
	}
	s.worker.Wake()
	return Ack{CrawlID: job.ID, Status: "queued", URL: c.URL, Limit: c.Limit, MaxDepth: c.MaxDepth, QueuedAt: now}, nil
}

// MsgNotFound is what a caller is told of a crawl that does not exist or
// belongs to another account.
const MsgNotFound = "Crawl not found."

// Status is a crawl as its owner sees it.
type Status struct {
	ID       string
	Status   string
	URL      string
	Limit    int
	MaxDepth int
	Counts   ports.CrawlCounts
	// CreditsCharged is what the succeeded pages cost.
	CreditsCharged int64
	QueuedAt       time.Time
	StartedAt      *time.Time
	CompletedAt    *time.Time
	Error          string
}

func (s *Service) owned(ctx context.Context, accountID int64, id string) (ports.BulkJob, ports.Crawl, error) {
	notFound := failure.E("crawl.Status", failure.NotFound, MsgNotFound)
	if !bulk.PlausibleJobID(id) {
		return ports.BulkJob{}, ports.Crawl{}, notFound
	}
	j, err := s.jobs.Job(ctx, id)
	switch {
	case failure.Is(err, failure.NotFound):
		return j, ports.Crawl{}, notFound
	case err != nil:
		return j, ports.Crawl{}, failure.Wrap("crawl.Status", err)
	case j.AccountID != accountID || j.Kind != ports.KindCrawl:
		return j, ports.Crawl{}, notFound
	}
	c, err := s.crawls.Crawl(ctx, id)
	if err != nil {
		return j, c, failure.Wrap("crawl.Status", err)
	}
	return j, c, nil
}

// StatusOf names a crawl's state: queued, running, completed, cancelled
// or failed.
func StatusOf(j ports.BulkJob, c ports.Crawl) string {
	switch j.Status {
	case ports.JobQueued:
		if c.CancelRequested {
			return "cancelled"
		}
		return "queued"
	case ports.JobProcessing:
		return "running"
	case ports.JobFailed:
		return "failed"
	}
	if c.CancelRequested {
		return "cancelled"
	}
	return "completed"
}

// Status reads a crawl of the caller's account: two reads, never a wait.
// The counts of a running crawl are this node's memo of them when it is
// younger than CountsMemo (a crawl's dashboard and its clients' wait
// loops poll several times a second, and counting a frontier of 10,000
// URLs costs what extracting a page does); a crawl that is queued, has
// ended or is being cancelled is counted at every call, so the counts of
// a finished crawl are exact on every node.
func (s *Service) Status(ctx context.Context, accountID int64, id string) (Status, error) {
	return s.status(ctx, accountID, id, true)
}

// CountsMemo is how long a node reuses the counts of a running crawl for
// its status: every node's counts are at most this old.
const CountsMemo = time.Second

func (s *Service) status(ctx context.Context, accountID int64, id string, memo bool) (Status, error) {
	j, c, err := s.owned(ctx, accountID, id)
	if err != nil {
		return Status{}, err
	}
	now := s.clock.Now()
	running := j.Status == ports.JobProcessing && !c.CancelRequested
	counts, ok := ports.CrawlCounts{}, false
	if running && memo {
		counts, ok = s.memo.get(id, now)
	}
	if !ok {
		if counts, err = s.crawls.CrawlCounts(ctx, id); err != nil {
			return Status{}, failure.Wrap("crawl.Status", err)
		}
		if running {
			s.memo.put(id, counts, now)
		} else {
			s.memo.drop(id)
		}
	}
	end := j.CompletedAt
	if end == nil {
		end = j.FailedAt
	}
	return Status{ID: id, Status: StatusOf(j, c), URL: c.URL, Limit: c.Limit, MaxDepth: c.MaxDepth, Counts: counts, CreditsCharged: int64(CostPerPage * counts.Succeeded),
		QueuedAt: j.QueuedAt, StartedAt: j.StartedAt, CompletedAt: end, Error: j.Error}, nil
}

// Page is one extracted page of a crawl.
type Page struct {
	Content content.Object
	Depth   int
	Parent  string
}

// PageList is one page of a crawl's extracted pages.
type PageList struct {
	Pages []Page
	// Next is the cursor of the following pages; empty at the end (of a
	// crawl that is over; a running crawl always gives one).
	Next string
}

// Pages lists a crawl's extracted pages in the order they finished.
func (s *Service) Pages(ctx context.Context, accountID int64, id, cursor string, perPage *int) (PageList, error) {
	const op = "crawl.Pages"
	n := DefaultPerPage
	if perPage != nil {
		if *perPage < MinPerPage || *perPage > MaxPerPage {
			return PageList{}, failure.Invalidf(op, "per_page", "The per_page must be between %d and %d.", MinPerPage, MaxPerPage)
		}
		n = *perPage
	}
	after := int64(0)
	if cursor != "" {
		v, err := strconv.ParseInt(cursor, 10, 64)
		if err != nil || v < 0 {
			return PageList{}, failure.Invalidf(op, "cursor", "The cursor is not one a pages answer gave.")
		}
		after = v
	}
	j, _, err := s.owned(ctx, accountID, id)
	if err != nil {
		return PageList{}, err
	}
	rows, err := s.crawls.CrawlPages(ctx, id, after, n, true)
	if err != nil {
		return PageList{}, failure.Wrap(op, err)
	}
	out := PageList{Pages: make([]Page, 0, len(rows))}
	for _, r := range rows {
		var obj content.Object
		_ = json.Unmarshal(r.Content, &obj)
		out.Pages = append(out.Pages, Page{Content: obj, Depth: r.Depth, Parent: r.Parent})
		after = r.Seq
	}
	running := j.Status == ports.JobQueued || j.Status == ports.JobProcessing
	if len(rows) == n || running {
		out.Next = strconv.FormatInt(after, 10)
	}
	return out, nil
}

// Cancel stops a crawl: the pages in flight finish, nothing more starts,
// and the rest of the hold is released when it ends.
// A crawl that has already ended stays as it ended.
func (s *Service) Cancel(ctx context.Context, accountID int64, id string) (Status, error) {
	j, _, err := s.owned(ctx, accountID, id)
	if err != nil {
		return Status{}, err
	}
	if j.Status == ports.JobCompleted || j.Status == ports.JobFailed {
		return s.status(ctx, accountID, id, false)
	}
	if err := s.crawls.CancelCrawl(ctx, id); err != nil {
		return Status{}, failure.Wrap("crawl.Cancel", err)
	}
	s.worker.Wake()
	return s.status(ctx, accountID, id, false)
}
