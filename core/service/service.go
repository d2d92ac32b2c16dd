// Package service assembles the application: every core use case, built
// once from the store ports and the outbound ports. Each delivery (REST,
// RPC, MCP, the dashboard, the operator's commands) takes the one Services
// value it makes, plus its own transport settings.
package service

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/trawlhq/trawl/core/account"
	"github.com/trawlhq/trawl/core/auth"
	"github.com/trawlhq/trawl/core/billing"
	"github.com/trawlhq/trawl/core/bulk"
	"github.com/trawlhq/trawl/core/call"
	"github.com/trawlhq/trawl/core/content"
	"github.com/trawlhq/trawl/core/crawl"
	"github.com/trawlhq/trawl/core/credits"
	"github.com/trawlhq/trawl/core/idempotency"
	"github.com/trawlhq/trawl/core/monitor"
	"github.com/trawlhq/trawl/core/prompt"
	"github.com/trawlhq/trawl/core/search"
	"github.com/trawlhq/trawl/core/sitemap"
	"github.com/trawlhq/trawl/core/structured"
	"github.com/trawlhq/trawl/ports"
)

// Stores are every store port the core runs over. One SQL store fills them
// all in production; tests fill them with the in-memory store or fakes.
type Stores struct {
	Accounts    ports.AccountStore
	Tokens      ports.TokenStore
	Ledger      ports.LedgerStore
	Idempotency ports.IdempotencyStore
	Jobs        ports.JobStore
	// JobList lists an account's jobs for the dashboard.
	JobList ports.JobLister
	// Credentials keep passwords, sessions and email links (the dashboard).
	Credentials ports.CredentialStore
	// PaymentEvents and PlanCheckouts record what the payment provider
	// reported, once each.
	PaymentEvents ports.PaymentEventStore
	PlanCheckouts ports.PlanCheckoutStore
	// Crawls, Robots and Hosts keep crawl frontiers, robots.txt and the
	// per-host politeness shared by a fleet (nil Crawls: no /v1/crawl).
	Crawls ports.CrawlStore
	Robots ports.RobotsCache
	Hosts  ports.HostGate
	// Cache is the page cache's index (nil, or Options.CacheMaxBytes 0:
	// no page cache); Snapshots keep change tracking's snapshots (nil:
	// changes=true is not offered).
	Cache     ports.CacheIndex
	Snapshots ports.SnapshotStore
	// Monitors keep monitors and their checks (nil, or no Snapshots: no
	// /v1/monitors).
	Monitors ports.MonitorStore
}

// Outbound are the ports through which the core reaches beyond itself:
// the web, mail, files, payments, the limiter and the clock. Whoever wraps
// them (metrics, tracing) does so before they are handed here.
type Outbound struct {
	Clock    ports.Clock
	Payments ports.PaymentProvider
	Limiter  ports.RateLimiter

	Fetcher ports.Fetcher
	// CrawlFetcher and CrawlSitemaps read for crawls and map's link
	// discovery, under the crawler's User-Agent; nil: Fetcher and
	// Discoverer.
	CrawlFetcher  ports.Fetcher
	CrawlSitemaps ports.SitemapDiscoverer
	Guard         ports.AddressGuard // the fetcher's address check, for bulk submissions
	Extractor     ports.Extractor
	Discoverer    ports.SitemapDiscoverer
	Engines       []ports.SearchEngine
	LLM           ports.LLM
	Schemas       ports.SchemaCompiler
	Webhooks      ports.WebhookSender
	Mailer        ports.Mailer
	Blobs         ports.BlobStore
	// Documents convert PDF and DOCX responses on the content path (none:
	// documents are refused like any non-HTML response).
	Documents map[ports.DocumentFormat]ports.DocumentConverter
	// Renderer reads pages in a browser; nil when none is configured.
	Renderer ports.Renderer
	// Passwords hash the dashboard's passwords.
	Passwords ports.PasswordHasher
	// Differ writes change tracking's diffs.
	Differ ports.TextDiffer

	// Countries are those of the fetch proxy pool: a call's country may
	// pick one of them.
	Countries []string
}

