package storetest

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/trawlhq/trawl/core/billing"
	"github.com/trawlhq/trawl/core/credits"
	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/ports"
	"github.com/trawlhq/trawl/testkit"
)

// RunJobs runs the contract tests of the job queue and keyed charges.
func RunJobs(t *testing.T, open Opener) {
	t.Run("JobLifecycle", func(t *testing.T) { testJobLifecycle(t, open(t)) })
	t.Run("ClaimsAreExclusive", func(t *testing.T) { testClaimsExclusive(t, open(t)) })
	t.Run("KeyedCharges", func(t *testing.T) { testKeyedCharges(t, open(t)) })
}

type jobStores interface {
	Stores
	ports.JobStore
}

func job(id string, accountID int64, at time.Time) ports.BulkJob {
	return ports.BulkJob{ID: id, AccountID: accountID, TokenID: 1, Status: ports.JobQueued, URLSource: ports.SourceURLs, Email: true, CallbackURL: "https://hooks.example/x", QueuedAt: at, HoldID: "hold_1", RequestID: "req"}
}

func testJobLifecycle(t *testing.T, st Stores) {
	s := st.(jobStores)
	ctx := context.Background()
	a := newAccount(t, s, "a@example.com", "basic")
	if err := s.CreateJob(ctx, job("job_b", a.ID, t0.Add(time.Second)), []string{"https://e.test/1"}); err != nil {
		t.Fatal(err)
	}
	ja := job("job_a", a.ID, t0)
	ja.Render, ja.TraceParent = "always", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	ja.PageOptions = `{"formats":["links"],"headers":{"X-Team":"söder"},"actions":[{"type":"click","selector":"#more"}]}`
	if err := s.CreateJob(ctx, ja, []string{"https://e.test/a", "https://e.test/b", "https://e.test/c"}); err != nil {
		t.Fatal(err)
	}
	j, err := s.Job(ctx, "job_a")
	if err != nil || j.URLsCount != 3 || j.Status != ports.JobQueued || !j.Email || j.CallbackURL != "https://hooks.example/x" || j.HoldID != "hold_1" || !j.QueuedAt.Equal(t0) || j.StartedAt != nil ||
		j.Render != "always" || j.TraceParent != ja.TraceParent || j.PageOptions != ja.PageOptions {
		t.Fatalf("Job = %+v, %v", j, err)
	}
	if jb, _ := s.Job(ctx, "job_b"); jb.Render != "" || jb.TraceParent != "" || jb.PageOptions != "" {
		t.Fatalf("a job submitted without render or traceparent = %+v", jb)
	}
	if _, err := s.Job(ctx, "job_nope"); !failure.Is(err, failure.NotFound) {
		t.Fatalf("missing job: %v", err)
	}
	urls, _ := s.JobURLs(ctx, "job_a")
	if len(urls) != 3 || urls[1].URL != "https://e.test/b" || urls[1].Index != 1 || urls[1].Status != ports.URLPending {
		t.Fatalf("JobURLs = %+v", urls)
	}
	if n, _ := s.PendingURLs(ctx); n != 4 {
		t.Fatalf("pending = %d", n)
	}
	// The oldest job first, leased.
	c, ok, err := s.ClaimJob(ctx, "w1", t0, time.Minute)
	if err != nil || !ok || c.ID != "job_a" || c.Status != ports.JobProcessing || c.LeaseOwner != "w1" || c.StartedAt == nil || c.Render != "always" || c.TraceParent != ja.TraceParent || c.PageOptions != ja.PageOptions {
		t.Fatalf("claim = %+v %v %v", c, ok, err)
	}
	c2, ok, _ := s.ClaimJob(ctx, "w2", t0.Add(time.Second), time.Minute)
	if !ok || c2.ID != "job_b" {
		t.Fatalf("second claim = %+v %v", c2, ok)
	}
	if _, ok, _ := s.ClaimJob(ctx, "w3", t0.Add(2*time.Second), time.Minute); ok {
		t.Fatal("a leased job was claimed again")
	}
	if err := s.RenewLease(ctx, "job_a", "w1", t0.Add(2*time.Minute)); err != nil {
		t.Fatal(err)
	}
	if err := s.RenewLease(ctx, "job_a", "w2", t0.Add(2*time.Minute)); !failure.Is(err, failure.Conflict) {
		t.Fatalf("renewing another's lease: %v", err)
	}
	// w1 dies: once its lease runs out, w3 takes over, and w1 has lost it.
	c3, ok, _ := s.ClaimJob(ctx, "w3", t0.Add(3*time.Minute), time.Minute)
	if !ok || c3.ID != "job_a" || c3.LeaseOwner != "w3" || !c3.StartedAt.Equal(*c.StartedAt) {
		t.Fatalf("take-over = %+v %v", c3, ok)
	}
	if err := s.RenewLease(ctx, "job_a", "w1", t0.Add(5*time.Minute)); !failure.Is(err, failure.Conflict) {
		t.Fatalf("a lost lease was renewed: %v", err)
	}
	done := t0.Add(4 * time.Minute)
	if err := s.FinishURL(ctx, ports.BulkURL{JobID: "job_a", Index: 1, Status: ports.URLSucceeded, StatusCode: 200, Content: []byte(`{"url":"b"}`), Engine: "browser", FinishedAt: &done}); err != nil {
		t.Fatal(err)
	}
	if err := s.FinishURL(ctx, ports.BulkURL{JobID: "job_a", Index: 2, Status: ports.URLFailed, StatusCode: 404, Error: "gone", Reason: "page_not_found", FinishedAt: &done}); err != nil {
		t.Fatal(err)
	}
	urls, _ = s.JobURLs(ctx, "job_a")
	if urls[1].Status != ports.URLSucceeded || string(urls[1].Content) != `{"url":"b"}` || urls[1].URL != "https://e.test/b" || urls[1].Engine != "browser" ||
		urls[2].Error != "gone" || urls[2].StatusCode != 404 || urls[2].Engine != "" || urls[2].Reason != "page_not_found" || urls[1].Reason != "" || urls[0].Status != ports.URLPending {
		t.Fatalf("after FinishURL = %+v", urls)
	}
	if n, _ := s.PendingURLs(ctx); n != 2 {
		t.Fatalf("pending = %d", n)
	}
	c3.Status, c3.CompletedAt, c3.ArchiveKey = ports.JobCompleted, &done, "jobs/job_a.zip"
	if err := s.FinishJob(ctx, c3, "w1"); !failure.Is(err, failure.Conflict) {
		t.Fatalf("finish by a worker that lost the lease: %v", err)
	}
	if err := s.FinishJob(ctx, c3, "w3"); err != nil {
		t.Fatal(err)
	}
	j, _ = s.Job(ctx, "job_a")
	if j.Status != ports.JobCompleted || j.CompletedAt == nil || j.ArchiveKey != "jobs/job_a.zip" {
		t.Fatalf("finished = %+v", j)
	}
	if _, ok, _ := s.ClaimJob(ctx, "w4", t0.Add(time.Hour), time.Minute); !ok {
		t.Fatal("job_b's lease ran out and it should be claimable")
	}
	if _, ok, _ := s.ClaimJob(ctx, "w5", t0.Add(time.Hour), time.Minute); ok {
		t.Fatal("a completed job was claimed")
	}
	for i := 1; i <= 2; i++ {
		if err := s.RecordDelivery(ctx, ports.DeliveryAttempt{JobID: "job_a", Channel: "webhook", Attempt: i, Target: "https://hooks.example/x", StatusCode: 500 * (2 - i), Error: "", Duration: 15 * time.Millisecond, At: done}); err != nil {
			t.Fatal(err)
		}
	}
	ds, _ := s.Deliveries(ctx, "job_a")
	if len(ds) != 2 || ds[0].Attempt != 1 || ds[0].StatusCode != 500 || ds[1].StatusCode != 0 || ds[0].Duration != 15*time.Millisecond || ds[0].Channel != "webhook" {
		t.Fatalf("deliveries = %+v", ds)
	}
}

