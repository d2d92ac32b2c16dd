package bulk_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/trawlhq/trawl/adapters/blob"
	"github.com/trawlhq/trawl/core/bulk"
	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/ports"
	"github.com/trawlhq/trawl/testkit/memstore"
)

var listT0 = time.Date(2026, 5, 1, 8, 0, 0, 0, time.UTC)

func TestJobListPagesWithCountsAndLinks(t *testing.T) {
	ctx := context.Background()
	store := memstore.New()
	acct, _ := store.CreateAccount(ctx, ports.Account{Email: "j@example.com", Plan: "pro", CreatedAt: listT0, UpdatedAt: listT0})
	blobs, err := blob.NewLocal(t.TempDir(), []byte("0123456789abcdef0123"), "https://trawl.test", func() time.Time { return listT0 })
	if err != nil {
		t.Fatal(err)
	}
	for i, id := range []string{"job_old", "job_new"} {
		j := ports.BulkJob{ID: id, AccountID: acct.ID, Status: ports.JobQueued, URLSource: "urls", QueuedAt: listT0.Add(time.Duration(i) * time.Hour)}
		if err := store.CreateJob(ctx, j, []string{"https://e.test/a", "https://e.test/b"}); err != nil {
			t.Fatal(err)
		}
	}
	done := listT0.Add(2 * time.Hour)
	_ = store.FinishURL(ctx, ports.BulkURL{JobID: "job_old", Index: 0, Status: ports.URLSucceeded, FinishedAt: &done})
	if err := blobs.Put(ctx, "results/job_old.zip", []byte("zip"), "application/zip"); err != nil {
		t.Fatal(err)
	}
	old, ok, _ := store.ClaimJob(ctx, "w", done, time.Minute)
	if !ok || old.ID != "job_old" {
		t.Fatalf("claimed %+v", old)
	}
	old.ArchiveKey, old.Status, old.CompletedAt = "results/job_old.zip", ports.JobCompleted, &done
	if err := store.FinishJob(ctx, old, "w"); err != nil {
		t.Fatal(err)
	}
	list, err := bulk.NewJobList(store, blobs, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	p, err := list.Page(ctx, acct.ID, 1, 1)
	if err != nil || p.Total != 2 || p.LastPage() != 2 || len(p.Jobs) != 1 || p.Jobs[0].Job.ID != "job_new" || p.Jobs[0].Pending != 2 || p.Jobs[0].Download != "" {
		t.Fatalf("page 1 = %+v, %v", p, err)
	}
	p, _ = list.Page(ctx, acct.ID, 2, 1)
	if r := p.Jobs[0]; r.Job.ID != "job_old" || r.Succeeded != 1 || r.Pending != 1 || !strings.HasPrefix(r.Download, "https://trawl.test/") {
		t.Fatalf("page 2 = %+v", p.Jobs)
	}
	if _, err := list.Page(ctx, acct.ID, 0, 10); !failure.Is(err, failure.Invalid) {
		t.Fatalf("page 0: %v", err)
	}
}

func TestSecretsShowAndRotate(t *testing.T) {
	ctx := context.Background()
	store := memstore.New()
	acct, _ := store.CreateAccount(ctx, ports.Account{Email: "s@example.com", CreatedAt: listT0, UpdatedAt: listT0})
	s, _ := bulk.NewSecrets(store)
	first, err := s.Show(ctx, acct.ID)
	if err != nil || !strings.HasPrefix(first, "whsec_") {
		t.Fatalf("show = %q, %v", first, err)
	}
	if again, _ := s.Show(ctx, acct.ID); again != first {
		t.Fatal("showing twice changed the secret")
	}
	rotated, err := s.Rotate(ctx, acct.ID)
	if err != nil || rotated == first || !strings.HasPrefix(rotated, "whsec_") {
		t.Fatalf("rotate = %q, %v", rotated, err)
	}
	// The worker signs with what the store now holds.
	if used, _ := store.WebhookSecret(ctx, acct.ID, bulk.NewWebhookSecret); used != rotated {
		t.Fatalf("deliveries would sign with %q, want %q", used, rotated)
	}
}
