package storetest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/ports"
)

// MonitorStores is what the monitor contract runs on.
type MonitorStores interface {
	Stores
	ports.JobStore
	ports.CrawlStore
	ports.MonitorStore
}

// RunMonitors runs the contract tests of monitors and their checks.
func RunMonitors(t *testing.T, open Opener) {
	t.Run("MonitorCRUD", func(t *testing.T) { testMonitorCRUD(t, open(t).(MonitorStores)) })
	t.Run("MonitorUpdateIsAtomic", func(t *testing.T) { testMonitorUpdate(t, open(t).(MonitorStores)) })
	t.Run("DueMonitors", func(t *testing.T) { testDueMonitors(t, open(t).(MonitorStores)) })
	t.Run("StartCheckOncePerRun", func(t *testing.T) { testStartCheck(t, open(t).(MonitorStores)) })
	t.Run("StartCheckRacesTakeOneRun", func(t *testing.T) { testStartCheckRace(t, open(t).(MonitorStores)) })
	t.Run("Checks", func(t *testing.T) { testChecks(t, open(t).(MonitorStores)) })
}

func newMonitor(t *testing.T, s MonitorStores, accountID int64, id string, next time.Time) ports.Monitor {
	t.Helper()
	m := ports.Monitor{ID: id, AccountID: accountID, Name: "n-" + id, URLs: []string{"https://site.test/a", "https://site.test/b"}, Schedule: "*/5 * * * *",
		CallbackURL: "https://hooks.test/x", ChangesOnly: true, Status: ports.MonitorActive, NextRunAt: next, CreatedAt: t0, UpdatedAt: t0}
	if err := s.CreateMonitor(context.Background(), m); err != nil {
		t.Fatalf("CreateMonitor: %v", err)
	}
	return m
}

func testMonitorCRUD(t *testing.T, s MonitorStores) {
	ctx := context.Background()
	a := newAccount(t, s, "mon-a@example.com", "basic")
	b := newAccount(t, s, "mon-b@example.com", "basic")
	m := newMonitor(t, s, a.ID, "mon_1", t0.Add(5*time.Minute))
	got, err := s.Monitor(ctx, "mon_1")
	if err != nil || !reflect.DeepEqual(got, m) {
		t.Fatalf("Monitor = %+v, %v; want %+v", got, err, m)
	}
	c := ports.Monitor{ID: "mon_2", AccountID: a.ID, Crawl: []byte(`{"url":"https://site.test/"}`), Schedule: "0 * * * *", Email: true,
		Status: ports.MonitorPaused, PausedReason: "why", NextRunAt: t0, CreatedAt: t0.Add(time.Second), UpdatedAt: t0.Add(time.Second)}
	if err := s.CreateMonitor(ctx, c); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Monitor(ctx, "mon_2"); err != nil || !reflect.DeepEqual(got, c) {
		t.Fatalf("crawl monitor = %+v, %v; want %+v", got, err, c)
	}
	newMonitor(t, s, b.ID, "mon_3", t0)
	list, total, err := s.Monitors(ctx, a.ID, 1, 0)
	if err != nil || total != 2 || len(list) != 1 || list[0].ID != "mon_2" {
		t.Fatalf("Monitors page 1 = %v %d %v, want mon_2 of 2", list, total, err)
	}
	if list, _, _ := s.Monitors(ctx, a.ID, 10, 1); len(list) != 1 || list[0].ID != "mon_1" {
		t.Fatalf("Monitors page 2 = %v", list)
	}
	if _, err := s.Monitor(ctx, "mon_nope"); !failure.Is(err, failure.NotFound) {
		t.Fatalf("missing monitor: %v", err)
	}
	if err := s.DeleteMonitor(ctx, "mon_1"); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteMonitor(ctx, "mon_1"); !failure.Is(err, failure.NotFound) {
		t.Fatalf("deleted twice: %v", err)
	}
	if _, total, _ := s.Monitors(ctx, a.ID, 10, 0); total != 1 {
		t.Fatalf("after delete: %d", total)
	}
}

