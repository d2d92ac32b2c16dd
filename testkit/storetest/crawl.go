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

// CrawlStores is what the crawl contract runs on.
type CrawlStores interface {
	Stores
	ports.JobStore
	ports.CrawlStore
	ports.RobotsCache
	ports.HostGate
}

// RunCrawl runs the contract tests of the crawl frontier, the robots.txt
// cache and the per-host gate.
func RunCrawl(t *testing.T, open Opener) {
	t.Run("CrawlIsAJob", func(t *testing.T) { testCrawlIsAJob(t, open(t)) })
	t.Run("FrontierOncePerKey", func(t *testing.T) { testFrontierOnce(t, open(t)) })
	t.Run("ClaimsNeverPassTheLimit", func(t *testing.T) { testClaimLimit(t, open(t)) })
	t.Run("ConcurrentClaimsNeverPassTheLimit", func(t *testing.T) { testClaimLimitConcurrent(t, open(t)) })
	t.Run("LeasesAndRequeue", func(t *testing.T) { testCrawlLeases(t, open(t)) })
	t.Run("PagesInFinishedOrder", func(t *testing.T) { testCrawlPages(t, open(t)) })
	t.Run("PageOutcomeWithItsCharge", func(t *testing.T) { testCrawlOutcome(t, open(t)) })
	t.Run("PagesWrittenTogether", func(t *testing.T) { testCrawlGroup(t, open(t)) })
	t.Run("PageRefusedInAGroupUndoneAlone", func(t *testing.T) { testCrawlGroupRefused(t, open(t)) })
	t.Run("RobotsCache", func(t *testing.T) { testRobotsCache(t, open(t)) })
	RunHostGate(t, func(t *testing.T) ports.HostGate { return open(t).(CrawlStores) })
}

// RunHostGate runs the contract tests of a per-host politeness gate: a
// store's, shared by a fleet, or one held in the process.
func RunHostGate(t *testing.T, open func(t *testing.T) ports.HostGate) {
	t.Run("HostGate", func(t *testing.T) { testHostGate(t, open(t)) })
	t.Run("HostGateConcurrent", func(t *testing.T) { testHostGateConcurrent(t, open(t)) })
}

func newCrawl(t *testing.T, s CrawlStores, id string, limit int) {
	t.Helper()
	a := newAccount(t, s, id+"@example.com", "basic")
	j := ports.BulkJob{ID: id, AccountID: a.ID, TokenID: 1, Status: ports.JobQueued, URLSource: ports.URLSource("crawl"), QueuedAt: t0, HoldID: "hold_" + id, CallbackURL: "https://hooks.example/c"}
	if err := s.CreateCrawl(context.Background(), j, ports.Crawl{URL: "https://site.test/", Limit: limit, MaxDepth: 3, Params: []byte(`{"scope":"host"}`)}); err != nil {
		t.Fatal(err)
	}
}

func frontier(keys ...string) []ports.CrawlURL {
	var out []ports.CrawlURL
	for i, k := range keys {
		out = append(out, ports.CrawlURL{URL: "https://site.test/" + k, Key: "site.test/" + k, Host: "site.test", Depth: i % 3, Parent: "https://site.test/"})
	}
	return out
}

func testCrawlIsAJob(t *testing.T, st Stores) {
	s := st.(CrawlStores)
	ctx := context.Background()
	newCrawl(t, s, "crawl_a", 10)
	c, err := s.Crawl(ctx, "crawl_a")
	if err != nil || c.URL != "https://site.test/" || c.Limit != 10 || c.MaxDepth != 3 || string(c.Params) != `{"scope":"host"}` || c.Seeded || c.CancelRequested {
		t.Fatalf("Crawl = %+v, %v", c, err)
	}
	if _, err := s.Crawl(ctx, "crawl_none"); !failure.Is(err, failure.NotFound) {
		t.Fatalf("missing crawl: %v", err)
	}
	// The crawl's job is claimed from the one queue, as any job.
	j, ok, err := s.ClaimJob(ctx, "node-1", t0.Add(time.Second), time.Minute)
	if err != nil || !ok || j.ID != "crawl_a" || j.Kind != ports.KindCrawl || j.HoldID != "hold_crawl_a" {
		t.Fatalf("ClaimJob = %+v, %v, %v", j, ok, err)
	}
	if err := s.MarkSeeded(ctx, "crawl_a"); err != nil {
		t.Fatal(err)
	}
	if err := s.CancelCrawl(ctx, "crawl_a"); err != nil {
		t.Fatal(err)
	}
	if c, _ := s.Crawl(ctx, "crawl_a"); !c.Seeded || !c.CancelRequested {
		t.Fatalf("flags = %+v", c)
	}
	if err := s.CancelCrawl(ctx, "crawl_none"); !failure.Is(err, failure.NotFound) {
		t.Fatalf("cancel missing: %v", err)
	}
	// A bulk job reads as bulk.
	a := newAccount(t, s, "b@example.com", "basic")
	if err := s.CreateJob(ctx, job("job_b", a.ID, t0), []string{"https://e.test/1"}); err != nil {
		t.Fatal(err)
	}
	if b, _ := s.Job(ctx, "job_b"); b.Kind != ports.KindBulk {
		t.Fatalf("bulk job kind = %q", b.Kind)
	}
}

