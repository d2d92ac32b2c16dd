package storetest

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/ports"
)

// RunDashboard is the contract of the dashboard's store ports: ports.CredentialStore and ports.JobLister.
func RunDashboard(t *testing.T, open Opener) {
	t.Run("Passwords", func(t *testing.T) { testPasswords(t, open(t)) })
	t.Run("Sessions", func(t *testing.T) { testSessions(t, open(t)) })
	t.Run("EmailTokens", func(t *testing.T) { testEmailTokens(t, open(t)) })
	t.Run("EmailTokenUsedOnce", func(t *testing.T) { testEmailTokenOnce(t, open(t)) })
	t.Run("ExpiredDropped", func(t *testing.T) { testExpiredDropped(t, open(t)) })
	t.Run("ListJobs", func(t *testing.T) { testListJobs(t, open(t)) })
	t.Run("PaymentEvents", func(t *testing.T) { testPaymentEvents(t, open(t)) })
	t.Run("PlanCheckouts", func(t *testing.T) { testPlanCheckouts(t, open(t)) })
}

func credStore(t *testing.T, s Stores) ports.CredentialStore {
	t.Helper()
	c, ok := s.(ports.CredentialStore)
	if !ok {
		t.Fatalf("%T does not implement ports.CredentialStore", s)
	}
	return c
}

func testPasswords(t *testing.T, s Stores) {
	ctx := context.Background()
	c := credStore(t, s)
	a := newAccount(t, s, "pw@example.com", "")
	if _, err := c.PasswordHash(ctx, a.ID); !failure.Is(err, failure.NotFound) {
		t.Fatalf("no password yet: %v", err)
	}
	for _, h := range []string{"hash-1", "hash-2"} {
		if err := c.SetPasswordHash(ctx, a.ID, h); err != nil {
			t.Fatal(err)
		}
		got, err := c.PasswordHash(ctx, a.ID)
		if err != nil || got != h {
			t.Fatalf("PasswordHash = %q, %v; want %q", got, err, h)
		}
	}
	// Verification is set once and keeps its first time.
	unverified, err := s.CreateAccount(ctx, ports.Account{Name: "u", Email: "unverified@example.com", CreatedAt: t0, UpdatedAt: t0})
	if err != nil {
		t.Fatal(err)
	}
	if unverified.EmailVerifiedAt != nil {
		t.Fatalf("new account is verified: %v", unverified.EmailVerifiedAt)
	}
	for _, at := range []time.Time{t0.Add(time.Hour), t0.Add(2 * time.Hour)} {
		if err := c.MarkEmailVerified(ctx, unverified.ID, at); err != nil {
			t.Fatal(err)
		}
	}
	got, _ := s.AccountByID(ctx, unverified.ID)
	if got.EmailVerifiedAt == nil || !got.EmailVerifiedAt.Equal(t0.Add(time.Hour)) {
		t.Fatalf("email_verified_at = %v, want %v", got.EmailVerifiedAt, t0.Add(time.Hour))
	}
}

