package crawl

import (
	"context"
	"testing"
	"time"

	"github.com/trawlhq/trawl/ports"
)

type statusJobs struct {
	ports.JobStore
	job ports.BulkJob
}

func (s *statusJobs) Job(context.Context, string) (ports.BulkJob, error) { return s.job, nil }

// statusCrawls counts the crawl's frontier from succeeded, and the times
// it was counted.
type statusCrawls struct {
	ports.CrawlStore
	crawl     ports.Crawl
	succeeded int
	counted   int
}

func (s *statusCrawls) Crawl(context.Context, string) (ports.Crawl, error) { return s.crawl, nil }
func (s *statusCrawls) CancelCrawl(context.Context, string) error {
	s.crawl.CancelRequested = true
	return nil
}
func (s *statusCrawls) CrawlCounts(context.Context, string) (ports.CrawlCounts, error) {
	s.counted++
	return ports.CrawlCounts{Succeeded: s.succeeded}, nil
}

type statusClock struct {
	ports.Clock
	now time.Time
}

func (c *statusClock) Now() time.Time { return c.now }

func TestStatusCounts(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	done := t0.Add(time.Minute)
	for _, tc := range []struct {
		name   string
		job    ports.JobStatus
		ended  *time.Time
		cancel bool
		after  time.Duration // when the second call is made
		want   int           // succeeded said by the second call
		counts int           // times the frontier was counted by both
	}{
		{"running, polled again at once: the memo", ports.JobProcessing, nil, false, 250 * time.Millisecond, 1, 1},
		{"running, polled once the memo is old: counted", ports.JobProcessing, nil, false, CountsMemo, 2, 2},
		{"completed: counted at every call", ports.JobCompleted, &done, false, 0, 2, 2},
		{"queued: counted at every call", ports.JobQueued, nil, false, 0, 2, 2},
		{"being cancelled: counted at every call", ports.JobProcessing, nil, true, 0, 2, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			jobs := &statusJobs{job: ports.BulkJob{ID: "crawl_x", AccountID: 7, Kind: ports.KindCrawl, Status: tc.job, CompletedAt: tc.ended}}
			crawls := &statusCrawls{crawl: ports.Crawl{ID: "crawl_x", CancelRequested: tc.cancel}, succeeded: 1}
			clock := &statusClock{now: t0}
			s := &Service{jobs: jobs, crawls: crawls, clock: clock}
			if st, err := s.Status(context.Background(), 7, "crawl_x"); err != nil || st.Counts.Succeeded != 1 {
				t.Fatalf("first status %+v, %v", st, err)
			}
			crawls.succeeded = 2
			clock.now = t0.Add(tc.after)
			st, err := s.Status(context.Background(), 7, "crawl_x")
			if err != nil || st.Counts.Succeeded != tc.want || st.CreditsCharged != int64(CostPerPage*tc.want) {
				t.Fatalf("second status %+v, %v: want %d succeeded", st, err, tc.want)
			}
			if crawls.counted != tc.counts {
				t.Fatalf("frontier counted %d times, want %d", crawls.counted, tc.counts)
			}
		})
	}
}

// A crawl's status once it finished is exact, though its counts were
// remembered a moment before while it ran.
func TestStatusExactOnceFinished(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	jobs := &statusJobs{job: ports.BulkJob{ID: "crawl_x", AccountID: 7, Kind: ports.KindCrawl, Status: ports.JobProcessing}}
	crawls := &statusCrawls{crawl: ports.Crawl{ID: "crawl_x"}, succeeded: 3}
	clock := &statusClock{now: t0}
	s := &Service{jobs: jobs, crawls: crawls, clock: clock}
	if _, err := s.Status(context.Background(), 7, "crawl_x"); err != nil {
		t.Fatal(err)
	}
	crawls.succeeded = 5
	jobs.job.Status, jobs.job.CompletedAt = ports.JobCompleted, &t0
	st, err := s.Status(context.Background(), 7, "crawl_x")
	if err != nil || st.Counts.Succeeded != 5 || st.Status != "completed" {
		t.Fatalf("finished status %+v, %v: want 5 succeeded", st, err)
	}
}

func TestCountsMemoBounded(t *testing.T) {
	var m countsMemo
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range memoMax + 10 {
		m.put(string(rune('a'+i%26))+time.Duration(i).String(), ports.CrawlCounts{}, t0)
	}
	if len(m.byID) > memoMax {
		t.Fatalf("%d crawls remembered, at most %d", len(m.byID), memoMax)
	}
	m.put("late", ports.CrawlCounts{Succeeded: 1}, t0.Add(CountsMemo))
	if c, ok := m.get("late", t0.Add(CountsMemo)); !ok || c.Succeeded != 1 {
		t.Fatalf("a crawl put once the old entries ran out was not remembered: %v %v", c, ok)
	}
}