func testClaimsExclusive(t *testing.T, st Stores) {
	s := st.(jobStores)
	ctx := context.Background()
	a := newAccount(t, s, "a@example.com", "basic")
	for i := range 6 {
		if err := s.CreateJob(ctx, job(fmt.Sprintf("job_%d", i), a.ID, t0.Add(time.Duration(i)*time.Millisecond)), []string{"https://e.test/"}); err != nil {
			t.Fatal(err)
		}
	}
	var mu sync.Mutex
	claimed := map[string]int{}
	var wg sync.WaitGroup
	for w := range 12 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			j, ok, err := s.ClaimJob(ctx, fmt.Sprintf("w%d", w), t0.Add(time.Second), time.Minute)
			if err != nil {
				t.Errorf("claim: %v", err)
				return
			}
			if ok {
				mu.Lock()
				claimed[j.ID]++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(claimed) != 6 {
		t.Fatalf("claimed %v", claimed)
	}
	for id, n := range claimed {
		if n != 1 {
			t.Fatalf("%s claimed %d times", id, n)
		}
	}
}

func testKeyedCharges(t *testing.T, s Stores) {
	ctx := context.Background()
	clock := testkit.NewClock(t0)
	a := newAccount(t, s, "a@example.com", "basic")
	ledger, _ := credits.NewLedger(s, clock)
	h, err := ledger.Reserve(ctx, ports.ReserveRequest{AccountID: a.ID, Amount: 10, TTL: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	charge := ports.Charge{Credits: 2, ServiceType: string(billing.BulkContent), ServiceName: "Bulk Content Extraction", Metadata: ports.TransactionMetadata{JobID: "job_1"}}
	tx, ok, err := ledger.ChargeHold(ctx, h, charge, "job_1:0")
	if err != nil || !ok || tx.Credits != 2 || tx.Metadata.JobID != "job_1" || tx.BalanceAfter != 5998 {
		t.Fatalf("first charge = %+v %v %v", tx, ok, err)
	}
	if _, ok, err := ledger.ChargeHold(ctx, h, charge, "job_1:0"); err != nil || ok {
		t.Fatalf("the same key charged again: %v %v", ok, err)
	}
	if err := ledger.ReleasePart(ctx, h, 2); err != nil {
		t.Fatal(err)
	}
	_, held, _ := s.ReadCredits(ctx, a.ID, clock.Now())
	if held != 6 {
		t.Fatalf("held %d, want 6 (10 - 2 charged - 2 released)", held)
	}
	// Concurrent retries of one URL charge it once.
	var charged atomic.Int32
	var wg sync.WaitGroup
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, ok, err := ledger.ChargeHold(ctx, h, charge, "job_1:1"); err != nil {
				t.Errorf("charge: %v", err)
			} else if ok {
				charged.Add(1)
			}
		}()
	}
	wg.Wait()
	if charged.Load() != 1 {
		t.Fatalf("one key charged %d times", charged.Load())
	}
	for i := 2; i < 4; i++ {
		if _, _, err := ledger.ChargeHold(ctx, h, charge, fmt.Sprintf("job_1:%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	st, held, _ := s.ReadCredits(ctx, a.ID, clock.Now())
	if held != 0 || billing.DefaultPlans().Balance(st) != 6000-8 {
		t.Fatalf("after draining the hold: held %d balance %d", held, billing.DefaultPlans().Balance(st))
	}
	if _, total, _ := s.Transactions(ctx, a.ID, 10, 0); total != 4 {
		t.Fatalf("%d transactions, want 4", total)
	}
	if err := ledger.ReleasePart(ctx, h, 2); err != nil {
		t.Fatalf("releasing from a drained hold: %v", err)
	}
}
