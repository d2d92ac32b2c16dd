package sqlstore_test

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/trawlhq/trawl/adapters/sqlstore"
	"github.com/trawlhq/trawl/core/credits"
	"github.com/trawlhq/trawl/ports"
	"github.com/trawlhq/trawl/testkit"
	"github.com/trawlhq/trawl/testkit/pgtest"
)

// A group of pages whose commit fails writes none of them: no page is
// charged, every item is told (the one error of ChargeEach), and the hold
// (in memory on SQLite) is as before, so the same pages charge once when
// written again.
func TestGroupCommitFailsWhole(t *testing.T) {
	t.Run("SQLite", func(t *testing.T) {
		dir := t.TempDir()
		s, err := sqlstore.Open(context.Background(), sqlstore.Options{DataDir: dir})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		db, err := sql.Open("sqlite", "file:"+sqlstore.SQLitePath(dir)+"?_pragma=busy_timeout(5000)")
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		// A row that breaks a deferred foreign key fails the COMMIT, not
		// the statement or the savepoint that wrote it.
		for _, q := range []string{
			`CREATE TABLE commit_guard (account_id INTEGER REFERENCES accounts(id) DEFERRABLE INITIALLY DEFERRED)`,
			`CREATE TRIGGER fail_at_commit AFTER INSERT ON crawl_urls WHEN NEW.url LIKE '%fail-at-commit%' BEGIN INSERT INTO commit_guard VALUES (-1); END`,
		} {
			if _, err := db.Exec(q); err != nil {
				t.Fatal(err)
			}
		}
		testGroupCommitFails(t, s)
	})
	t.Run("Postgres", func(t *testing.T) {
		url := pgtest.NewDatabase(t)
		s, err := sqlstore.Open(context.Background(), sqlstore.Options{DatabaseURL: url})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		db, err := sql.Open("postgres", url)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		for _, q := range []string{
			`CREATE FUNCTION fail_at_commit() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'failed at commit'; END $$`,
			`CREATE CONSTRAINT TRIGGER fail_at_commit AFTER INSERT ON crawl_urls DEFERRABLE INITIALLY DEFERRED
				FOR EACH ROW WHEN (NEW.url LIKE '%fail-at-commit%') EXECUTE FUNCTION fail_at_commit()`,
		} {
			if _, err := db.Exec(q); err != nil {
				t.Fatal(err)
			}
		}
		testGroupCommitFails(t, s)
	})
}

func testGroupCommitFails(t *testing.T, s *sqlstore.Store) {
	ctx := context.Background()
	t0 := time.Date(2026, 1, 31, 10, 0, 0, 0, time.UTC)
	a, err := s.CreateAccount(ctx, ports.Account{Name: "N", Email: "g@example.com", Plan: "basic", CreatedAt: t0, UpdatedAt: t0, EmailVerifiedAt: &t0})
	if err != nil {
		t.Fatal(err)
	}
	j := ports.BulkJob{ID: "crawl_g", AccountID: a.ID, Status: ports.JobQueued, URLSource: ports.URLSource("crawl"), QueuedAt: t0, HoldID: "hold_g"}
	if err := s.CreateCrawl(ctx, j, ports.Crawl{URL: "https://site.test/", Limit: 10, MaxDepth: 3, Params: []byte(`{}`)}); err != nil {
		t.Fatal(err)
	}
	var add []ports.CrawlURL
	for _, k := range []string{"a", "b", "c"} {
		add = append(add, ports.CrawlURL{URL: "https://site.test/" + k, Key: "site.test/" + k, Host: "site.test", Depth: 1})
	}
	if _, err := s.AddCrawlURLs(ctx, "crawl_g", add, 1000); err != nil {
		t.Fatal(err)
	}
	got, err := s.ClaimCrawlURLs(ctx, "crawl_g", 3, 10, t0, time.Minute)
	if err != nil || len(got) != 3 {
		t.Fatalf("claimed %d, %v", len(got), err)
	}
	ledger, _ := credits.NewLedger(s, testkit.NewClock(t0))
	h, err := ledger.Reserve(ctx, ports.ReserveRequest{AccountID: a.ID, Amount: 6, TTL: time.Hour, Durable: true})
	if err != nil {
		t.Fatal(err)
	}
	now := t0.Add(time.Second)
	items := func(poison bool) []ports.KeyedCharge {
		var out []ports.KeyedCharge
		for i, u := range got {
			u.State, u.Content = ports.CrawlSucceeded, []byte(`{}`)
			o := ports.CrawlOutcome{URL: u, HostCap: 1000, Now: now}
			if poison && i == 2 {
				o.Links = []ports.CrawlURL{{URL: "https://site.test/fail-at-commit", Key: "site.test/fail-at-commit", Host: "site.test", Depth: 2}}
			}
			out = append(out, ports.KeyedCharge{Key: "crawl_g:" + u.Key, Charge: ports.Charge{Credits: 2, ServiceType: "crawl", ServiceName: "Crawl", Outcome: &o}})
		}
		return out
	}
	if res, err := ledger.ChargeEach(ctx, h, items(true)); err == nil {
		t.Fatalf("a group whose commit failed = %+v, nil", res)
	} else {
		t.Logf("the group failed: %v", err)
	}
	if _, total, _ := s.Transactions(ctx, a.ID, 10, 0); total != 0 {
		t.Fatalf("%d transactions after a failed commit", total)
	}
	if c, _ := s.CrawlCounts(ctx, "crawl_g"); c.Succeeded != 0 || c.InFlight != 3 || c.Discovered != 3 {
		t.Fatalf("counts after a failed commit = %+v", c)
	}
	state, held, err := s.ReadCredits(ctx, a.ID, now)
	if err != nil || held != 6 || state.Used != 0 {
		t.Fatalf("after a failed commit: used %d, held %d, %v; want 0 and the hold whole (6)", state.Used, held, err)
	}
	// Written again without what failed the commit: charged once each.
	res, err := ledger.ChargeEach(ctx, h, items(false))
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range res {
		if !r.Charged || r.Err != nil {
			t.Fatalf("item %d = %+v", i, r)
		}
	}
	if res, _ := ledger.ChargeEach(ctx, h, items(false)); res[0].Charged || res[1].Charged || res[2].Charged {
		t.Fatalf("charged twice: %+v", res)
	}
	state, held, _ = s.ReadCredits(ctx, a.ID, now)
	if _, total, _ := s.Transactions(ctx, a.ID, 10, 0); total != 3 || held != 0 || state.Used != 6 {
		t.Fatalf("%d transactions, held %d, used %d; want 3, 0, 6", total, held, state.Used)
	}
	if c, _ := s.CrawlCounts(ctx, "crawl_g"); c.Succeeded != 3 || c.InFlight != 0 {
		t.Fatalf("counts = %+v", c)
	}
}