func testFrontierOnce(t *testing.T, st Stores) {
	s := st.(CrawlStores)
	ctx := context.Background()
	newCrawl(t, s, "crawl_a", 100)
	n, err := s.AddCrawlURLs(ctx, "crawl_a", frontier("a", "b", "a", "c"), 1000)
	if err != nil || n != 3 {
		t.Fatalf("AddCrawlURLs = %d, %v", n, err)
	}
	if n, _ := s.AddCrawlURLs(ctx, "crawl_a", frontier("b", "c", "d"), 1000); n != 1 {
		t.Fatalf("second add queued %d, want 1", n)
	}
	skipped := []ports.CrawlURL{{URL: "https://other.test/x", Key: "other.test/x", Host: "other.test", Depth: 1, State: ports.CrawlSkipped, Reason: "scope"}}
	if n, _ := s.AddCrawlURLs(ctx, "crawl_a", skipped, 1000); n != 0 {
		t.Fatalf("a skipped URL was queued")
	}
	if ok, _ := s.HasCrawlKey(ctx, "crawl_a", "site.test/d"); !ok {
		t.Fatal("HasCrawlKey d")
	}
	if ok, _ := s.HasCrawlKey(ctx, "crawl_a", "site.test/zz"); ok {
		t.Fatal("HasCrawlKey zz")
	}
	c, err := s.CrawlCounts(ctx, "crawl_a")
	if err != nil || c.Discovered != 5 || c.Queued != 4 || c.Skipped["scope"] != 1 {
		t.Fatalf("counts = %+v, %v", c, err)
	}
	// The host cap: past it, that host's new URLs are dropped.
	newCrawl(t, s, "crawl_b", 100)
	var many []ports.CrawlURL
	for i := range 12 {
		many = append(many, frontier(fmt.Sprint(i))...)
	}
	many = append(many, ports.CrawlURL{URL: "https://b.test/", Key: "b.test", Host: "b.test"})
	if n, _ := s.AddCrawlURLs(ctx, "crawl_b", many, 10); n != 11 {
		t.Fatalf("capped add queued %d, want 10 + 1", n)
	}
	if n, _ := s.AddCrawlURLs(ctx, "crawl_b", frontier("late"), 10); n != 0 {
		t.Fatalf("a capped host took another URL")
	}
	// Frontiers of two crawls do not meet.
	if n, _ := s.AddCrawlURLs(ctx, "crawl_b", frontier("a"), 1000); n != 1 {
		t.Fatal("crawl_b could not queue a key crawl_a has")
	}
	// A cap of 0 is none: the caller checks its own bound.
	if n, _ := s.AddCrawlURLs(ctx, "crawl_b", frontier("uncapped-1", "uncapped-2"), 0); n != 2 {
		t.Fatalf("an add without a cap queued %d, want 2", n)
	}
}

