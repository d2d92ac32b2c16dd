package memstore

import (
	"context"
	"slices"
	"sort"
	"time"

	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/ports"
)

var _ ports.MonitorStore = (*Store)(nil)

type monitorState struct {
	monitors map[string]ports.Monitor
	checks   map[string]ports.MonitorCheck
}

func (s *Store) monitors() *monitorState {
	if s.mon.monitors == nil {
		s.mon = monitorState{monitors: map[string]ports.Monitor{}, checks: map[string]ports.MonitorCheck{}}
	}
	return &s.mon
}

// stored is m as the SQL store keeps it: times to the millisecond, lists copied.
func storedMonitor(m ports.Monitor) ports.Monitor {
	m.URLs, m.Crawl = slices.Clone(m.URLs), slices.Clone(m.Crawl)
	if len(m.URLs) == 0 {
		m.URLs = nil
	}
	if len(m.Crawl) == 0 {
		m.Crawl = nil
	}
	m.NextRunAt, m.CreatedAt, m.UpdatedAt = trunc(m.NextRunAt), trunc(m.CreatedAt), trunc(m.UpdatedAt)
	return m
}

func storedCheck(c ports.MonitorCheck) ports.MonitorCheck {
	c.ScheduledAt, c.StartedAt, c.FinishedAt = trunc(c.ScheduledAt), truncPtr(c.StartedAt), truncPtr(c.FinishedAt)
	return c
}

// CreateMonitor implements ports.MonitorStore.
func (s *Store) CreateMonitor(_ context.Context, m ports.Monitor) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.monitors()
	if _, ok := st.monitors[m.ID]; ok {
		return failure.E("memstore.CreateMonitor", failure.Conflict, "monitor exists")
	}
	st.monitors[m.ID] = storedMonitor(m)
	return nil
}

// Monitor implements ports.MonitorStore.
func (s *Store) Monitor(_ context.Context, id string) (ports.Monitor, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, ok := s.monitors().monitors[id]
	if !ok {
		return ports.Monitor{}, failure.E("memstore.Monitor", failure.NotFound, "monitor not found")
	}
	return storedMonitor(m), nil
}

// Monitors implements ports.MonitorStore.
func (s *Store) Monitors(_ context.Context, accountID int64, limit, offset int) ([]ports.Monitor, int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var all []ports.Monitor
	for _, m := range s.monitors().monitors {
		if m.AccountID == accountID {
			all = append(all, storedMonitor(m))
		}
	}
	sort.Slice(all, func(i, j int) bool {
		if !all[i].CreatedAt.Equal(all[j].CreatedAt) {
			return all[i].CreatedAt.After(all[j].CreatedAt)
		}
		return all[i].ID > all[j].ID
	})
	total := len(all)
	if offset > total {
		offset = total
	}
	return all[offset:min(total, offset+limit)], total, nil
}

// UpdateMonitor implements ports.MonitorStore.
func (s *Store) UpdateMonitor(_ context.Context, id string, fn func(*ports.Monitor) error) (ports.Monitor, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.monitors()
	cur, ok := st.monitors[id]
	if !ok {
		return ports.Monitor{}, failure.E("memstore.UpdateMonitor", failure.NotFound, "monitor not found")
	}
	m := storedMonitor(cur)
	if err := fn(&m); err != nil {
		return ports.Monitor{}, err
	}
	m.ID, m.AccountID, m.CreatedAt = cur.ID, cur.AccountID, cur.CreatedAt
	st.monitors[id] = storedMonitor(m)
	return storedMonitor(m), nil
}

// DeleteMonitor implements ports.MonitorStore.
func (s *Store) DeleteMonitor(_ context.Context, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.monitors()
	if _, ok := st.monitors[id]; !ok {
		return failure.E("memstore.DeleteMonitor", failure.NotFound, "monitor not found")
	}
	delete(st.monitors, id)
	for cid, c := range st.checks {
		if c.MonitorID == id {
			delete(st.checks, cid)
		}
	}
	return nil
}

// DueMonitors implements ports.MonitorStore.
func (s *Store) DueMonitors(_ context.Context, now time.Time, n int) ([]ports.Monitor, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var due []ports.Monitor
	for _, m := range s.monitors().monitors {
		if m.Status == ports.MonitorActive && !m.NextRunAt.After(now) {
			due = append(due, storedMonitor(m))
		}
	}
	sort.Slice(due, func(i, j int) bool {
		if !due[i].NextRunAt.Equal(due[j].NextRunAt) {
			return due[i].NextRunAt.Before(due[j].NextRunAt)
		}
		return due[i].ID < due[j].ID
	})
	return due[:min(n, len(due))], nil
}

// StartCheck implements ports.MonitorStore.
func (s *Store) StartCheck(_ context.Context, monitorID string, scheduled, next time.Time, job ports.BulkJob, urls []string, crawl *ports.Crawl, c ports.MonitorCheck) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.monitors()
	m, ok := st.monitors[monitorID]
	if !ok || m.Status != ports.MonitorActive || !m.NextRunAt.Equal(trunc(scheduled)) {
		return false, nil
	}
	if err := s.createJob(job, urls); err != nil {
		return false, err
	}
	if crawl != nil {
		s.addCrawl(job.ID, *crawl)
	}
	m.NextRunAt = trunc(next)
	st.monitors[monitorID] = m
	c.MonitorID = monitorID
	st.checks[c.ID] = storedCheck(c)
	return true, nil
}

// MonitorCheck implements ports.MonitorStore.
func (s *Store) MonitorCheck(_ context.Context, id string) (ports.MonitorCheck, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.monitors().checks[id]
	if !ok {
		return ports.MonitorCheck{}, failure.E("memstore.MonitorCheck", failure.NotFound, "check not found")
	}
	return c, nil
}

// UpdateCheck implements ports.MonitorStore.
func (s *Store) UpdateCheck(_ context.Context, c ports.MonitorCheck) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.monitors()
	cur, ok := st.checks[c.ID]
	if !ok {
		return failure.E("memstore.UpdateCheck", failure.NotFound, "check not found")
	}
	c.MonitorID, c.AccountID, c.ScheduledAt = cur.MonitorID, cur.AccountID, cur.ScheduledAt
	st.checks[c.ID] = storedCheck(c)
	return nil
}

// MonitorChecks implements ports.MonitorStore.
func (s *Store) MonitorChecks(_ context.Context, monitorID string, n int) ([]ports.MonitorCheck, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []ports.MonitorCheck
	for _, c := range s.monitors().checks {
		if c.MonitorID == monitorID {
			out = append(out, c)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].ScheduledAt.Equal(out[j].ScheduledAt) {
			return out[i].ScheduledAt.After(out[j].ScheduledAt)
		}
		return out[i].ID > out[j].ID
	})
	return out[:min(n, len(out))], nil
}
