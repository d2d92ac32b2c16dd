package sqlstore_test

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/trawlhq/trawl/adapters/sqlstore"
	"github.com/trawlhq/trawl/core/billing"
	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/ports"
	"github.com/trawlhq/trawl/testkit/apitest"
	"github.com/trawlhq/trawl/testkit/pgtest"
	"github.com/trawlhq/trawl/testkit/sites"
)

const busy = "The service is busy right now. Please retry in a few seconds."

// limitedRole is a throwaway database owned by a non-superuser role whose
// CONNECTION LIMIT a test can change: Postgres then refuses new connections
// with 53300, as it does when max_connections is reached. (Superusers are
// exempt from connection limits, so the role is needed.)
type limitedRole struct {
	URL   string  // the database, as the role
	admin *sql.DB // the same database, as the superuser
	name  string
}

func newLimitedRole(t *testing.T) *limitedRole {
	t.Helper()
	var b [6]byte
	_, _ = rand.Read(b[:])
	r := &limitedRole{name: "trawl_role_" + hex.EncodeToString(b[:])}
	server, err := sql.Open("postgres", pgtest.ServerURL())
	if err != nil {
		t.Fatal(err)
	}
	// Registered before the database exists, so it runs after the database
	// (which the role owns) is dropped.
	t.Cleanup(func() {
		_, _ = server.Exec(`DROP ROLE IF EXISTS ` + r.name)
		server.Close()
	})
	dbURL := pgtest.NewDatabase(t)
	if _, err := server.Exec(`CREATE ROLE ` + r.name + ` LOGIN`); err != nil {
		t.Fatalf("create role: %v", err)
	}
	u, _ := url.Parse(dbURL)
	dbName := strings.TrimPrefix(u.Path, "/")
	if _, err := server.Exec(`ALTER DATABASE ` + dbName + ` OWNER TO ` + r.name); err != nil {
		t.Fatalf("database owner: %v", err)
	}
	if r.admin, err = sql.Open("postgres", dbURL); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.admin.Close() })
	u.User = url.User(r.name)
	r.URL = u.String()
	return r
}

// limit sets the role's connection limit (-1: none).
func (r *limitedRole) limit(t testing.TB, n int) {
	t.Helper()
	if _, err := r.admin.Exec(`ALTER ROLE ` + r.name + ` CONNECTION LIMIT ` + itoa(n)); err != nil {
		t.Fatalf("connection limit: %v", err)
	}
}

