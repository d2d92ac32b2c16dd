package monitor

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/trawlhq/trawl/core/bulk"
	"github.com/trawlhq/trawl/core/content"
	"github.com/trawlhq/trawl/core/credits"
	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/core/weburl"
	"github.com/trawlhq/trawl/ports"
)

// Service keeps an account's monitors: create, list, read, change, delete.
// None of it is billed; the checks are.
type Service struct {
	store    ports.MonitorStore
	webhooks ports.WebhookSender
	guard    ports.AddressGuard
	clock    ports.Clock
	pages    *content.Service // checks a crawl's page options
	crawls   bool             // crawl monitors are offered
}

// ServiceDeps are what the service runs on. Pages is the content service
// that reads the pages (it checks a crawl's page options); Crawls says
// whether this server runs crawls (without it, a crawl monitor is refused).
type ServiceDeps struct {
	Store    ports.MonitorStore
	Webhooks ports.WebhookSender
	Guard    ports.AddressGuard
	Clock    ports.Clock
	Pages    *content.Service
	Crawls   bool
}

// NewService builds the service.
func NewService(d ServiceDeps) (*Service, error) {
	if d.Store == nil || d.Webhooks == nil || d.Guard == nil || d.Clock == nil || d.Pages == nil {
		return nil, errors.New("monitor.NewService: every dependency is required")
	}
	return &Service{store: d.Store, webhooks: d.Webhooks, guard: d.Guard, clock: d.Clock, pages: d.Pages, crawls: d.Crawls}, nil
}

// Detail is a monitor with its latest checks, newest first.
type Detail struct {
	Monitor ports.Monitor
	Checks  []ports.MonitorCheck
}

// Page is one page of an account's monitors, newest first.
type Page struct {
	Items   []ports.Monitor
	Page    int
	PerPage int
	Total   int
}

// LastPage is the number of the last page (1 when empty).
func (p Page) LastPage() int { return credits.LastPage(p.Total, p.PerPage) }

// Create checks a monitor and stores it, active, its first check at the
// schedule's next time.
func (s *Service) Create(ctx context.Context, accountID int64, r Request) (ports.Monitor, error) {
	const op = "monitor.Create"
	c, err := Validate(r)
	if err != nil {
		return ports.Monitor{}, err
	}
	m := ports.Monitor{ID: NewID(), AccountID: accountID, Name: c.Name, URLs: c.URLs, Schedule: c.Schedule, CallbackURL: c.CallbackURL,
		Email: c.Email, ChangesOnly: c.ChangesOnly, Status: ports.MonitorActive}
	if c.Crawl != nil {
		if !s.crawls {
			return ports.Monitor{}, failure.Invalidf(op, FieldCrawl, "This server does not run crawls: give urls instead.")
		}
		if !c.Crawl.Options.Empty() {
			if _, _, err := s.pages.Plan(c.Crawl.Options, content.RenderMode(c.Crawl.Render)); err != nil {
				var fe failure.FieldErrors
				addFields(&fe, err, FieldCrawl+".")
				return ports.Monitor{}, fe.Err(op)
			}
		}
		if err := weburl.CheckHost(ctx, s.guard, c.Crawl.URL, FieldCrawl+".url"); failure.Is(err, failure.Invalid) {
			return ports.Monitor{}, err
		}
		m.Crawl, _ = json.Marshal(c.Crawl)
	}
	if m.CallbackURL != "" {
		if err := weburl.CheckCallback(ctx, s.webhooks, m.CallbackURL, FieldCallbackURL); err != nil {
			return ports.Monitor{}, err
		}
	}
	if _, total, err := s.store.Monitors(ctx, accountID, 1, 0); err != nil {
		return ports.Monitor{}, failure.Wrap(op, err)
	} else if total >= MaxPerAccount {
		return ports.Monitor{}, failure.E(op, failure.Conflict, "An account may keep at most 100 monitors: delete one first.")
	}
	sched, _ := ParseSchedule(m.Schedule, FieldSchedule) // valid: checked above
	now := s.clock.Now()
	m.NextRunAt, m.CreatedAt, m.UpdatedAt = sched.Next(now), now, now
	if err := s.store.CreateMonitor(ctx, m); err != nil {
		return ports.Monitor{}, failure.Wrap(op, err)
	}
	return s.store.Monitor(ctx, m.ID)
}

