package memstore

import (
	"context"
	"slices"
	"sort"
	"time"

	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/ports"
)

var (
	_ ports.CrawlStore  = (*Store)(nil)
	_ ports.RobotsCache = (*Store)(nil)
	_ ports.HostGate    = (*Store)(nil)
)

type memCrawl struct {
	c    ports.Crawl
	seq  int64
	urls []*memURL
	keys map[string]*memURL
}

type memURL struct {
	u          ports.CrawlURL
	notBefore  time.Time
	leaseUntil time.Time
}

type crawlState struct {
	crawls   map[string]*memCrawl
	robots   map[string]ports.RobotsRecord
	hostNext map[string]time.Time
	slots    map[string]hostSlot // by token
	nextURL  int64
}

type hostSlot struct {
	host  string
	until time.Time
}

func (s *Store) crawlOf(id string) (*memCrawl, error) {
	if s.cr.crawls == nil {
		s.cr = crawlState{crawls: map[string]*memCrawl{}, robots: map[string]ports.RobotsRecord{}, hostNext: map[string]time.Time{}, slots: map[string]hostSlot{}}
	}
	c, ok := s.cr.crawls[id]
	if !ok && id != "" {
		return nil, failure.E("memstore.Crawl", failure.NotFound, "crawl not found")
	}
	return c, nil
}

// CreateCrawl implements ports.CrawlStore.
func (s *Store) CreateCrawl(ctx context.Context, j ports.BulkJob, c ports.Crawl) error {
	j.Kind = ports.KindCrawl
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.createJob(j, nil); err != nil {
		return err
	}
	s.addCrawl(j.ID, c)
	return nil
}

// addCrawl stores a crawl beside its job; s.mu is held.
func (s *Store) addCrawl(id string, c ports.Crawl) {
	_, _ = s.crawlOf("")
	c.ID, c.Params = id, slices.Clone(c.Params)
	s.cr.crawls[id] = &memCrawl{c: c, keys: map[string]*memURL{}}
}

// Crawl implements ports.CrawlStore.
func (s *Store) Crawl(_ context.Context, id string) (ports.Crawl, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, err := s.crawlOf(id)
	if err != nil {
		return ports.Crawl{}, err
	}
	out := c.c
	out.Params = slices.Clone(out.Params)
	return out, nil
}

// MarkSeeded implements ports.CrawlStore.
func (s *Store) MarkSeeded(_ context.Context, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, err := s.crawlOf(id)
	if err != nil {
		return err
	}
	c.c.Seeded = true
	return nil
}

// CancelCrawl implements ports.CrawlStore.
func (s *Store) CancelCrawl(_ context.Context, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, err := s.crawlOf(id)
	if err != nil {
		return err
	}
	c.c.CancelRequested = true
	return nil
}

// AddCrawlURLs implements ports.CrawlStore.
func (s *Store) AddCrawlURLs(_ context.Context, crawlID string, urls []ports.CrawlURL, hostCap int) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, err := s.crawlOf(crawlID)
	if err != nil {
		return 0, err
	}
	return s.addCrawlURLs(c, crawlID, urls, hostCap), nil
}

// addCrawlURLs adds urls to c, s.mu held.
func (s *Store) addCrawlURLs(c *memCrawl, crawlID string, urls []ports.CrawlURL, hostCap int) int {
	queued := 0
	for _, u := range urls {
		if c.keys[u.Key] != nil {
			continue
		}
		if hostCap > 0 {
			n := 0
			for _, m := range c.urls {
				if m.u.Host == u.Host {
					n++
				}
			}
			if n >= hostCap {
				continue
			}
		}
		s.cr.nextURL++
		u.CrawlID, u.ID = crawlID, s.cr.nextURL
		if u.State == "" {
			u.State = ports.CrawlQueued
		}
		u.Content, u.Seq, u.FinishedAt = nil, 0, truncPtr(u.FinishedAt)
		if u.State == ports.CrawlQueued {
			queued++
			u.FinishedAt = nil
		} else {
			c.seq++
			u.Seq = c.seq
		}
		m := &memURL{u: u}
		c.urls = append(c.urls, m)
		c.keys[u.Key] = m
	}
	return queued
}

