package bulktest

import (
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
	e.Job("job_polled", []string{"http://pages.test/page/2"}, "")
	time.Sleep(50 * time.Millisecond)
	if s := e.JobState("job_polled").Status; s != ports.JobQueued {
		t.Fatalf("claimed before the poll interval passed: %s", s)
	}
	if !e.Clock.WaitFor(2, 10*time.Second) { // the poll, and the finished job's last renewal timer
		t.Fatal("the idle worker is not polling on the clock")
	}
	e.Clock.Advance(time.Hour)
	e.Eventually("the polled job to complete", func() bool { return e.JobState("job_polled").Status == ports.JobCompleted })
}
