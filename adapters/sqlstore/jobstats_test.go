package sqlstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/trawlhq/trawl/adapters/sqlstore"
	"github.com/trawlhq/trawl/ports"
	"github.com/trawlhq/trawl/testkit/pgtest"
)

func testUnfinishedJobs(t *testing.T, s *sqlstore.Store) {
	ctx := context.Background()
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	a, err := s.CreateAccount(ctx, ports.Account{Name: "N", Email: "q@example.com", Plan: "basic", CreatedAt: t0, UpdatedAt: t0})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := s.UnfinishedJobs(ctx); err != nil || len(got) != 0 {
		t.Fatalf("empty queue: %v %v", got, err)
	}
	for i, at := range []time.Time{t0.Add(2 * time.Second), t0, t0.Add(time.Second)} {
		j := ports.BulkJob{ID: "job_" + string(rune('a'+i)), AccountID: a.ID, TokenID: 1, Status: ports.JobQueued, URLSource: "urls", QueuedAt: at, HoldID: "h"}
		if err := s.CreateJob(ctx, j, []string{"https://e.test/1", "https://e.test/2"}); err != nil {
			t.Fatal(err)
		}
	}
	// The oldest job is claimed: one processing, two queued.
	if _, ok, err := s.ClaimJob(ctx, "w", t0.Add(time.Minute), time.Minute); !ok || err != nil {
		t.Fatalf("claim: %v %v", ok, err)
	}
	got, err := s.UnfinishedJobs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []sqlstore.JobState{{Status: "processing", Count: 1, Oldest: t0}, {Status: "queued", Count: 2, Oldest: t0.Add(time.Second)}}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("UnfinishedJobs = %+v, want %+v", got, want)
	}
}

func TestUnfinishedJobsSQLite(t *testing.T) {
	s, err := sqlstore.Open(context.Background(), sqlstore.Options{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	testUnfinishedJobs(t, s)
}

func TestUnfinishedJobsPostgres(t *testing.T) {
	s, err := sqlstore.Open(context.Background(), sqlstore.Options{DatabaseURL: pgtest.NewDatabase(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	testUnfinishedJobs(t, s)
}