func testClaimLimit(t *testing.T, st Stores) {
	s := st.(CrawlStores)
	ctx := context.Background()
	newCrawl(t, s, "crawl_a", 3)
	keys := []string{"p0", "p1", "p2", "p3", "p4", "p5"}
	if _, err := s.AddCrawlURLs(ctx, "crawl_a", frontier(keys...), 1000); err != nil {
		t.Fatal(err)
	}
	now := t0.Add(time.Minute)
	got, err := s.ClaimCrawlURLs(ctx, "crawl_a", 10, 3, now, time.Minute)
	if err != nil || len(got) != 3 {
		t.Fatalf("claimed %d, %v; want 3", len(got), err)
	}
	// Shallowest first: depths are 0,1,2,0,1,2 in order.
	if got[0].Depth != 0 || got[1].Depth != 0 || got[2].Depth != 1 || got[0].State != ports.CrawlInFlight {
		t.Fatalf("claim order = %+v", got)
	}
	if more, _ := s.ClaimCrawlURLs(ctx, "crawl_a", 10, 3, now, time.Minute); len(more) != 0 {
		t.Fatalf("claimed %d past the limit", len(more))
	}
	// A failure frees its place; a success keeps it.
	f := got[0]
	f.State, f.Reason = ports.CrawlFailed, "page_not_found"
	if err := s.FinishCrawlURL(ctx, f, now); err != nil {
		t.Fatal(err)
	}
	ok := got[1]
	ok.State, ok.Content = ports.CrawlSucceeded, []byte(`{"url":"x"}`)
	if err := s.FinishCrawlURL(ctx, ok, now); err != nil {
		t.Fatal(err)
	}
	more, _ := s.ClaimCrawlURLs(ctx, "crawl_a", 10, 3, now, time.Minute)
	if len(more) != 1 {
		t.Fatalf("after a failure and a success claimed %d, want 1", len(more))
	}
	// Finishing twice keeps the first outcome.
	again := ok
	again.State = ports.CrawlFailed
	_ = s.FinishCrawlURL(ctx, again, now)
	if n, _ := s.SkipQueued(ctx, "crawl_a", "limit", now); n != 2 {
		t.Fatalf("SkipQueued = %d, want 2", n)
	}
	c, _ := s.CrawlCounts(ctx, "crawl_a")
	if c.Succeeded != 1 || c.Failed != 1 || c.InFlight != 2 || c.Queued != 0 || c.Skipped["limit"] != 2 || c.Discovered != 6 {
		t.Fatalf("counts = %+v", c)
	}
	if _, err := s.ClaimCrawlURLs(ctx, "crawl_none", 1, 1, now, time.Minute); !failure.Is(err, failure.NotFound) {
		t.Fatalf("claim on a missing crawl: %v", err)
	}
}