// ClaimCrawlURLs implements ports.CrawlStore.
func (s *Store) ClaimCrawlURLs(_ context.Context, crawlID string, n, limit int, now time.Time, lease time.Duration) ([]ports.CrawlURL, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, err := s.crawlOf(crawlID)
	if err != nil {
		return nil, err
	}
	now = trunc(now)
	busy := 0
	var ready []*memURL
	for _, m := range c.urls {
		switch {
		case m.u.State == ports.CrawlSucceeded, m.u.State == ports.CrawlInFlight && !m.leaseUntil.Before(now):
			busy++
		case m.u.State == ports.CrawlQueued && !m.notBefore.After(now), m.u.State == ports.CrawlInFlight:
			ready = append(ready, m)
		}
	}
	sort.SliceStable(ready, func(i, j int) bool {
		if ready[i].u.Depth != ready[j].u.Depth {
			return ready[i].u.Depth < ready[j].u.Depth
		}
		return ready[i].u.ID < ready[j].u.ID
	})
	take := min(n, limit-busy, len(ready))
	var out []ports.CrawlURL
	for _, m := range ready[:max(take, 0)] {
		m.u.State, m.leaseUntil = ports.CrawlInFlight, trunc(now.Add(lease))
		out = append(out, m.u)
	}
	return out, nil
}

// FinishCrawlURL implements ports.CrawlStore.
func (s *Store) FinishCrawlURL(ctx context.Context, u ports.CrawlURL, now time.Time) error {
	_, err := s.FinishCrawlPage(ctx, ports.CrawlOutcome{URL: u, Now: now})
	return err
}

// FinishCrawlPage implements ports.CrawlStore.
func (s *Store) FinishCrawlPage(_ context.Context, o ports.CrawlOutcome) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.finishCrawlPage(o)
}

// finishCrawlPage writes a page's outcome, s.mu held.
func (s *Store) finishCrawlPage(o ports.CrawlOutcome) (int, error) {
	u := o.URL
	c, err := s.crawlOf(u.CrawlID)
	if err != nil {
		return 0, err
	}
	for _, m := range c.urls {
		if m.u.ID != u.ID || (m.u.State != ports.CrawlQueued && m.u.State != ports.CrawlInFlight) {
			continue
		}
		c.seq++
		at := trunc(o.Now)
		m.u.State, m.u.Reason, m.u.StatusCode, m.u.Error, m.u.Content, m.u.Engine = u.State, u.Reason, u.StatusCode, u.Error, slices.Clone(u.Content), u.Engine
		m.u.Seq, m.u.FinishedAt, m.leaseUntil = c.seq, &at, time.Time{}
		break
	}
	return s.addCrawlURLs(c, u.CrawlID, o.Links, o.HostCap), nil
}

// RequeueCrawlURL implements ports.CrawlStore.
func (s *Store) RequeueCrawlURL(_ context.Context, crawlID string, id int64, notBefore time.Time, attempted bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, err := s.crawlOf(crawlID)
	if err != nil {
		return err
	}
	for _, m := range c.urls {
		if m.u.ID == id && m.u.State == ports.CrawlInFlight {
			m.u.State, m.notBefore, m.leaseUntil = ports.CrawlQueued, trunc(notBefore), time.Time{}
			if attempted {
				m.u.Attempts++
			}
		}
	}
	return nil
}

// SkipQueued implements ports.CrawlStore.
func (s *Store) SkipQueued(_ context.Context, crawlID, reason string, now time.Time) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, err := s.crawlOf(crawlID)
	if err != nil {
		return 0, err
	}
	var queued []*memURL
	for _, m := range c.urls {
		if m.u.State == ports.CrawlQueued {
			queued = append(queued, m)
		}
	}
	sort.SliceStable(queued, func(i, j int) bool { return queued[i].u.Depth < queued[j].u.Depth })
	at := trunc(now)
	for _, m := range queued {
		c.seq++
		m.u.State, m.u.Reason, m.u.Seq, m.u.FinishedAt = ports.CrawlSkipped, reason, c.seq, &at
	}
	return len(queued), nil
}