// Options tune the core services.
type Options struct {
	Pricing credits.Pricing
	// Plans is the plan table: allowances, token caps, per-minute limits
	// (zero: the default one).
	Plans           billing.Plans
	LLMContextChars int
	Worker          bulk.WorkerOptions
	Crawl           crawl.RunnerOptions
	// Documents bound PDF and DOCX conversion (zero values: the defaults).
	Documents content.DocumentLimits
	// Account sets the dashboard's links and sender.
	Account account.Options
	// LinkTTL is how long a link to a job's results stays valid.
	LinkTTL time.Duration
	// WrapLedger decorates the ledger billed calls and bulk jobs move
	// credits through (metrics, tracing); nil: none.
	WrapLedger func(ports.Ledger) ports.Ledger
	// Jobs links each bulk job's processing to the request that queued it
	// (tracing); nil: none.
	Jobs   ports.JobTracer
	Logger *slog.Logger
	// CacheMaxBytes bounds the page cache; 0: no page cache.
	CacheMaxBytes int64
	// ChangesRetention is how long change snapshots are kept (0: 90 days).
	ChangesRetention time.Duration
	// Monitors tune how often each node looks for due monitors.
	Monitors monitor.SchedulerOptions
}

// Services are the core use cases every delivery calls.
type Services struct {
	Auth    *auth.Service
	Credits *credits.Service
	// Secrets show and rotate an account's webhook signing secret.
	Secrets *bulk.Secrets

	Ledger      *credits.Ledger
	Biller      *credits.Biller
	Idempotency *idempotency.Service
	// Calls runs every billed call: limits, idempotency, the charge.
	Calls   *call.Pipeline
	Content *content.Service
	Sitemap *sitemap.Service
	Search  *search.Service
	Prompt  *prompt.Service
	// Extract runs /v1/extract: schema-shaped data from a page.
	Extract *structured.Service
	Bulk    *bulk.Service
	Worker  *bulk.Worker
	// Crawl runs /v1/crawl; its jobs run on Worker's queue (nil without
	// a crawl store).
	Crawl *crawl.Service
	// Monitors keep an account's monitors; Scheduler starts their checks,
	// which run on Worker's queue (nil without a monitor store).
	Monitors  *monitor.Service
	Scheduler *monitor.Scheduler

	// Accounts, Jobs and Payments are the dashboard's (nil without a
	// credential store).
	Accounts *account.Service
	Jobs     *bulk.JobList
	Payments *credits.Payments
}

// New builds the core over the store ports and the outbound ports. Without
// a Fetcher it builds only what needs no outbound adapter (accounts, tokens,
// credits, webhook secrets): all the operator's commands use.
func New(st Stores, out Outbound, o Options) (*Services, error) {
	s := &Services{}
	var err error
	if s.Auth, err = auth.NewService(st.Accounts, st.Tokens, out.Clock, o.Plans); err != nil {
		return nil, err
	}
	if s.Credits, err = credits.NewService(st.Ledger, st.Accounts, out.Payments, out.Clock, o.Pricing, o.Plans); err != nil {
		return nil, err
	}
	if s.Secrets, err = bulk.NewSecrets(st.Accounts); err != nil {
		return nil, err
	}
	if out.Fetcher == nil {
		return s, nil
	}
	if err := s.web(st, out, o); err != nil {
		return nil, err
	}
	if st.Credentials == nil {
		return s, nil
	}
	if s.Accounts, err = account.NewService(st.Accounts, st.Credentials, out.Passwords, out.Mailer, out.Limiter, out.Clock, o.Account); err != nil {
		return nil, err
	}
	if s.Jobs, err = bulk.NewJobList(st.JobList, out.Blobs, o.LinkTTL); err != nil {
		return nil, err
	}
	if s.Payments, err = credits.NewPayments(s.Credits, st.PaymentEvents, st.PlanCheckouts, out.Clock); err != nil {
		return nil, err
	}
	return s, nil
}

