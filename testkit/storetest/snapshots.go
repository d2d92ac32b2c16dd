package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/trawlhq/trawl/ports"
)

// RunSnapshots runs the contract tests of change tracking's snapshots.
func RunSnapshots(t *testing.T, open Opener) {
	t.Run("SnapshotLatestPerAccountPageAndTag", func(t *testing.T) { testSnapshots(t, open(t)) })
	t.Run("SnapshotPrune", func(t *testing.T) { testSnapshotPrune(t, open(t)) })
}

func testSnapshots(t *testing.T, st Stores) {
	s := st.(ports.SnapshotStore)
	ctx := context.Background()
	a := newAccount(t, st, "snap-a@example.com", "basic")
	b := newAccount(t, st, "snap-b@example.com", "basic")
	if _, found, err := s.Snapshot(ctx, a.ID, "site.test/p", ""); err != nil || found {
		t.Fatalf("no snapshot yet: found %v, %v", found, err)
	}
	put := func(acct int64, tag, md string, data []byte, at time.Time) {
		t.Helper()
		if err := s.PutSnapshot(ctx, ports.Snapshot{AccountID: acct, URLKey: "site.test/p", Tag: tag, URL: "https://site.test/p", Markdown: md, Data: data, TakenAt: at}); err != nil {
			t.Fatal(err)
		}
	}
	put(a.ID, "", "first", nil, t0)
	put(a.ID, "", "second", nil, t0.Add(time.Hour))
	put(a.ID, "pricing", "tagged", []byte(`{"price":10}`), t0.Add(2*time.Hour))
	put(b.ID, "", "b's", nil, t0.Add(3*time.Hour))
	for _, c := range []struct {
		acct    int64
		tag, md string
		data    string
		takenAt time.Time
	}{
		{a.ID, "", "second", "", t0.Add(time.Hour)},
		{a.ID, "pricing", "tagged", `{"price":10}`, t0.Add(2 * time.Hour)},
		{b.ID, "", "b's", "", t0.Add(3 * time.Hour)},
	} {
		got, found, err := s.Snapshot(ctx, c.acct, "site.test/p", c.tag)
		if err != nil || !found || got.Markdown != c.md || string(got.Data) != c.data || !got.TakenAt.Equal(c.takenAt) || got.URL != "https://site.test/p" {
			t.Errorf("account %d tag %q: %+v, %v, %v; want %q taken %v", c.acct, c.tag, got, found, err, c.md, c.takenAt)
		}
		if got.Writer != "" || got.PrevMarkdown != "" || !got.PrevTakenAt.IsZero() {
			t.Errorf("a single call's snapshot has a writer or a previous one: %+v", got)
		}
	}
	// A job's snapshot keeps its writer and the one it was compared with;
	// the next write replaces them.
	job := ports.Snapshot{AccountID: a.ID, URLKey: "site.test/j", URL: "https://site.test/j", Markdown: "now", TakenAt: t0.Add(4 * time.Hour),
		Writer: "job_1", PrevMarkdown: "before", PrevTakenAt: t0.Add(3 * time.Hour)}
	if err := s.PutSnapshot(ctx, job); err != nil {
		t.Fatal(err)
	}
	if got, _, _ := s.Snapshot(ctx, a.ID, "site.test/j", ""); got.Writer != "job_1" || got.PrevMarkdown != "before" || !got.PrevTakenAt.Equal(job.PrevTakenAt) {
		t.Errorf("job snapshot = %+v", got)
	}
	put(a.ID, "", "plain", nil, t0.Add(5*time.Hour))
	job.Writer, job.PrevMarkdown, job.PrevTakenAt = "", "", time.Time{}
	if err := s.PutSnapshot(ctx, job); err != nil {
		t.Fatal(err)
	}
	if got, _, _ := s.Snapshot(ctx, a.ID, "site.test/j", ""); got.Writer != "" || got.PrevMarkdown != "" || !got.PrevTakenAt.IsZero() {
		t.Errorf("overwritten job snapshot = %+v", got)
	}
}

func testSnapshotPrune(t *testing.T, st Stores) {
	s := st.(ports.SnapshotStore)
	ctx := context.Background()
	a := newAccount(t, st, "snap-prune@example.com", "basic")
	for i, key := range []string{"site.test/old", "site.test/new"} {
		if err := s.PutSnapshot(ctx, ports.Snapshot{AccountID: a.ID, URLKey: key, URL: "https://" + key, Markdown: "x", TakenAt: t0.Add(time.Duration(i) * 48 * time.Hour)}); err != nil {
			t.Fatal(err)
		}
	}
	n, err := s.PruneSnapshots(ctx, t0.Add(24*time.Hour))
	if err != nil || n != 1 {
		t.Fatalf("prune = %d, %v; want 1", n, err)
	}
	if _, found, _ := s.Snapshot(ctx, a.ID, "site.test/old", ""); found {
		t.Error("the old snapshot survived the prune")
	}
	if _, found, _ := s.Snapshot(ctx, a.ID, "site.test/new", ""); !found {
		t.Error("the new snapshot was pruned")
	}
}