// HasCrawlKey implements ports.CrawlStore.
func (s *Store) HasCrawlKey(_ context.Context, crawlID, key string) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, err := s.crawlOf(crawlID)
	if err != nil {
		return false, nil
	}
	return c.keys[key] != nil, nil
}

// CrawlCounts implements ports.CrawlStore.
func (s *Store) CrawlCounts(_ context.Context, crawlID string) (ports.CrawlCounts, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := ports.CrawlCounts{Skipped: map[string]int{}}
	c, err := s.crawlOf(crawlID)
	if err != nil {
		return out, nil
	}
	for _, m := range c.urls {
		out.Discovered++
		switch m.u.State {
		case ports.CrawlQueued:
			out.Queued++
		case ports.CrawlInFlight:
			out.InFlight++
		case ports.CrawlSucceeded:
			out.Succeeded++
		case ports.CrawlFailed:
			out.Failed++
		case ports.CrawlSkipped:
			out.Skipped[m.u.Reason]++
		}
	}
	return out, nil
}

// CrawlPages implements ports.CrawlStore.
func (s *Store) CrawlPages(_ context.Context, crawlID string, after int64, n int, succeededOnly bool) ([]ports.CrawlURL, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, err := s.crawlOf(crawlID)
	if err != nil {
		return nil, nil
	}
	var out []ports.CrawlURL
	for _, m := range c.urls {
		if m.u.Seq > after && (!succeededOnly || m.u.State == ports.CrawlSucceeded) {
			u := m.u
			u.Content = slices.Clone(u.Content)
			out = append(out, u)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Seq < out[j].Seq })
	if len(out) > n {
		out = out[:n]
	}
	return out, nil
}

// Robots implements ports.RobotsCache.
func (s *Store) Robots(_ context.Context, origin string, now time.Time) (ports.RobotsRecord, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, _ = s.crawlOf("")
	r, ok := s.cr.robots[origin]
	if !ok || !r.ExpiresAt.After(now) {
		return ports.RobotsRecord{}, false, nil
	}
	r.Body = slices.Clone(r.Body)
	return r, true, nil
}

// PutRobots implements ports.RobotsCache.
func (s *Store) PutRobots(_ context.Context, rec ports.RobotsRecord) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, _ = s.crawlOf("")
	rec.Body, rec.FetchedAt, rec.ExpiresAt = slices.Clone(rec.Body), trunc(rec.FetchedAt), trunc(rec.ExpiresAt)
	s.cr.robots[rec.Origin] = rec
	return nil
}

// AcquireHost implements ports.HostGate.
func (s *Store) AcquireHost(_ context.Context, host, token string, max int, delay time.Duration, now time.Time, lease time.Duration) (bool, time.Time, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, _ = s.crawlOf("")
	now = trunc(now)
	if next := s.cr.hostNext[host]; next.After(now) {
		return false, next, nil
	}
	busy := 0
	var soonest time.Time
	for tok, sl := range s.cr.slots {
		if sl.host != host {
			continue
		}
		if sl.until.Before(now) {
			delete(s.cr.slots, tok)
			continue
		}
		busy++
		if soonest.IsZero() || sl.until.Before(soonest) {
			soonest = sl.until
		}
	}
	if busy >= max {
		retry := now.Add(50 * time.Millisecond)
		if soonest.Before(retry) {
			retry = soonest
		}
		return false, retry, nil
	}
	s.cr.slots[token] = hostSlot{host: host, until: trunc(now.Add(lease))}
	s.cr.hostNext[host] = trunc(now.Add(delay))
	return true, time.Time{}, nil
}

// ReleaseHost implements ports.HostGate.
func (s *Store) ReleaseHost(_ context.Context, host, token string, notBefore time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, _ = s.crawlOf("")
	delete(s.cr.slots, token)
	if !notBefore.IsZero() && notBefore.After(s.cr.hostNext[host]) {
		s.cr.hostNext[host] = trunc(notBefore)
	}
	return nil
}