func testClaimLimitConcurrent(t *testing.T, st Stores) {
	s := st.(CrawlStores)
	ctx := context.Background()
	const limit = 7
	newCrawl(t, s, "crawl_a", limit)
	var keys []string
	for i := range 40 {
		keys = append(keys, fmt.Sprint("k", i))
	}
	if _, err := s.AddCrawlURLs(ctx, "crawl_a", frontier(keys...), 1000); err != nil {
		t.Fatal(err)
	}
	// Three nodes claim and finish: every claimed URL succeeds, so exactly
	// limit succeed, never more.
	now := t0.Add(time.Minute)
	var succeeded atomic.Int64
	var wg sync.WaitGroup
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				got, err := s.ClaimCrawlURLs(ctx, "crawl_a", 2, limit, now, time.Minute)
				if err != nil {
					t.Error(err)
					return
				}
				for _, u := range got {
					u.State = ports.CrawlSucceeded
					if err := s.FinishCrawlURL(ctx, u, now); err != nil {
						t.Error(err)
						return
					}
					succeeded.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	c, _ := s.CrawlCounts(ctx, "crawl_a")
	if succeeded.Load() != limit || c.Succeeded != limit || c.InFlight != 0 {
		t.Fatalf("succeeded %d (store %d, in flight %d), want %d", succeeded.Load(), c.Succeeded, c.InFlight, limit)
	}
}

func testCrawlLeases(t *testing.T, st Stores) {
	s := st.(CrawlStores)
	ctx := context.Background()
	newCrawl(t, s, "crawl_a", 10)
	if _, err := s.AddCrawlURLs(ctx, "crawl_a", frontier("a", "b"), 1000); err != nil {
		t.Fatal(err)
	}
	now := t0.Add(time.Minute)
	got, _ := s.ClaimCrawlURLs(ctx, "crawl_a", 1, 10, now, time.Minute)
	if len(got) != 1 {
		t.Fatal("claim")
	}
	// A node that dies holds its URL until the lease runs out; then it is
	// claimed again, not lost.
	if more, _ := s.ClaimCrawlURLs(ctx, "crawl_a", 5, 10, now.Add(30*time.Second), time.Minute); len(more) != 1 || more[0].ID == got[0].ID {
		t.Fatalf("within the lease: %+v", more)
	}
	again, _ := s.ClaimCrawlURLs(ctx, "crawl_a", 5, 10, now.Add(2*time.Minute), time.Minute)
	if len(again) != 2 {
		t.Fatalf("after the leases ran out claimed %d, want both", len(again))
	}
	// A requeued URL waits for its time and counts an attempt.
	if err := s.RequeueCrawlURL(ctx, "crawl_a", again[0].ID, now.Add(10*time.Minute), true); err != nil {
		t.Fatal(err)
	}
	if early, _ := s.ClaimCrawlURLs(ctx, "crawl_a", 5, 10, now.Add(9*time.Minute), time.Hour); len(early) != 1 || early[0].ID == again[0].ID {
		t.Fatalf("a requeued URL was claimed early: %+v", early)
	}
	late, _ := s.ClaimCrawlURLs(ctx, "crawl_a", 5, 10, now.Add(11*time.Minute), time.Hour)
	if len(late) != 1 || late[0].ID != again[0].ID || late[0].Attempts != 1 {
		t.Fatalf("requeued claim = %+v", late)
	}
	// A URL handed back before it started keeps its count.
	if err := s.RequeueCrawlURL(ctx, "crawl_a", late[0].ID, now.Add(11*time.Minute), false); err != nil {
		t.Fatal(err)
	}
	back, _ := s.ClaimCrawlURLs(ctx, "crawl_a", 5, 10, now.Add(12*time.Minute), time.Hour)
	if len(back) != 1 || back[0].ID != late[0].ID || back[0].Attempts != 1 {
		t.Fatalf("handed back, then claimed = %+v", back)
	}
}

func testCrawlPages(t *testing.T, st Stores) {
	s := st.(CrawlStores)
	ctx := context.Background()
	newCrawl(t, s, "crawl_a", 10)
	if _, err := s.AddCrawlURLs(ctx, "crawl_a", frontier("a", "b", "c", "d"), 1000); err != nil {
		t.Fatal(err)
	}
	now := t0.Add(time.Minute)
	got, _ := s.ClaimCrawlURLs(ctx, "crawl_a", 4, 10, now, time.Minute)
	// Finish in the order c, a, d (failed), b.
	order := []int{2, 0, 3, 1}
	for i, k := range order {
		u := got[k]
		u.State, u.Content, u.StatusCode, u.Engine = ports.CrawlSucceeded, []byte(fmt.Sprintf(`{"n":%d}`, i)), 200, "http"
		if k == 3 {
			u.State, u.Content, u.Reason, u.Error = ports.CrawlFailed, nil, "page_not_found", "The page could not be extracted."
		}
		if err := s.FinishCrawlURL(ctx, u, now.Add(time.Duration(i)*time.Second)); err != nil {
			t.Fatal(err)
		}
	}
	all, err := s.CrawlPages(ctx, "crawl_a", 0, 10, false)
	if err != nil || len(all) != 4 {
		t.Fatalf("CrawlPages = %d, %v", len(all), err)
	}
	for i, k := range order {
		if all[i].ID != got[k].ID || all[i].Seq != int64(i+1) {
			t.Fatalf("page %d = %+v, want id %d seq %d", i, all[i], got[k].ID, i+1)
		}
	}
	if all[0].StatusCode != 200 || all[0].Engine != "http" || string(all[0].Content) != `{"n":0}` || all[0].FinishedAt == nil || !all[0].FinishedAt.Equal(now) ||
		all[0].Parent != "https://site.test/" || all[2].Reason != "page_not_found" || all[2].Error == "" {
		t.Fatalf("page fields = %+v / %+v", all[0], all[2])
	}
	ok, _ := s.CrawlPages(ctx, "crawl_a", 0, 10, true)
	if len(ok) != 3 {
		t.Fatalf("succeeded only = %d", len(ok))
	}
	page, _ := s.CrawlPages(ctx, "crawl_a", 0, 2, true)
	next, _ := s.CrawlPages(ctx, "crawl_a", page[1].Seq, 2, true)
	if len(page) != 2 || len(next) != 1 || next[0].ID != got[1].ID {
		t.Fatalf("paging = %+v then %+v", page, next)
	}
}

func testRobotsCache(t *testing.T, st Stores) {
	s := st.(CrawlStores)
	ctx := context.Background()
	if _, ok, err := s.Robots(ctx, "https://site.test", t0); ok || err != nil {
		t.Fatalf("empty cache: %v %v", ok, err)
	}
	rec := ports.RobotsRecord{Origin: "https://site.test", StatusCode: 200, Body: []byte("User-agent: *\nDisallow: /x\n\xff"), FetchedAt: t0, ExpiresAt: t0.Add(24 * time.Hour)}
	if err := s.PutRobots(ctx, rec); err != nil {
		t.Fatal(err)
	}
	got, ok, err := s.Robots(ctx, "https://site.test", t0.Add(time.Hour))
	if err != nil || !ok || got.StatusCode != 200 || string(got.Body) != string(rec.Body) || !got.FetchedAt.Equal(t0) || !got.ExpiresAt.Equal(rec.ExpiresAt) {
		t.Fatalf("Robots = %+v, %v, %v", got, ok, err)
	}
	if _, ok, _ := s.Robots(ctx, "https://site.test", t0.Add(25*time.Hour)); ok {
		t.Fatal("an expired record was returned")
	}
	if err := s.PutRobots(ctx, ports.RobotsRecord{Origin: "https://site.test", StatusCode: 0, FetchedAt: t0.Add(25 * time.Hour), ExpiresAt: t0.Add(26 * time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if got, ok, _ := s.Robots(ctx, "https://site.test", t0.Add(25*time.Hour)); !ok || got.StatusCode != 0 || len(got.Body) != 0 {
		t.Fatalf("replaced record = %+v", got)
	}
}

func testHostGate(t *testing.T, s ports.HostGate) {
	ctx := context.Background()
	now := t0
	acquire := func(token string, at time.Time) (bool, time.Time) {
		ok, retry, err := s.AcquireHost(ctx, "site.test", token, 2, time.Second, at, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		return ok, retry
	}
	if ok, _ := acquire("a", now); !ok {
		t.Fatal("first slot")
	}
	// The delay: the next start waits a second.
	if ok, retry := acquire("b", now.Add(100*time.Millisecond)); ok || !retry.Equal(now.Add(time.Second)) {
		t.Fatalf("within the delay: %v %v", ok, retry)
	}
	if ok, _ := acquire("b", now.Add(time.Second)); !ok {
		t.Fatal("second slot")
	}
	// Two in flight: a third waits even past the delay.
	if ok, retry := acquire("c", now.Add(3*time.Second)); ok || retry.IsZero() {
		t.Fatal("a third slot was given")
	}
	// Another host is not held up.
	if ok, _, _ := s.AcquireHost(ctx, "other.test", "z", 2, time.Second, now.Add(3*time.Second), time.Minute); !ok {
		t.Fatal("another host")
	}
	if err := s.ReleaseHost(ctx, "site.test", "a", time.Time{}); err != nil {
		t.Fatal(err)
	}
	if ok, _ := acquire("c", now.Add(3*time.Second)); !ok {
		t.Fatal("a released slot was not given again")
	}
	// Backoff: a release with notBefore pushes the next start.
	if err := s.ReleaseHost(ctx, "site.test", "b", now.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if ok, retry := acquire("d", now.Add(10*time.Second)); ok || !retry.Equal(now.Add(time.Minute)) {
		t.Fatalf("during backoff: %v %v", ok, retry)
	}
	// A dead node's slot frees itself when its lease runs out.
	if ok, _ := acquire("e", now.Add(2*time.Minute)); !ok {
		t.Fatal("after backoff")
	}
	if ok, _ := acquire("f", now.Add(5*time.Minute)); !ok {
		t.Fatal("the leases of c and e should have run out")
	}
}

func testHostGateConcurrent(t *testing.T, s ports.HostGate) {
	ctx := context.Background()
	// Many nodes at one instant: at most max get a slot.
	var got atomic.Int64
	var wg sync.WaitGroup
	for i := range 12 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ok, _, err := s.AcquireHost(ctx, "site.test", fmt.Sprint("t", i), 3, 0, t0, time.Minute)
			if err != nil {
				t.Error(err)
			}
			if ok {
				got.Add(1)
			}
		}()
	}
	wg.Wait()
	if got.Load() != 3 {
		t.Fatalf("%d slots given, want 3", got.Load())
	}
}

// A page's outcome, the links it adds and its charge are written together:
// a charge refused writes none of them, a charge repeated charges once.
func testCrawlOutcome(t *testing.T, st Stores) {
	s := st.(CrawlStores)
	ctx := context.Background()
	clock := testkit.NewClock(t0)
	newCrawl(t, s, "crawl_a", 10)
	if _, err := s.AddCrawlURLs(ctx, "crawl_a", frontier("a", "b"), 1000); err != nil {
		t.Fatal(err)
	}
	got, err := s.ClaimCrawlURLs(ctx, "crawl_a", 2, 10, t0, time.Minute)
	if err != nil || len(got) != 2 {
		t.Fatalf("claimed %d, %v", len(got), err)
	}
	c, _ := s.Crawl(ctx, "crawl_a")
	j, _ := s.Job(ctx, c.ID)
	ledger, _ := credits.NewLedger(s, clock)
	h, err := ledger.Reserve(ctx, ports.ReserveRequest{AccountID: j.AccountID, Amount: 4, TTL: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	now := t0.Add(time.Second)
	skipped := ports.CrawlURL{URL: "https://other.test/", Key: "other.test/", Host: "other.test", Depth: 1, State: ports.CrawlSkipped, Reason: "scope", FinishedAt: &now}
	page := func(u ports.CrawlURL, links ...string) *ports.CrawlOutcome {
		u.State, u.Content = ports.CrawlSucceeded, []byte(`{"url":"`+u.URL+`"}`)
		return &ports.CrawlOutcome{URL: u, Links: append(frontier(links...), skipped), HostCap: 1000, Now: now}
	}
	charge := ports.Charge{Credits: 2, ServiceType: string(billing.Crawl), ServiceName: "Crawl"}

	// Charged: the page, its links and the charge, at once.
	charge.Outcome = page(got[0], "c", "d", "a")
	if _, ok, err := ledger.ChargeHold(ctx, h, charge, "crawl_a:1"); err != nil || !ok {
		t.Fatalf("charge with the page = %v, %v", ok, err)
	}
	counts, _ := s.CrawlCounts(ctx, "crawl_a")
	if counts.Succeeded != 1 || counts.Queued != 2 || counts.InFlight != 1 || counts.Skipped["scope"] != 1 {
		t.Fatalf("after the charged page: %+v", counts)
	}
	pages, _ := s.CrawlPages(ctx, "crawl_a", 0, 10, false)
	if len(pages) != 2 || pages[0].Key != got[0].Key || pages[0].Seq != 1 || pages[1].Seq != 2 || pages[0].FinishedAt == nil {
		t.Fatalf("finished in order: %+v", pages)
	}
	// The same key again: no second charge, the page keeps its outcome.
	if _, ok, err := ledger.ChargeHold(ctx, h, charge, "crawl_a:1"); err != nil || ok {
		t.Fatalf("a page charged twice: %v, %v", ok, err)
	}
	// Refused for want of credits: nothing of the page is written.
	if _, _, err := ledger.ChargeHold(ctx, h, ports.Charge{Credits: 2, ServiceType: "crawl", ServiceName: "Crawl"}, "other:1"); err != nil {
		t.Fatal(err)
	}
	if err := s.WithCredits(ctx, j.AccountID, func(tx ports.LedgerTx) error {
		st := tx.State()
		all := billing.DefaultPlans().Must(st.Plan).MonthlyCredits
		st.TopUp, st.AllowanceUsed, st.Used, st.PeriodStart = 0, all, all, st.PlanAnchor
		return tx.SaveState(st)
	}); err != nil {
		t.Fatal(err)
	}
	charge.Outcome = page(got[1], "e")
	if _, _, err := ledger.ChargeHold(ctx, h, charge, "crawl_a:2"); !failure.Is(err, failure.InsufficientCredits) {
		t.Fatalf("charge past the balance: %v", err)
	}
	if ok, _ := s.HasCrawlKey(ctx, "crawl_a", "site.test/e"); ok {
		t.Fatal("a refused charge added its page's links")
	}
	// Uncharged, the same outcome is written on its own.
	failed := *charge.Outcome
	failed.URL.State, failed.URL.Content, failed.URL.Reason = ports.CrawlFailed, nil, "unavailable"
	if n, err := s.FinishCrawlPage(ctx, failed); err != nil || n != 1 {
		t.Fatalf("FinishCrawlPage = %d, %v", n, err)
	}
	counts, _ = s.CrawlCounts(ctx, "crawl_a")
	if counts.Succeeded != 1 || counts.Failed != 1 || counts.Queued != 3 || counts.InFlight != 0 {
		t.Fatalf("after the failed page: %+v", counts)
	}
	if _, total, _ := s.Transactions(ctx, j.AccountID, 10, 0); total != 2 {
		t.Fatalf("%d transactions, want 2", total)
	}
}

// groupPage is a claimed URL's outcome as a crawl writes it when it
// succeeded, with the links its page adds.
func groupPage(u ports.CrawlURL, now time.Time, links ...string) *ports.CrawlOutcome {
	u.State, u.Content = ports.CrawlSucceeded, []byte(`{"url":"`+u.URL+`"}`)
	return &ports.CrawlOutcome{URL: u, Links: frontier(links...), HostCap: 1000, Now: now}
}

func groupCharge(o *ports.CrawlOutcome, key string) ports.KeyedCharge {
	return ports.KeyedCharge{Key: key, Charge: ports.Charge{Credits: 2, ServiceType: string(billing.Crawl), ServiceName: "Crawl", Outcome: o}}
}

// Pages written together (Ledger.ChargeEach): each item is decided and
// written as on its own, one failing leaves the others written, a key
// charged before (in the same group too) charges nothing.
func testCrawlGroup(t *testing.T, st Stores) {
	s := st.(CrawlStores)
	ctx := context.Background()
	clock := testkit.NewClock(t0)
	newCrawl(t, s, "crawl_a", 10)
	if _, err := s.AddCrawlURLs(ctx, "crawl_a", frontier("a", "b", "c", "d"), 1000); err != nil {
		t.Fatal(err)
	}
	got, err := s.ClaimCrawlURLs(ctx, "crawl_a", 4, 10, t0, time.Minute)
	if err != nil || len(got) != 4 {
		t.Fatalf("claimed %d, %v", len(got), err)
	}
	j, _ := s.Job(ctx, "crawl_a")
	ledger, _ := credits.NewLedger(s, clock)
	h, err := ledger.Reserve(ctx, ports.ReserveRequest{AccountID: j.AccountID, Amount: 6, TTL: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	now := t0.Add(time.Second)
	lost := *groupPage(got[3], now, "lost")
	lost.URL.CrawlID = "crawl_none" // its write fails: nothing of it is kept
	failed := ports.CrawlOutcome{URL: got[1], Links: frontier("f"), HostCap: 1000, Now: now}
	failed.URL.State, failed.URL.Reason = ports.CrawlFailed, "page_not_found"
	again := groupPage(got[0], now, "again")
	again.URL.State = ports.CrawlFailed
	items := []ports.KeyedCharge{
		groupCharge(groupPage(got[0], now, "e"), "crawl_a:1"),
		groupCharge(&lost, "crawl_a:4"),
		{Charge: ports.Charge{Outcome: &failed}}, // not charged: its outcome alone
		groupCharge(again, "crawl_a:1"),          // charged already, in this group
		groupCharge(groupPage(got[2], now), "crawl_a:3"),
	}
	res, err := ledger.ChargeEach(ctx, h, items)
	if err != nil || len(res) != len(items) {
		t.Fatalf("ChargeEach = %+v, %v", res, err)
	}
	for i, want := range []bool{true, false, false, false, true} {
		if res[i].Charged != want || (res[i].Err == nil) != (i != 1) {
			t.Fatalf("item %d = %+v, want charged %v", i, res[i], want)
		}
	}
	if res[0].Transaction.Credits != 2 || res[0].Transaction.ChargeKey != "crawl_a:1" {
		t.Fatalf("item 0's transaction = %+v", res[0].Transaction)
	}
	if _, total, _ := s.Transactions(ctx, j.AccountID, 10, 0); total != 2 {
		t.Fatalf("%d transactions, want 2", total)
	}
	if _, held, _ := s.ReadCredits(ctx, j.AccountID, now); held != 2 {
		t.Fatalf("held %d after two pages charged, want 2", held)
	}
	counts, _ := s.CrawlCounts(ctx, "crawl_a")
	if counts.Succeeded != 2 || counts.Failed != 1 || counts.InFlight != 1 || counts.Queued != 3 {
		t.Fatalf("counts = %+v", counts)
	}
	// The page charged before is written again as ChargeHold writes it: its
	// record keeps its first outcome, its links are added.
	if ok, _ := s.HasCrawlKey(ctx, "crawl_a", "site.test/lost"); ok {
		t.Fatal("a link of the item not written was added")
	}
	pages, _ := s.CrawlPages(ctx, "crawl_a", 0, 10, false)
	if len(pages) != 3 || pages[0].Key != got[0].Key || pages[0].State != ports.CrawlSucceeded || pages[1].Key != got[1].Key || pages[2].Key != got[2].Key {
		t.Fatalf("pages in the order written: %+v", pages)
	}
	for i, p := range pages {
		if p.Seq != int64(i+1) {
			t.Fatalf("page %d has seq %d", i, p.Seq)
		}
	}
	// Nothing to write is no transaction.
	if res, err := ledger.ChargeEach(ctx, h, nil); err != nil || len(res) != 0 {
		t.Fatalf("an empty group = %+v, %v", res, err)
	}
}

// A charge refused inside a group is undone alone: the hold it shrank
// before the balance refused it is whole again, and the next item is
// written.
func testCrawlGroupRefused(t *testing.T, st Stores) {
	s := st.(CrawlStores)
	ctx := context.Background()
	clock := testkit.NewClock(t0)
	newCrawl(t, s, "crawl_a", 10)
	if _, err := s.AddCrawlURLs(ctx, "crawl_a", frontier("a", "b"), 1000); err != nil {
		t.Fatal(err)
	}
	got, err := s.ClaimCrawlURLs(ctx, "crawl_a", 2, 10, t0, time.Minute)
	if err != nil || len(got) != 2 {
		t.Fatalf("claimed %d, %v", len(got), err)
	}
	j, _ := s.Job(ctx, "crawl_a")
	ledger, _ := credits.NewLedger(s, clock)
	h, err := ledger.Reserve(ctx, ports.ReserveRequest{AccountID: j.AccountID, Amount: 4, TTL: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	// The balance is spent elsewhere after the hold was placed.
	if err := s.WithCredits(ctx, j.AccountID, func(tx ports.LedgerTx) error {
		st := tx.State()
		all := billing.DefaultPlans().Must(st.Plan).MonthlyCredits
		st.TopUp, st.AllowanceUsed, st.Used, st.PeriodStart = 0, all, all, st.PlanAnchor
		return tx.SaveState(st)
	}); err != nil {
		t.Fatal(err)
	}
	now := t0.Add(time.Second)
	failed := ports.CrawlOutcome{URL: got[1], Now: now}
	failed.URL.State, failed.URL.Reason = ports.CrawlFailed, "page_not_found"
	res, err := ledger.ChargeEach(ctx, h, []ports.KeyedCharge{groupCharge(groupPage(got[0], now, "c"), "crawl_a:1"), {Charge: ports.Charge{Outcome: &failed}}})
	if err != nil {
		t.Fatal(err)
	}
	if !failure.Is(res[0].Err, failure.InsufficientCredits) || res[0].Charged || res[1].Err != nil {
		t.Fatalf("results = %+v", res)
	}
	if _, held, _ := s.ReadCredits(ctx, j.AccountID, now); held != 4 {
		t.Fatalf("held %d after a refused charge, want the hold whole (4)", held)
	}
	if _, total, _ := s.Transactions(ctx, j.AccountID, 10, 0); total != 0 {
		t.Fatalf("%d transactions, want none", total)
	}
	counts, _ := s.CrawlCounts(ctx, "crawl_a")
	if counts.Succeeded != 0 || counts.Failed != 1 || counts.InFlight != 1 || counts.Queued != 0 {
		t.Fatalf("counts = %+v", counts)
	}
	// The hold, whole again, still pays for the page once the balance does.
	if err := s.WithCredits(ctx, j.AccountID, func(tx ports.LedgerTx) error {
		st := tx.State()
		st.TopUp = 4
		return tx.SaveState(st)
	}); err != nil {
		t.Fatal(err)
	}
	res, err = ledger.ChargeEach(ctx, h, []ports.KeyedCharge{groupCharge(groupPage(got[0], now, "c"), "crawl_a:1")})
	if err != nil || !res[0].Charged || res[0].Err != nil {
		t.Fatalf("charge once paid for: %+v, %v", res, err)
	}
	if _, held, _ := s.ReadCredits(ctx, j.AccountID, now); held != 2 {
		t.Fatalf("held %d, want 2", held)
	}
}
