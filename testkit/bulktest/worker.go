package bulktest

import (
	"fmt"
	"testing"
	"time"

	"github.com/trawlhq/trawl/core/bulk"
	"github.com/trawlhq/trawl/ports"
)

// testWaitsOnTheClock: webhook retries and idle polls wait on the clock,
// so moving the clock (not the wall) drives them.
func testWaitsOnTheClock(t *testing.T, store Stores) {
	e := New(t, store)
	NewGate(e.Site, "/page/").Open()
	w := e.Worker(bulk.WorkerOptions{JobsAtOnce: 1, Poll: time.Hour, Lease: 3 * time.Hour, RetryBackoff: time.Minute, WebhookRetries: 3})
	e.Hooks.FailNext(2)
	e.Job("job_clock", []string{"http://pages.test/page/1"}, e.Hooks.URL())
	e.Start(w)
	e.Eventually("the first webhook attempt", func() bool { return e.Hooks.Count() == 1 })
	// The worker now waits a minute on the clock (with its lease renewal).
	if !e.Clock.WaitFor(2, 10*time.Second) {
		t.Fatalf("the worker is not waiting on the clock: %d waits", e.Clock.Waiting())
	}
	time.Sleep(50 * time.Millisecond)
	e.Clock.Advance(59 * time.Second)
	time.Sleep(50 * time.Millisecond)
	if n := e.Hooks.Count(); n != 1 {
		t.Fatalf("%d attempts before the backoff passed on the clock", n)
	}
	e.Clock.Advance(time.Second)
	e.Eventually("the second attempt", func() bool { return e.Hooks.Count() == 2 })
	if !e.Clock.WaitFor(2, 10*time.Second) {
		t.Fatal("the worker does not wait before the third attempt")
	}
	e.Clock.Advance(2 * time.Minute) // the backoff doubles
	e.Eventually("the job to complete", func() bool { return e.JobState("job_clock").Status == ports.JobCompleted })
	ds, err := e.Store.Deliveries(t.Context(), "job_clock")
	if err != nil || len(ds) != 3 || e.Hooks.Count() != 3 {
		t.Fatalf("deliveries = %+v, %v (received %d)", ds, err, e.Hooks.Count())
	}
	if d1, d2 := ds[1].At.Sub(ds[0].At), ds[2].At.Sub(ds[1].At); d1 != time.Minute || d2 != 2*time.Minute || ds[2].Error != "" {
		t.Fatalf("attempts %v and %v apart, want 1m and 2m: %+v", d1, d2, ds)
	}

	// Idle, the worker polls on the clock: a job queued without a wake-up
	// is claimed when the clock passes the poll interval.
	if !e.Clock.WaitFor(2, 10*time.Second) { // the poll, and the finished job's last renewal timer
		t.Fatal("the idle worker is not polling on the clock")
	}
	e.Job("job_polled", []string{"http://pages.test/page/2"}, "")
	time.Sleep(50 * time.Millisecond)
	if s := e.JobState("job_polled").Status; s != ports.JobQueued {
		t.Fatalf("claimed before the poll interval passed: %s", s)
	}
	e.Clock.Advance(time.Hour)
	e.Eventually("the polled job to complete", func() bool { return e.JobState("job_polled").Status == ports.JobCompleted })
}