func testSessions(t *testing.T, s Stores) {
	ctx := context.Background()
	c := credStore(t, s)
	a := newAccount(t, s, "sess@example.com", "")
	b := newAccount(t, s, "other@example.com", "")
	mk := func(hash string, acct int64) {
		t.Helper()
		if err := c.CreateSession(ctx, ports.Session{Hash: hash, AccountID: acct, CreatedAt: t0, ExpiresAt: t0.Add(time.Hour)}); err != nil {
			t.Fatal(err)
		}
	}
	mk("s1", a.ID)
	mk("s2", a.ID)
	mk("s3", b.ID)
	got, err := c.Session(ctx, "s1", t0.Add(time.Minute))
	if err != nil || got.AccountID != a.ID || !got.ExpiresAt.Equal(t0.Add(time.Hour)) || !got.CreatedAt.Equal(t0) {
		t.Fatalf("Session = %+v, %v", got, err)
	}
	if _, err := c.Session(ctx, "s1", t0.Add(time.Hour)); !failure.Is(err, failure.NotFound) {
		t.Fatalf("expired session: %v", err)
	}
	if _, err := c.Session(ctx, "nope", t0); !failure.Is(err, failure.NotFound) {
		t.Fatalf("unknown session: %v", err)
	}
	if err := c.DeleteSession(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	if err := c.DeleteSession(ctx, "s1"); err != nil {
		t.Fatalf("deleting a deleted session: %v", err)
	}
	if _, err := c.Session(ctx, "s1", t0); !failure.Is(err, failure.NotFound) {
		t.Fatalf("deleted session: %v", err)
	}
	if err := c.DeleteAccountSessions(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Session(ctx, "s2", t0); !failure.Is(err, failure.NotFound) {
		t.Fatalf("session of a signed-out account: %v", err)
	}
	if _, err := c.Session(ctx, "s3", t0); err != nil {
		t.Fatalf("another account's session was ended: %v", err)
	}
}

func testEmailTokens(t *testing.T, s Stores) {
	ctx := context.Background()
	c := credStore(t, s)
	a := newAccount(t, s, "links@example.com", "")
	put := func(hash string, purpose ports.EmailPurpose) {
		t.Helper()
		if err := c.PutEmailToken(ctx, ports.EmailToken{Hash: hash, AccountID: a.ID, Purpose: purpose, CreatedAt: t0, ExpiresAt: t0.Add(time.Hour)}); err != nil {
			t.Fatal(err)
		}
	}
	put("v1", ports.EmailVerify)
	put("r1", ports.EmailReset)
	if _, err := c.UseEmailToken(ctx, "v1", ports.EmailReset, t0); !failure.Is(err, failure.NotFound) {
		t.Fatalf("a verification link used as a reset link: %v", err)
	}
	if _, err := c.UseEmailToken(ctx, "r1", ports.EmailReset, t0.Add(time.Hour)); !failure.Is(err, failure.NotFound) {
		t.Fatalf("expired link: %v", err)
	}
	got, err := c.UseEmailToken(ctx, "v1", ports.EmailVerify, t0.Add(time.Minute))
	if err != nil || got.AccountID != a.ID || got.Purpose != ports.EmailVerify || !got.ExpiresAt.Equal(t0.Add(time.Hour)) {
		t.Fatalf("UseEmailToken = %+v, %v", got, err)
	}
	if _, err := c.UseEmailToken(ctx, "v1", ports.EmailVerify, t0.Add(time.Minute)); !failure.Is(err, failure.NotFound) {
		t.Fatalf("second use: %v", err)
	}
}

func testEmailTokenOnce(t *testing.T, s Stores) {
	ctx := context.Background()
	c := credStore(t, s)
	a := newAccount(t, s, "race@example.com", "")
	if err := c.PutEmailToken(ctx, ports.EmailToken{Hash: "once", AccountID: a.ID, Purpose: ports.EmailReset, CreatedAt: t0, ExpiresAt: t0.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	var wins atomic.Int32
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := c.UseEmailToken(ctx, "once", ports.EmailReset, t0); err == nil {
				wins.Add(1)
			} else if !failure.Is(err, failure.NotFound) {
				t.Errorf("UseEmailToken: %v", err)
			}
		}()
	}
	wg.Wait()
	if wins.Load() != 1 {
		t.Fatalf("%d uses of a one-time link succeeded, want 1", wins.Load())
	}
}

func testListJobs(t *testing.T, st Stores) {
	ctx := context.Background()
	s, ok := st.(interface {
		jobStores
		ports.JobLister
	})
	if !ok {
		t.Fatalf("%T does not implement ports.JobLister", st)
	}
	a := newAccount(t, s, "jobs@example.com", "basic")
	b := newAccount(t, s, "others@example.com", "basic")
	for i, id := range []string{"job_1", "job_2", "job_3"} {
		if err := s.CreateJob(ctx, job(id, a.ID, t0.Add(time.Duration(i)*time.Minute)), []string{"https://e.test/1", "https://e.test/2", "https://e.test/3"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.CreateJob(ctx, job("job_b", b.ID, t0), []string{"https://e.test/x"}); err != nil {
		t.Fatal(err)
	}
	done := t0.Add(time.Hour)
	_ = s.FinishURL(ctx, ports.BulkURL{JobID: "job_2", Index: 0, Status: ports.URLSucceeded, StatusCode: 200, FinishedAt: &done})
	_ = s.FinishURL(ctx, ports.BulkURL{JobID: "job_2", Index: 1, Status: ports.URLSucceeded, StatusCode: 200, FinishedAt: &done})
	_ = s.FinishURL(ctx, ports.BulkURL{JobID: "job_2", Index: 2, Status: ports.URLFailed, StatusCode: 404, FinishedAt: &done})
	for i := range 2 {
		if err := s.RecordDelivery(ctx, ports.DeliveryAttempt{JobID: "job_2", Channel: "webhook", Attempt: i + 1, Target: "https://hooks.example/x", StatusCode: 500, At: done}); err != nil {
			t.Fatal(err)
		}
	}
	page, total, err := s.ListJobs(ctx, a.ID, 2, 0)
	if err != nil || total != 3 || len(page) != 2 || page[0].Job.ID != "job_3" || page[1].Job.ID != "job_2" {
		t.Fatalf("first page = %+v, total %d, %v", page, total, err)
	}
	if got := page[1]; got.Succeeded != 2 || got.Failed != 1 || got.Deliveries != 2 || got.Job.URLsCount != 3 || got.Job.AccountID != a.ID {
		t.Fatalf("job_2 summary = %+v", got)
	}
	page, _, _ = s.ListJobs(ctx, a.ID, 2, 2)
	if len(page) != 1 || page[0].Job.ID != "job_1" || page[0].Succeeded != 0 {
		t.Fatalf("second page = %+v", page)
	}
	if page, total, _ := s.ListJobs(ctx, b.ID, 10, 0); total != 1 || len(page) != 1 || page[0].Job.ID != "job_b" {
		t.Fatalf("other account = %+v", page)
	}
}

func testPaymentEvents(t *testing.T, st Stores) {
	ctx := context.Background()
	s, ok := st.(ports.PaymentEventStore)
	if !ok {
		t.Fatalf("%T does not implement ports.PaymentEventStore", st)
	}
	var wins atomic.Int32
	var wg sync.WaitGroup
	for range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			first, err := s.RecordPaymentEvent(ctx, "stripe", "evt_1", t0)
			if err != nil {
				t.Errorf("record: %v", err)
			}
			if first {
				wins.Add(1)
			}
		}()
	}
	wg.Wait()
	if wins.Load() != 1 {
		t.Fatalf("an event was recorded as new %d times", wins.Load())
	}
	if first, _ := s.RecordPaymentEvent(ctx, "other", "evt_1", t0); !first {
		t.Fatal("event ids of two providers collide")
	}
	if err := s.ForgetPaymentEvent(ctx, "stripe", "evt_1"); err != nil {
		t.Fatal(err)
	}
	if first, _ := s.RecordPaymentEvent(ctx, "stripe", "evt_1", t0); !first {
		t.Fatal("a forgotten event is still recorded")
	}
	a := newAccount(t, st, "subs@example.com", "")
	if _, err := s.Subscription(ctx, a.ID); !failure.Is(err, failure.NotFound) {
		t.Fatalf("no subscription yet: %v", err)
	}
	for _, x := range []ports.Subscription{
		{AccountID: a.ID, Provider: "stripe", ID: "sub_1", Plan: "pro", Status: "active", EventAt: t0},
		{AccountID: a.ID, Provider: "stripe", ID: "sub_1", Plan: "business", Status: "past_due", EventAt: t0.Add(time.Hour)},
	} {
		if err := s.SaveSubscription(ctx, x); err != nil {
			t.Fatal(err)
		}
		got, err := s.Subscription(ctx, a.ID)
		if err != nil || got != x {
			t.Fatalf("Subscription = %+v, %v; want %+v", got, err, x)
		}
	}
}

func testPlanCheckouts(t *testing.T, st Stores) {
	ctx := context.Background()
	s, ok := st.(ports.PlanCheckoutStore)
	if !ok {
		t.Fatalf("%T does not implement ports.PlanCheckoutStore", st)
	}
	a := newAccount(t, st, "plans@example.com", "")
	if err := s.CreatePlanCheckout(ctx, ports.PlanCheckoutSession{ID: "pcs_1", AccountID: a.ID, Plan: "pro", CreatedAt: t0}); err != nil {
		t.Fatal(err)
	}
	got, err := s.PlanCheckoutSession(ctx, "pcs_1")
	if err != nil || got.AccountID != a.ID || got.Plan != "pro" || !got.CreatedAt.Equal(t0) || got.PaidAt != nil {
		t.Fatalf("PlanCheckoutSession = %+v, %v", got, err)
	}
	if _, err := s.PlanCheckoutSession(ctx, "pcs_nope"); !failure.Is(err, failure.NotFound) {
		t.Fatalf("unknown: %v", err)
	}
	var wins atomic.Int32
	var wg sync.WaitGroup
	for range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if first, err := s.MarkPlanCheckoutPaid(ctx, "pcs_1", t0.Add(time.Minute)); err != nil {
				t.Errorf("mark: %v", err)
			} else if first {
				wins.Add(1)
			}
		}()
	}
	wg.Wait()
	if wins.Load() != 1 {
		t.Fatalf("paid %d times", wins.Load())
	}
	if got, _ := s.PlanCheckoutSession(ctx, "pcs_1"); got.PaidAt == nil || !got.PaidAt.Equal(t0.Add(time.Minute)) {
		t.Fatalf("paid_at %v", got.PaidAt)
	}
}

// testExpiredDropped: a new session or link clears the account's expired
// ones (looked up at a time they were live, they are gone), and nothing else.
func testExpiredDropped(t *testing.T, s Stores) {
	ctx := context.Background()
	c := credStore(t, s)
	a := newAccount(t, s, "tidy@example.com", "")
	b := newAccount(t, s, "other-tidy@example.com", "")
	sess := func(hash string, acct int64, from time.Time) {
		t.Helper()
		if err := c.CreateSession(ctx, ports.Session{Hash: hash, AccountID: acct, CreatedAt: from, ExpiresAt: from.Add(time.Hour)}); err != nil {
			t.Fatal(err)
		}
	}
	sess("old", a.ID, t0)
	sess("old-b", b.ID, t0)
	sess("live", a.ID, t0.Add(90*time.Minute))
	sess("new", a.ID, t0.Add(2*time.Hour))
	if _, err := c.Session(ctx, "old", t0.Add(time.Minute)); !failure.Is(err, failure.NotFound) {
		t.Fatalf("an expired session was kept: %v", err)
	}
	if _, err := c.Session(ctx, "old-b", t0.Add(45*time.Minute)); err != nil {
		t.Fatalf("another account's session was dropped: %v", err)
	}
	if _, err := c.Session(ctx, "live", t0.Add(100*time.Minute)); err != nil {
		t.Fatalf("a live session was dropped: %v", err)
	}
	link := func(hash string, from time.Time) {
		t.Helper()
		if err := c.PutEmailToken(ctx, ports.EmailToken{Hash: hash, AccountID: a.ID, Purpose: ports.EmailReset, CreatedAt: from, ExpiresAt: from.Add(time.Hour)}); err != nil {
			t.Fatal(err)
		}
	}
	link("old-link", t0)
	link("new-link", t0.Add(2*time.Hour))
	if _, err := c.UseEmailToken(ctx, "old-link", ports.EmailReset, t0.Add(time.Minute)); !failure.Is(err, failure.NotFound) {
		t.Fatalf("an expired link was kept: %v", err)
	}
}