// List pages through an account's monitors.
func (s *Service) List(ctx context.Context, accountID int64, paging credits.Paging) (Page, error) {
	page, perPage := paging.Values()
	if err := credits.ValidatePaging(page, perPage); err != nil {
		return Page{}, err
	}
	items, total, err := s.store.Monitors(ctx, accountID, perPage, (page-1)*perPage)
	if err != nil {
		return Page{}, failure.Wrap("monitor.List", err)
	}
	return Page{Items: items, Page: page, PerPage: perPage, Total: total}, nil
}

// owned reads a monitor of the account; NotFound for another account's.
func (s *Service) owned(ctx context.Context, accountID int64, id string) (ports.Monitor, error) {
	notFound := failure.E("monitor.Get", failure.NotFound, MsgNotFound)
	if !bulk.PlausibleJobID(id) { // ids share the job ids' form
		return ports.Monitor{}, notFound
	}
	m, err := s.store.Monitor(ctx, id)
	switch {
	case failure.Is(err, failure.NotFound):
		return m, notFound
	case err != nil:
		return m, failure.Wrap("monitor.Get", err)
	case m.AccountID != accountID:
		return ports.Monitor{}, notFound
	}
	return m, nil
}

// Get reads a monitor of the account with its latest checks.
func (s *Service) Get(ctx context.Context, accountID int64, id string) (Detail, error) {
	m, err := s.owned(ctx, accountID, id)
	if err != nil {
		return Detail{}, err
	}
	checks, err := s.store.MonitorChecks(ctx, id, RecentChecks)
	if err != nil {
		return Detail{}, failure.Wrap("monitor.Get", err)
	}
	return Detail{Monitor: m, Checks: checks}, nil
}

// Update changes a monitor of the account: pause or resume it (status),
// or change its name, schedule, delivery or changes_only. A new schedule
// or a resume takes the schedule up from now.
func (s *Service) Update(ctx context.Context, accountID int64, id string, p Patch) (ports.Monitor, error) {
	const op = "monitor.Update"
	if _, err := s.owned(ctx, accountID, id); err != nil {
		return ports.Monitor{}, err
	}
	if p.CallbackURL != nil && *p.CallbackURL != "" {
		cb := checkCallback(&failure.FieldErrors{}, *p.CallbackURL)
		if cb != "" {
			if err := weburl.CheckCallback(ctx, s.webhooks, cb, FieldCallbackURL); err != nil {
				return ports.Monitor{}, err
			}
		}
	}
	m, err := s.store.UpdateMonitor(ctx, id, func(m *ports.Monitor) error {
		if m.AccountID != accountID {
			return failure.E(op, failure.NotFound, MsgNotFound)
		}
		reschedule, err := Apply(m, p)
		if err != nil {
			return err
		}
		now := s.clock.Now()
		if reschedule {
			sched, _ := ParseSchedule(m.Schedule, FieldSchedule) // valid: Apply checked it
			m.NextRunAt = sched.Next(now)
		}
		m.UpdatedAt = now
		return nil
	})
	if failure.Is(err, failure.NotFound) {
		return ports.Monitor{}, failure.E(op, failure.NotFound, MsgNotFound)
	}
	if err != nil {
		return ports.Monitor{}, failure.Wrap(op, err)
	}
	return m, nil
}

// Delete deletes a monitor of the account and its checks. A check already
// running finishes its pages and sends nothing.
func (s *Service) Delete(ctx context.Context, accountID int64, id string) error {
	if _, err := s.owned(ctx, accountID, id); err != nil {
		return err
	}
	err := s.store.DeleteMonitor(ctx, id)
	if failure.Is(err, failure.NotFound) {
		return failure.E("monitor.Delete", failure.NotFound, MsgNotFound)
	}
	return failure.Wrap("monitor.Delete", err)
}