func testMonitorUpdate(t *testing.T, s MonitorStores) {
	ctx := context.Background()
	a := newAccount(t, s, "mon-u@example.com", "basic")
	newMonitor(t, s, a.ID, "mon_u", t0)
	boom := errors.New("no")
	if _, err := s.UpdateMonitor(ctx, "mon_u", func(m *ports.Monitor) error { m.Name = "lost"; return boom }); !errors.Is(err, boom) {
		t.Fatalf("fn's error: %v", err)
	}
	if m, _ := s.Monitor(ctx, "mon_u"); m.Name != "n-mon_u" {
		t.Fatalf("a failed update wrote %q", m.Name)
	}
	got, err := s.UpdateMonitor(ctx, "mon_u", func(m *ports.Monitor) error {
		m.Name, m.Status, m.PausedReason, m.NextRunAt, m.UpdatedAt, m.URLs = "x", ports.MonitorPaused, "r", t0.Add(time.Hour), t0.Add(time.Minute), []string{"https://site.test/c"}
		m.AccountID, m.ID = 999, "other" // not the caller's to change
		return nil
	})
	stored, _ := s.Monitor(ctx, "mon_u")
	if err != nil || !reflect.DeepEqual(got, stored) || stored.Name != "x" || stored.Status != ports.MonitorPaused || stored.AccountID != a.ID || !stored.NextRunAt.Equal(t0.Add(time.Hour)) || len(stored.URLs) != 1 {
		t.Fatalf("updated = %+v (%v), stored %+v", got, err, stored)
	}
	if _, err := s.UpdateMonitor(ctx, "mon_nope", func(*ports.Monitor) error { return nil }); !failure.Is(err, failure.NotFound) {
		t.Fatalf("missing: %v", err)
	}
	// Concurrent read-modify-writes lose nothing.
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := s.UpdateMonitor(ctx, "mon_u", func(m *ports.Monitor) error { m.Name += "+"; return nil }); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if m, _ := s.Monitor(ctx, "mon_u"); m.Name != "x++++++++" {
		t.Fatalf("after 8 concurrent updates: %q", m.Name)
	}
}

func testDueMonitors(t *testing.T, s MonitorStores) {
	ctx := context.Background()
	a := newAccount(t, s, "mon-d@example.com", "basic")
	newMonitor(t, s, a.ID, "mon_late", t0.Add(-time.Hour))
	newMonitor(t, s, a.ID, "mon_now", t0)
	newMonitor(t, s, a.ID, "mon_later", t0.Add(time.Minute))
	p := newMonitor(t, s, a.ID, "mon_paused", t0.Add(-2*time.Hour))
	if _, err := s.UpdateMonitor(ctx, p.ID, func(m *ports.Monitor) error { m.Status = ports.MonitorPaused; return nil }); err != nil {
		t.Fatal(err)
	}
	due, err := s.DueMonitors(ctx, t0, 10)
	if err != nil || len(due) != 2 || due[0].ID != "mon_late" || due[1].ID != "mon_now" {
		t.Fatalf("due = %v %v", due, err)
	}
	if due, _ := s.DueMonitors(ctx, t0, 1); len(due) != 1 || due[0].ID != "mon_late" {
		t.Fatalf("due, at most 1 = %v", due)
	}
}

func checkJob(id string, accountID int64) (ports.BulkJob, ports.MonitorCheck) {
	job := ports.BulkJob{ID: id, AccountID: accountID, Status: ports.JobQueued, URLSource: ports.SourceURLs, QueuedAt: t0, Kind: ports.KindMonitor, Changes: true, ChangeTag: "monitor:x"}
	return job, ports.MonitorCheck{ID: id, AccountID: accountID, ScheduledAt: t0, Status: ports.CheckQueued}
}

func testStartCheck(t *testing.T, s MonitorStores) {
	ctx := context.Background()
	a := newAccount(t, s, "mon-s@example.com", "basic")
	m := newMonitor(t, s, a.ID, "mon_s", t0)
	next := t0.Add(5 * time.Minute)
	job, check := checkJob("chk_1", a.ID)
	ok, err := s.StartCheck(ctx, m.ID, t0, next, job, m.URLs, nil, check)
	if err != nil || !ok {
		t.Fatalf("StartCheck = %v %v", ok, err)
	}
	if got, _ := s.Monitor(ctx, m.ID); !got.NextRunAt.Equal(next) {
		t.Fatalf("next run = %v, want %v", got.NextRunAt, next)
	}
	j, err := s.Job(ctx, "chk_1")
	if err != nil || j.Kind != ports.KindMonitor || j.Status != ports.JobQueued || !j.Changes || j.ChangeTag != "monitor:x" {
		t.Fatalf("check's job = %+v %v", j, err)
	}
	if urls, _ := s.JobURLs(ctx, "chk_1"); len(urls) != 2 || urls[1].URL != "https://site.test/b" || urls[0].Status != ports.URLPending {
		t.Fatalf("check's URLs = %+v", urls)
	}
	c, err := s.MonitorCheck(ctx, "chk_1")
	if err != nil || c.MonitorID != m.ID || !c.ScheduledAt.Equal(t0) || c.Status != ports.CheckQueued || c.HoldID != "" || c.Delivered {
		t.Fatalf("check = %+v %v", c, err)
	}
	// The same run again: taken already, nothing written.
	job2, check2 := checkJob("chk_2", a.ID)
	if ok, err := s.StartCheck(ctx, m.ID, t0, next, job2, m.URLs, nil, check2); ok || err != nil {
		t.Fatalf("the same run twice: %v %v", ok, err)
	}
	if _, err := s.Job(ctx, "chk_2"); !failure.Is(err, failure.NotFound) {
		t.Fatalf("a lost run queued a job: %v", err)
	}
	if _, err := s.MonitorCheck(ctx, "chk_2"); !failure.Is(err, failure.NotFound) {
		t.Fatalf("a lost run recorded a check: %v", err)
	}
	// A paused monitor's run is not taken.
	if _, err := s.UpdateMonitor(ctx, m.ID, func(m *ports.Monitor) error { m.Status = ports.MonitorPaused; return nil }); err != nil {
		t.Fatal(err)
	}
	if ok, err := s.StartCheck(ctx, m.ID, next, next.Add(5*time.Minute), job2, m.URLs, nil, check2); ok || err != nil {
		t.Fatalf("paused: %v %v", ok, err)
	}
	// A crawl monitor's check stores its crawl beside the job.
	cm := newMonitor(t, s, a.ID, "mon_c", t0)
	job3, check3 := checkJob("chk_3", a.ID)
	job3.URLSource = ports.URLSource("crawl")
	if ok, err := s.StartCheck(ctx, cm.ID, t0, next, job3, nil, &ports.Crawl{URL: "https://site.test/", Limit: 7, MaxDepth: 2, Params: []byte(`{"changes":true}`)}, check3); !ok || err != nil {
		t.Fatalf("crawl check: %v %v", ok, err)
	}
	cr, err := s.Crawl(ctx, "chk_3")
	if err != nil || cr.Limit != 7 || cr.URL != "https://site.test/" || string(cr.Params) != `{"changes":true}` {
		t.Fatalf("crawl = %+v %v", cr, err)
	}
	if j, _ := s.Job(ctx, "chk_3"); j.Kind != ports.KindMonitor {
		t.Fatalf("crawl check's job kind = %s", j.Kind)
	}
}

