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

// A group of pages whose commit fails is written again a page at a time,
// as it would have been without the group: the page that failed the
// commit fails alone, in its result, the others are charged once, the
// hold (in memory on SQLite) shrinks by what was charged and no more, and
// the same pages written again charge only the one that failed.
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
		s := postgresWith(t, 0,
			`CREATE FUNCTION fail_at_commit() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'failed at commit'; END $$`,
			`CREATE CONSTRAINT TRIGGER fail_at_commit AFTER INSERT ON crawl_urls DEFERRABLE INITIALLY DEFERRED
				FOR EACH ROW WHEN (NEW.url LIKE '%fail-at-commit%') EXECUTE FUNCTION fail_at_commit()`)
		testGroupCommitFails(t, s)
	})
}

// groupFixture is an account with a crawl of n claimed pages, a hold of 2
// credits a page, and the pages' charges (the last naming a link that
// fails the commit when poison).
type groupFixture struct {
	ledger  *credits.Ledger
	hold    ports.Hold
	account int64
	now     time.Time
	items   func(poison bool) []ports.KeyedCharge
}

func newGroupFixture(t *testing.T, s *sqlstore.Store, n int) groupFixture {
	t.Helper()
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
	for i := range n {
		k := string(rune('a' + i))
		add = append(add, ports.CrawlURL{URL: "https://site.test/" + k, Key: "site.test/" + k, Host: "site.test", Depth: 1})
	}
	if _, err := s.AddCrawlURLs(ctx, "crawl_g", add, 1000); err != nil {
		t.Fatal(err)
	}
	got, err := s.ClaimCrawlURLs(ctx, "crawl_g", n, 10, t0, time.Minute)
	if err != nil || len(got) != n {
		t.Fatalf("claimed %d, %v", len(got), err)
	}
	ledger, _ := credits.NewLedger(s, testkit.NewClock(t0))
	h, err := ledger.Reserve(ctx, ports.ReserveRequest{AccountID: a.ID, Amount: int64(2 * n), TTL: time.Hour, Durable: true})
	if err != nil {
		t.Fatal(err)
	}
	now := t0.Add(time.Second)
	items := func(poison bool) []ports.KeyedCharge {
		var out []ports.KeyedCharge
		for i, u := range got {
			u.State, u.Content = ports.CrawlSucceeded, []byte(`{}`)
			o := ports.CrawlOutcome{URL: u, HostCap: 1000, Now: now}
			if poison && i == len(got)-1 {
				o.Links = []ports.CrawlURL{{URL: "https://site.test/fail-at-commit", Key: "site.test/fail-at-commit", Host: "site.test", Depth: 2}}
			}
			out = append(out, ports.KeyedCharge{Key: "crawl_g:" + u.Key, Charge: ports.Charge{Credits: 2, ServiceType: "crawl", ServiceName: "Crawl", Outcome: &o}})
		}
		return out
	}
	return groupFixture{ledger: ledger, hold: h, account: a.ID, now: now, items: items}
}

func testGroupCommitFails(t *testing.T, s *sqlstore.Store) {
	ctx := context.Background()
	f := newGroupFixture(t, s, 3)
	ledger, h, items, now := f.ledger, f.hold, f.items, f.now
	res, err := ledger.ChargeEach(ctx, h, items(true))
	if err != nil {
		t.Fatalf("a group whose commit failed: %v; want each page written alone", err)
	}
	if !res[0].Charged || !res[1].Charged || res[0].Err != nil || res[1].Err != nil {
		t.Fatalf("the pages that did not fail the commit = %+v, %+v; want charged", res[0], res[1])
	}
	if res[2].Charged || res[2].Err == nil {
		t.Fatalf("the page that failed the commit = %+v; want its own failure", res[2])
	}
	t.Logf("the page that failed the commit: %v", res[2].Err)
	if _, total, _ := s.Transactions(ctx, f.account, 10, 0); total != 2 {
		t.Fatalf("%d transactions after a failed group commit, want 2", total)
	}
	if c, _ := s.CrawlCounts(ctx, "crawl_g"); c.Succeeded != 2 || c.InFlight != 1 || c.Discovered != 3 {
		t.Fatalf("counts after a failed group commit = %+v", c)
	}
	state, held, err := s.ReadCredits(ctx, f.account, now)
	if err != nil || held != 2 || state.Used != 4 {
		t.Fatalf("after a failed group commit: used %d, held %d, %v; want 4 and 2", state.Used, held, err)
	}
	// Written again without what failed the commit: the page that failed
	// is charged, the others not again.
	res, err = ledger.ChargeEach(ctx, h, items(false))
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range res {
		if r.Charged != (i == 2) || r.Err != nil {
			t.Fatalf("item %d = %+v", i, r)
		}
	}
	if res, _ := ledger.ChargeEach(ctx, h, items(false)); res[0].Charged || res[1].Charged || res[2].Charged {
		t.Fatalf("charged twice: %+v", res)
	}
	state, held, _ = s.ReadCredits(ctx, f.account, now)
	if _, total, _ := s.Transactions(ctx, f.account, 10, 0); total != 3 || held != 0 || state.Used != 6 {
		t.Fatalf("%d transactions, held %d, used %d; want 3, 0, 6", total, held, state.Used)
	}
	if c, _ := s.CrawlCounts(ctx, "crawl_g"); c.Succeeded != 3 || c.InFlight != 0 {
		t.Fatalf("counts = %+v", c)
	}
}

// A group whose one transaction outlasts the store's time limit, where
// each page alone would not, is written a page at a time: the timeout is
// the transaction's, not the page's that happened to be running, and no
// page is dropped or failed for it.
func TestGroupOutlastingTheTimeLimitWrittenPageByPage(t *testing.T) {
	s := postgresWith(t, time.Second,
		`CREATE FUNCTION slow_page() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(0.3); RETURN NEW; END $$`,
		`CREATE TRIGGER slow_page BEFORE UPDATE ON crawl_urls FOR EACH ROW WHEN (NEW.finished_at IS NOT NULL AND OLD.finished_at IS NULL) EXECUTE FUNCTION slow_page()`)
	ctx := context.Background()
	f := newGroupFixture(t, s, 6)
	res, err := f.ledger.ChargeEach(ctx, f.hold, f.items(false))
	if err != nil {
		t.Fatalf("a group past the time limit: %v; want each page written alone", err)
	}
	for i, r := range res {
		if !r.Charged || r.Err != nil {
			t.Fatalf("page %d = %+v; want charged", i, r)
		}
	}
	if _, total, _ := s.Transactions(ctx, f.account, 10, 0); total != 6 {
		t.Fatalf("%d transactions, want 6", total)
	}
	if c, _ := s.CrawlCounts(ctx, "crawl_g"); c.Succeeded != 6 || c.InFlight != 0 {
		t.Fatalf("counts = %+v", c)
	}
}

// postgresWith is a store on a new PostgreSQL database (its statements
// bounded by timeout, 0 for the default) where stmts ran first.
func postgresWith(t *testing.T, timeout time.Duration, stmts ...string) *sqlstore.Store {
	t.Helper()
	url := pgtest.NewDatabase(t)
	s, err := sqlstore.Open(context.Background(), sqlstore.Options{DatabaseURL: url, QueryTimeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	db, err := sql.Open("postgres", url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range stmts {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	return s
}