// testDrainOnShutdown: a worker told to stop starts no new URL, finishes
// and records (charging once) the URLs in flight, and hands its lease back
// at once; a second worker claims the job at the same instant and
// completes the rest, and no URL is fetched or charged twice.
func testDrainOnShutdown(t *testing.T, store Stores) {
	e := New(t, store)
	gate := NewGate(e.Site, "/slow/")
	var urls []string
	for i := range 6 {
		urls = append(urls, fmt.Sprintf("http://pages.test/slow/%d", i))
	}
	balance0, _ := e.Balance()
	e.Job("job_drain", urls, "")
	opts := bulk.WorkerOptions{JobsAtOnce: 1, URLConcurrency: 2, PerHost: 2, Lease: 3 * time.Minute, Poll: time.Hour, Drain: time.Minute}
	stopA := e.Start(e.Worker(opts))
	e.Eventually("two URLs in flight", func() bool { return gate.Waiting() == 2 })

	// The lease is renewed on the clock while the pages load.
	if !e.Clock.WaitFor(1, 10*time.Second) {
		t.Fatal("no lease renewal is waiting on the clock")
	}
	e.Clock.Advance(time.Minute)
	e.Eventually("the lease to be renewed", func() bool {
		return e.JobState("job_drain").LeaseUntil.Equal(e.Clock.Now().Add(3 * time.Minute))
	})

	stopped := make(chan struct{})
	go func() { stopA(); close(stopped) }()
	// The worker has noticed: it waits at most Drain for the URLs in flight.
	if !e.Clock.WaitFor(2, 10*time.Second) {
		t.Fatal("the stopping worker does not bound its drain on the clock")
	}
	gate.Open()
	select {
	case <-stopped:
	case <-time.After(15 * time.Second):
		t.Fatal("the worker did not stop after its URLs in flight finished")
	}
	done, pending := 0, 0
	for _, u := range e.URLs("job_drain") {
		switch u.Status {
		case ports.URLSucceeded:
			done++
		case ports.URLPending:
			pending++
		}
	}
	if done != 2 || pending != 4 || gate.Waiting() != 2 {
		t.Fatalf("after the drain: %d succeeded, %d pending, %d fetched; want 2, 4, 2", done, pending, gate.Waiting())
	}
	if c := e.Charges("job_drain"); len(c) != 2 {
		t.Fatalf("charges after the drain = %v", c)
	}
	if b, held := e.Balance(); b != balance0-4 || held != 8 {
		t.Fatalf("after the drain: balance %d (was %d), held %d; want 4 charged and 8 held", b, balance0, held)
	}
	if j := e.JobState("job_drain"); j.Status != ports.JobProcessing || j.LeaseUntil.After(e.Clock.Now()) {
		t.Fatalf("the job was not handed back: %+v", j)
	}

	// Another process claims it at once (the clock has not moved) and
	// completes it.
	e.Start(e.Worker(opts))
	e.Eventually("the job to complete", func() bool { return e.JobState("job_drain").Status == ports.JobCompleted })
	charges := e.Charges("job_drain")
	for _, u := range urls {
		if charges[u] != 1 {
			t.Errorf("%s charged %d times", u, charges[u])
		}
	}
	if gate.Waiting() != 6 {
		t.Errorf("%d fetches for 6 URLs", gate.Waiting())
	}
	if b, held := e.Balance(); b != balance0-12 || held != 0 {
		t.Fatalf("at the end: balance %d (was %d), held %d; want 12 charged, nothing held", b, balance0, held)
	}
}

// testDrainRunsOut: URLs that do not finish within Drain are abandoned
// uncharged and stay pending; the lease is still handed back.
func testDrainRunsOut(t *testing.T, store Stores) {
	e := New(t, store)
	gate := NewGate(e.Site, "/stuck/")
	urls := []string{"http://pages.test/stuck/0", "http://pages.test/stuck/1", "http://pages.test/stuck/2"}
	e.Job("job_stuck", urls, "")
	opts := bulk.WorkerOptions{JobsAtOnce: 1, URLConcurrency: 2, PerHost: 2, Lease: 3 * time.Minute, Poll: time.Hour, Drain: 30 * time.Second}
	stopA := e.Start(e.Worker(opts))
	e.Eventually("two URLs in flight", func() bool { return gate.Waiting() == 2 })
	stopped := make(chan struct{})
	go func() { stopA(); close(stopped) }()
	if !e.Clock.WaitFor(2, 10*time.Second) {
		t.Fatal("the stopping worker does not bound its drain on the clock")
	}
	time.Sleep(50 * time.Millisecond)
	select {
	case <-stopped:
		t.Fatal("the worker stopped before its drain ran out")
	default:
	}
	e.Clock.Advance(30 * time.Second)
	select {
	case <-stopped:
	case <-time.After(15 * time.Second):
		t.Fatal("the worker did not stop when its drain ran out")
	}
	for _, u := range e.URLs("job_stuck") {
		if u.Status != ports.URLPending {
			t.Fatalf("an abandoned URL was recorded: %+v", u)
		}
	}
	if c := e.Charges("job_stuck"); len(c) != 0 {
		t.Fatalf("abandoned URLs were charged: %v", c)
	}
	if j := e.JobState("job_stuck"); j.LeaseUntil.After(e.Clock.Now()) {
		t.Fatalf("the job was not handed back: %+v", j)
	}
	gate.Open()
	e.Start(e.Worker(opts))
	e.Eventually("the job to complete", func() bool { return e.JobState("job_stuck").Status == ports.JobCompleted })
	if c := e.Charges("job_stuck"); len(c) != 3 || c[urls[0]] != 1 || c[urls[1]] != 1 || c[urls[2]] != 1 {
		t.Fatalf("charges = %v", c)
	}
}