func testStartCheckRace(t *testing.T, s MonitorStores) {
	ctx := context.Background()
	a := newAccount(t, s, "mon-r@example.com", "basic")
	m := newMonitor(t, s, a.ID, "mon_r", t0)
	var won atomic.Int32
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			job, check := checkJob(fmt.Sprintf("chk_r%d", i), a.ID)
			ok, err := s.StartCheck(ctx, m.ID, t0, t0.Add(5*time.Minute), job, m.URLs, nil, check)
			if err != nil {
				t.Error(err)
			}
			if ok {
				won.Add(1)
			}
		}()
	}
	wg.Wait()
	if won.Load() != 1 {
		t.Fatalf("%d racers took the run, want 1", won.Load())
	}
	if checks, _ := s.MonitorChecks(ctx, m.ID, 10); len(checks) != 1 {
		t.Fatalf("%d checks recorded, want 1", len(checks))
	}
}

func testChecks(t *testing.T, s MonitorStores) {
	ctx := context.Background()
	a := newAccount(t, s, "mon-c@example.com", "basic")
	m := newMonitor(t, s, a.ID, "mon_k", t0)
	at := t0
	for i := range 3 {
		job, check := checkJob(fmt.Sprintf("chk_k%d", i), a.ID)
		check.ScheduledAt = at
		if ok, err := s.StartCheck(ctx, m.ID, at, at.Add(5*time.Minute), job, m.URLs, nil, check); !ok || err != nil {
			t.Fatalf("run %d: %v %v", i, ok, err)
		}
		at = at.Add(5 * time.Minute)
	}
	started, finished := t0.Add(time.Second), t0.Add(time.Minute)
	upd := ports.MonitorCheck{ID: "chk_k0", MonitorID: "ignored", Status: ports.CheckCompleted, HoldID: "h1", StartedAt: &started, FinishedAt: &finished,
		Pages: 2, Changed: 1, Credits: 4, Error: "e", Delivered: true}
	if err := s.UpdateCheck(ctx, upd); err != nil {
		t.Fatal(err)
	}
	got, _ := s.MonitorCheck(ctx, "chk_k0")
	upd.MonitorID, upd.AccountID, upd.ScheduledAt = m.ID, a.ID, t0
	if !reflect.DeepEqual(got, upd) {
		t.Fatalf("updated check = %+v, want %+v", got, upd)
	}
	if err := s.UpdateCheck(ctx, ports.MonitorCheck{ID: "chk_nope"}); !failure.Is(err, failure.NotFound) {
		t.Fatalf("missing check: %v", err)
	}
	list, err := s.MonitorChecks(ctx, m.ID, 2)
	if err != nil || len(list) != 2 || list[0].ID != "chk_k2" || list[1].ID != "chk_k1" {
		t.Fatalf("latest checks = %v %v", list, err)
	}
	if err := s.DeleteMonitor(ctx, m.ID); err != nil {
		t.Fatal(err)
	}
	if list, _ := s.MonitorChecks(ctx, m.ID, 10); len(list) != 0 {
		t.Fatalf("a deleted monitor's checks remain: %v", list)
	}
}