// drop ends every connection the role has open, as a restarted or
// overloaded server would, and waits until they have ended (a backend
// still alive would serve the next statement).
//
// A connection the store was opening as the limit fell (the statement cache
// prepares in the background) passed the limit already and may show in
// pg_stat_activity only after a first sweep: sweeps go on until two in a
// row, 100 ms apart, find none.
func (r *limitedRole) drop(t testing.TB) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for quiet := 0; quiet < 2; {
		var n int
		if err := r.admin.QueryRow(`SELECT count(pg_terminate_backend(pid, 5000)) FROM pg_stat_activity WHERE usename = $1`, r.name).Scan(&n); err != nil {
			t.Fatalf("terminate: %v", err)
		}
		if n == 0 {
			quiet++
		} else {
			quiet = 0
		}
		if time.Now().After(deadline) {
			t.Fatalf("the role still has %d connections after 10s", n)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func openPG(t *testing.T, dbURL string, timeout time.Duration, pool sqlstore.Pool) *sqlstore.Store {
	t.Helper()
	s, err := sqlstore.Open(context.Background(), sqlstore.Options{DatabaseURL: dbURL, QueryTimeout: timeout, Pool: pool})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// occupy takes n connections out of the store's pool until the returned
// function gives them back.
func occupy(t testing.TB, s *sqlstore.Store, n int) (giveBack func()) {
	t.Helper()
	var conns []*sql.Conn
	for range n {
		c, err := s.DB().Conn(context.Background())
		if err != nil {
			t.Fatalf("take a connection: %v", err)
		}
		conns = append(conns, c)
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			for _, c := range conns {
				c.Close()
			}
		})
	}
}

func TestPostgresPoolSettings(t *testing.T) {
	s := openPG(t, pgtest.NewDatabase(t), 0, sqlstore.Pool{MaxConns: 3, MaxIdleConns: 2})
	if st := s.DB().Stats(); st.MaxOpenConnections != 3 {
		t.Fatalf("max open connections = %d, want 3", st.MaxOpenConnections)
	}
	def := openPG(t, pgtest.NewDatabase(t), 0, sqlstore.Pool{})
	if st := def.DB().Stats(); st.MaxOpenConnections != sqlstore.DefaultPool(sqlstore.Postgres).MaxConns {
		t.Fatalf("default max open connections = %d", st.MaxOpenConnections)
	}
}

func TestPostgresExhaustedPoolIsTemporarilyUnavailable(t *testing.T) {
	s := openPG(t, pgtest.NewDatabase(t), 300*time.Millisecond, sqlstore.Pool{MaxConns: 2})
	ctx := context.Background()
	a, err := s.CreateAccount(ctx, ports.Account{Email: "pool@example.com", Plan: "basic", CreatedAt: time.Now(), UpdatedAt: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	giveBack := occupy(t, s, 2)
	start := time.Now()
	err = s.WithCredits(ctx, a.ID, func(ports.LedgerTx) error { return nil })
	if !failure.Is(err, failure.TemporarilyUnavailable) {
		t.Fatalf("WithCredits on an exhausted pool = %v", err)
	}
	if _, err := s.AccountByID(ctx, a.ID); !failure.Is(err, failure.TemporarilyUnavailable) {
		t.Fatalf("AccountByID on an exhausted pool = %v (not found would be a lie)", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("waited %s for a connection; the query timeout is 300ms", d)
	}
	// The caller's own deadline is not the database's fault.
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if _, err := s.AccountByID(short, a.ID); failure.Is(err, failure.TemporarilyUnavailable) {
		t.Fatalf("the caller's deadline was reported as an unavailable database: %v", err)
	}
	giveBack()
	if _, err := s.AccountByID(ctx, a.ID); err != nil {
		t.Fatalf("after the pool frees up: %v", err)
	}
}

func TestPostgresTooManyClientsIsTemporarilyUnavailable(t *testing.T) {
	r := newLimitedRole(t)
	s := openPG(t, r.URL, 2*time.Second, sqlstore.Pool{})
	ctx := context.Background()
	a, err := s.CreateAccount(ctx, ports.Account{Email: "limit@example.com", Plan: "basic", CreatedAt: time.Now(), UpdatedAt: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	r.limit(t, 0)
	r.drop(t)
	err = s.WithCredits(ctx, a.ID, func(ports.LedgerTx) error { return nil })
	if !failure.Is(err, failure.TemporarilyUnavailable) {
		t.Fatalf("WithCredits when Postgres refuses connections = %v", err)
	}
	if err := s.Ping(ctx); !failure.Is(err, failure.TemporarilyUnavailable) {
		t.Fatalf("Ping = %v", err)
	}
	r.limit(t, -1)
	if err := s.WithCredits(ctx, a.ID, func(ports.LedgerTx) error { return nil }); err != nil {
		t.Fatalf("after the limit is lifted: %v", err)
	}
}

func TestPostgresUnreachableIsTemporarilyUnavailable(t *testing.T) {
	// Nothing listens on port 1: connection refused.
	s, err := sqlstore.Connect(sqlstore.Options{DatabaseURL: "postgres://trawl@127.0.0.1:1/trawl?sslmode=disable&connect_timeout=2"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.AccountByID(context.Background(), 1); !failure.Is(err, failure.TemporarilyUnavailable) {
		t.Fatalf("AccountByID with the database down = %v", err)
	}
}

// pageSite serves one article; before serving it, onFetch runs (the moment
// after Trawl reserved the credits and before it charges them).
func pageSite(t *testing.T, onFetch func()) *sites.Site {
	site := sites.New(t, "pool.test")
	var once sync.Once
	site.Mux.HandleFunc("/article", func(w http.ResponseWriter, _ *http.Request) {
		if onFetch != nil {
			once.Do(onFetch)
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(`<html><head><title>Tide pools</title></head><body><article><h1>Tide pools</h1>` +
			strings.Repeat(`<p>Tide pools hold anemones, crabs and small fish between the tides, and they change with every wave that reaches them.</p>`, 8) +
			`</article></body></html>`))
	})
	return site
}

// expectBusy checks a 503 that tells the caller to come back.
func expectBusy(t *testing.T, r apitest.Response) {
	t.Helper()
	if r.Status != http.StatusServiceUnavailable {
		t.Fatalf("status %d, want 503: %s", r.Status, r.Body)
	}
	if r.Header.Get("Retry-After") != "2" {
		t.Fatalf("Retry-After = %q", r.Header.Get("Retry-After"))
	}
	if m := r.JSON(t); m["message"] != busy {
		t.Fatalf("message = %v", m["message"])
	}
}

// noHold checks the account was charged nothing beyond wantBalance and holds
// nothing (a stranded hold would stay for ten minutes).
func noHold(t *testing.T, e *apitest.Env, accountID int64, wantBalance int64) {
	t.Helper()
	var st ports.CreditState
	var held int64
	var err error
	for deadline := time.Now().Add(3 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		// The database may still be busy a moment after the answer.
		st, held, err = e.Store.ReadCredits(context.Background(), accountID, e.Clock.Now())
		if err == nil || !failure.Is(err, failure.TemporarilyUnavailable) || time.Now().After(deadline) {
			break
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	if held != 0 || billing.DefaultPlans().Balance(st) != wantBalance {
		t.Fatalf("balance %d, held %d; want %d and nothing held", billing.DefaultPlans().Balance(st), held, wantBalance)
	}
}

func TestPostgresExhaustedPoolAnswers503(t *testing.T) {
	s := openPG(t, pgtest.NewDatabase(t), 300*time.Millisecond, sqlstore.Pool{MaxConns: 2})
	site := pageSite(t, nil)
	e := apitest.Start(t, s, apitest.Options{Resolve: sites.Resolve(site), NoWorker: true})
	acct, tok := e.Account("busy@example.com", "basic")
	path := "/v1/content?url=" + url.QueryEscape(site.URL("/article"))

	giveBack := occupy(t, s, 2)
	expectBusy(t, e.Do("GET", path, tok, nil))

	// The same over Connect: code unavailable, with Retry-After.
	req, _ := http.NewRequest("POST", e.Server.URL+"/trawl.v1.PageService/GetContent", strings.NewReader(`{"url":"`+site.URL("/article")+`"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+tok)
	res, err := e.Server.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var ce struct{ Code, Message string }
	_ = json.NewDecoder(res.Body).Decode(&ce)
	res.Body.Close()
	if res.StatusCode != http.StatusServiceUnavailable || ce.Code != "unavailable" || ce.Message != busy || res.Header.Get("Retry-After") != "2" {
		t.Fatalf("Connect on an exhausted pool: %d %+v Retry-After %q", res.StatusCode, ce, res.Header.Get("Retry-After"))
	}

	giveBack()
	noHold(t, e, acct.ID, 6000)
	if r := e.Do("GET", path, tok, nil); r.Status != http.StatusOK {
		t.Fatalf("after the pool frees up: %d %s", r.Status, r.Body)
	}
	noHold(t, e, acct.ID, 5998)
}

func TestPostgresPoolExhaustedAfterTheFetchLeavesNoHold(t *testing.T) {
	s := openPG(t, pgtest.NewDatabase(t), 300*time.Millisecond, sqlstore.Pool{MaxConns: 2})
	var giveBack func()
	// The page is fetched; meanwhile other work takes every connection
	// for a second, so the charge cannot be written.
	site := pageSite(t, func() {
		giveBack = occupy(t, s, 2)
		time.AfterFunc(time.Second, giveBack)
	})
	e := apitest.Start(t, s, apitest.Options{Resolve: sites.Resolve(site), NoWorker: true})
	acct, tok := e.Account("after@example.com", "basic")
	r := e.Do("GET", "/v1/content?url="+url.QueryEscape(site.URL("/article")), tok, nil)
	expectBusy(t, r)
	// At the moment of the answer, not ten minutes later.
	noHold(t, e, acct.ID, 6000)
	if _, total, _ := e.Store.Transactions(context.Background(), acct.ID, 10, 0); total != 0 {
		t.Fatalf("%d transactions after a failed call", total)
	}
}

func TestPostgresTooManyClientsAfterTheFetchLeavesNoHold(t *testing.T) {
	r := newLimitedRole(t)
	s := openPG(t, r.URL, 2*time.Second, sqlstore.Pool{})
	// While the page is fetched, Postgres stops taking this role's
	// connections (53300) and drops the open ones, for a second.
	site := pageSite(t, func() {
		r.limit(t, 0)
		r.drop(t)
		time.AfterFunc(time.Second, func() { r.limit(t, -1) })
	})
	e := apitest.Start(t, s, apitest.Options{Resolve: sites.Resolve(site), NoWorker: true})
	acct, tok := e.Account("clients@example.com", "basic")
	expectBusy(t, e.Do("GET", "/v1/content?url="+url.QueryEscape(site.URL("/article")), tok, nil))
	noHold(t, e, acct.ID, 6000)
}

func TestPostgresConnectionLimitUnderLoadIsNever500(t *testing.T) {
	r := newLimitedRole(t)
	s := openPG(t, r.URL, time.Second, sqlstore.Pool{MaxConns: 8, MaxIdleConns: 1})
	site := pageSite(t, nil)
	e := apitest.Start(t, s, apitest.Options{Resolve: sites.Resolve(site), NoWorker: true})
	acct, tok := e.Account("load@example.com", "business")
	before := func() int64 {
		st, _, _ := e.Store.ReadCredits(context.Background(), acct.ID, e.Clock.Now())
		return billing.DefaultPlans().Balance(st)
	}()
	// Eight connections wanted, two allowed: Postgres answers the rest
	// "too many connections".
	r.limit(t, 2)
	r.drop(t)
	path := "/v1/content?url=" + url.QueryEscape(site.URL("/article"))
	statuses := make([]apitest.Response, 40)
	var wg sync.WaitGroup
	for i := range statuses {
		wg.Go(func() { statuses[i] = e.Do("GET", path, tok, nil) })
	}
	wg.Wait()
	r.limit(t, -1)
	ok, refused := 0, 0
	for _, res := range statuses {
		switch res.Status {
		case http.StatusOK:
			ok++
		case http.StatusServiceUnavailable:
			expectBusy(t, res)
			refused++
		default:
			t.Fatalf("status %d under a connection limit: %s", res.Status, res.Body)
		}
	}
	if refused == 0 {
		t.Fatalf("all %d calls succeeded on two connections; the limit did not bite", ok)
	}
	noHold(t, e, acct.ID, before-2*int64(ok))
	t.Logf("%d answered, %d refused with 503", ok, refused)
}

func TestSQLitePoolSettings(t *testing.T) {
	s, err := sqlstore.Open(context.Background(), sqlstore.Options{DataDir: t.TempDir(), Pool: sqlstore.Pool{MaxConns: 3}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if st := s.DB().Stats(); st.MaxOpenConnections != 3 {
		t.Fatalf("max open connections = %d, want 3", st.MaxOpenConnections)
	}
}