// web builds the billed capabilities: content, sitemaps, search, prompts,
// extraction, bulk jobs and crawls.
func (s *Services) web(st Stores, out Outbound, o Options) error {
	clk, log := out.Clock, o.Logger
	var err error
	if s.Ledger, err = credits.NewLedger(st.Ledger, clk, credits.WithLogger(log), credits.WithPlans(o.Plans)); err != nil {
		return err
	}
	var ledger ports.Ledger = s.Ledger
	if o.WrapLedger != nil {
		ledger = o.WrapLedger(ledger)
	}
	if s.Biller, err = credits.NewBiller(ledger, st.Ledger, clk, o.Plans); err != nil {
		return err
	}
	if s.Idempotency, err = idempotency.NewService(st.Idempotency, clk); err != nil {
		return err
	}
	if s.Calls, err = call.NewPipeline(out.Limiter, o.Plans, s.Idempotency, call.WithBalance(func(ctx context.Context, accountID int64) (int64, error) {
		st, err := s.Credits.Status(ctx, accountID)
		return st.Balance, err
	})); err != nil {
		return err
	}
	var copts []content.Option
	if out.Documents != nil {
		copts = append(copts, content.WithDocuments(o.Documents, out.Documents))
	}
	if out.Renderer != nil {
		copts = append(copts, content.WithRenderer(out.Renderer))
	}
	if copts, err = withCacheAndChanges(copts, st, out, clk, o); err != nil {
		return err
	}
	if out.Blobs != nil {
		copts = append(copts, content.WithScreenshots(out.Blobs, 0, clk.Now))
	}
	if len(out.Countries) > 0 {
		copts = append(copts, content.WithCountries(out.Countries))
	}
	if s.Content, err = content.NewService(out.Fetcher, out.Extractor, s.Biller, copts...); err != nil {
		return err
	}
	crawlFetcher, crawlSitemaps := out.Fetcher, out.Discoverer
	ownAgent := out.CrawlFetcher != nil && out.CrawlSitemaps != nil
	if ownAgent {
		crawlFetcher, crawlSitemaps = out.CrawlFetcher, out.CrawlSitemaps
	}
	var mapOpts []sitemap.Option
	if st.Robots != nil {
		links, err := crawl.NewLinkMapper(crawlFetcher, st.Robots, clk, o.Crawl.IgnoreRobots)
		if err != nil {
			return err
		}
		mapOpts = append(mapOpts, sitemap.WithLinks(links))
	}
	if s.Sitemap, err = sitemap.NewService(out.Discoverer, s.Biller, mapOpts...); err != nil {
		return err
	}
	if s.Search, err = search.NewService(out.Engines, s.Content, s.Biller); err != nil {
		return err
	}
	if s.Prompt, err = prompt.NewService(out.LLM, s.Content, s.Biller, o.LLMContextChars); err != nil {
		return err
	}
	if out.Schemas == nil {
		return errors.New("service.New: a schema compiler is required")
	}
	if s.Extract, err = structured.NewService(out.LLM, out.Schemas, s.Content, s.Biller, o.LLMContextChars); err != nil {
		return err
	}
	jobs := bulk.TagLedger(ledger)
	s.Worker, err = bulk.NewWorker(bulk.WorkerDeps{Jobs: st.Jobs, Accounts: st.Accounts, Ledger: jobs, Pages: s.Content,
		Webhooks: out.Webhooks, Mailer: out.Mailer, Blobs: out.Blobs, Clock: clk, Logger: log, Tracer: o.Jobs}, o.Worker)
	if err != nil {
		return err
	}
	if s.Bulk, err = bulk.NewService(st.Jobs, jobs, out.Discoverer, out.Webhooks, out.Guard, s.Worker, clk); err != nil {
		return err
	}
	var crawler *crawl.Runner
	if st.Crawls != nil { // a store without crawls: /v1/crawl answers 404
		crawlPages := s.Content
		if ownAgent {
			if crawlPages, err = content.NewService(crawlFetcher, out.Extractor, s.Biller, copts...); err != nil {
				return err
			}
		}
		if crawler, err = crawl.NewRunner(crawl.RunnerDeps{Jobs: st.Jobs, Crawls: st.Crawls, Robots: st.Robots, Gate: st.Hosts, Accounts: st.Accounts, Ledger: jobs,
			Pages: crawlPages, Fetcher: crawlFetcher, Sitemaps: crawlSitemaps, Worker: s.Worker, Clock: clk, Logger: log}, o.Crawl); err != nil {
			return err
		}
		if s.Crawl, err = crawl.NewService(st.Jobs, st.Crawls, jobs, out.Webhooks, out.Guard, s.Worker, clk, crawl.WithPages(s.Content)); err != nil {
			return err
		}
	}
	if st.Monitors == nil || st.Snapshots == nil || out.Differ == nil {
		return nil // monitors compare snapshots: without them /v1/monitors answers 404
	}
	if _, err = monitor.NewRunner(monitor.RunnerDeps{Monitors: st.Monitors, Jobs: st.Jobs, Accounts: st.Accounts, Ledger: jobs, Mailer: out.Mailer,
		Worker: s.Worker, Crawler: crawler, Crawls: st.Crawls, Clock: clk, Logger: log}); err != nil {
		return err
	}
	if s.Scheduler, err = monitor.NewScheduler(st.Monitors, s.Worker, clk, log, o.Monitors); err != nil {
		return err
	}
	s.Monitors, err = monitor.NewService(monitor.ServiceDeps{Store: st.Monitors, Webhooks: out.Webhooks, Guard: out.Guard, Clock: clk, Pages: s.Content, Crawls: crawler != nil})
	return err
}
