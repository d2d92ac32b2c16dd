package e2e

import (
	"database/sql"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"sync"
	"testing"

	"github.com/trawlhq/trawl/testkit/pgtest"
	"github.com/trawlhq/trawl/testkit/redistest"
	"github.com/trawlhq/trawl/testkit/sites"
)

// fleet is several trawl processes on one database (and one Redis).
type fleet struct {
	nodes   []*server
	metrics []string // each node's metrics base URL
	store   []string // --database, for admin commands
	token   string   // the bootstrap token
}

// startFleet starts n nodes on db, the first alone (it bootstraps the
// store), the others after it; site is reached through --resolve and env
// goes to every node.
func startFleet(t *testing.T, n int, db string, site *sites.Site, env []string) *fleet {
	t.Helper()
	f := &fleet{store: []string{"--database", db}}
	store := []string{"--database", db, "--resolve", sites.ResolveFlags(site)[0]}
	for i := range n {
		maddr := freeAddr(t)
		nodeEnv := append([]string{"TRAWL_METRICS_ADDR=" + maddr, "TRAWL_LINK_SECRET=fleet-test-link-secret"}, env...)
		s := startEnv(t, append([]string{"--data-dir", t.TempDir()}, store...), nodeEnv)
		if i == 0 {
			f.token = tokenRE.FindString(s.stdout.String())
		}
		f.nodes = append(f.nodes, s)
		f.metrics = append(f.metrics, "http://"+maddr)
	}
	return f
}

// newAccount creates an account on plan and returns a token of it.
func (f *fleet) newAccount(t *testing.T, email, plan string) string {
	t.Helper()
	admin(t, f.store, "accounts", "create", "--email", email, "--plan", plan)
	var created map[string]any
	out := admin(t, f.store, "tokens", "create", "--email", email, "--name", "fleet", "--json")
	if err := json.Unmarshal([]byte(out), &created); err != nil {
		t.Fatalf("tokens create: %s", out)
	}
	return created["token"].(string)
}

// burst sends n scrape calls at once, spread over the nodes in turn, and
// counts the answers by status.
func (f *fleet) burst(t *testing.T, n int, token, url string) map[int]int {
	t.Helper()
	var mu sync.Mutex
	codes := map[int]int{}
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, _ := http.NewRequest("GET", f.nodes[i%len(f.nodes)].base+"/v1/scrape?url="+url, nil)
			req.Header.Set("Authorization", "Bearer "+token)
			<-start
			res, err := http.DefaultClient.Do(req)
			code := -1
			if err == nil {
				_, _ = io.Copy(io.Discard, res.Body)
				res.Body.Close()
				code = res.StatusCode
				if code == 429 && res.Header.Get("Retry-After") == "" {
					code = -429
				}
			}
			mu.Lock()
			codes[code]++
			mu.Unlock()
		}()
	}
	close(start)
	wg.Wait()
	return codes
}

// metricSum adds a sample's value over the nodes.
func (f *fleet) metricSum(t *testing.T, sample string) float64 {
	t.Helper()
	re := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(sample) + ` ([0-9.e+]+)$`)
	sum := 0.0
	for _, base := range f.metrics {
		res, err := http.Get(base + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if m := re.FindSubmatch(body); m != nil {
			v, _ := strconv.ParseFloat(string(m[1]), 64)
			sum += v
		}
	}
	return sum
}

func pageSite(t *testing.T) *sites.Site {
	site := sites.New(t, "fleet.test")
	site.Handle("/page", "text/html", `<html><head><title>Fleet</title></head><body><p>One page, many nodes.</p></body></html>`)
	return site
}

// TestFleetSharesLimitsAndCredits: three trawl processes on one PostgreSQL
// database and one Redis, driven over HTTP. A burst from one Basic token
// spread over the three gets exactly the per-minute limit; charges racing
// over the three for the last credits never overdraw.
func TestFleetSharesLimitsAndCredits(t *testing.T) {
	db := pgtest.NewDatabase(t)
	rds := redistest.New(t)
	site := pageSite(t)
	f := startFleet(t, 3, db, site, []string{"TRAWL_REDIS_URL=" + rds.URL, "TRAWL_REDIS_PREFIX=" + rds.Prefix})
	page := site.URL("/page")

	// A Basic account may scrape 15 times a minute, however many nodes.
	basic := f.newAccount(t, "burst@example.com", "basic")
	codes := f.burst(t, 45, basic, page)
	t.Logf("burst of 45 over 3 nodes sharing Redis: %v", codes)
	if codes[200] != 15 || codes[429] != 30 {
		t.Fatalf("burst of 45 over 3 nodes = %v, want 15 x 200 and 30 x 429 with Retry-After", codes)
	}
	if refused := f.metricSum(t, `trawl_ratelimit_decisions_total{group="scrape",outcome="refused"}`); refused != 30 {
		t.Errorf("the nodes' metrics count %v refusals, want 30", refused)
	}
	if up := f.metricSum(t, "trawl_ratelimit_backend_up"); up != 3 {
		t.Errorf("%v nodes report Redis up, want 3", up)
	}

	// A Business account with 10 credits left: 60 scrapes racing over the
	// nodes (within its limit of 180) get exactly 10 successes.
	racer := f.newAccount(t, "racer@example.com", "business")
	sdb, err := sql.Open("postgres", db)
	if err != nil {
		t.Fatal(err)
	}
	defer sdb.Close()
	if _, err := sdb.Exec(`UPDATE accounts SET allowance_used = 90000 - 10 WHERE email = 'racer@example.com'`); err != nil {
		t.Fatal(err)
	}
	if _, cr := get(t, f.nodes[1].base+"/v1/credits", racer); cr["balance"] != float64(10) {
		t.Fatalf("balance before the race = %v", cr["balance"])
	}
	codes = f.burst(t, 60, racer, page)
	t.Logf("60 charges racing over 3 nodes for 10 credits: %v", codes)
	if codes[200] != 10 || codes[402] != 50 {
		t.Fatalf("race = %v, want 10 x 200 and 50 x 402", codes)
	}
	for i, n := range f.nodes {
		if _, cr := get(t, n.base+"/v1/credits", racer); cr["balance"] != float64(0) {
			t.Fatalf("node %d: balance after the race = %v", i, cr["balance"])
		}
	}
	if _, tx := get(t, f.nodes[2].base+"/v1/credits/transactions?per_page=100", racer); tx["total"] != float64(10) {
		t.Fatalf("%v charges recorded, want 10", tx["total"])
	}
	for _, n := range f.nodes {
		n.stop(t)
	}
}

// TestFleetWithoutASharedLimiterMultipliesLimits: the same burst over three
// nodes each limiting alone lets through more than the limit, which is why
// a fleet on PostgreSQL shares its limits by default.
func TestFleetWithoutASharedLimiterMultipliesLimits(t *testing.T) {
	site := pageSite(t)
	f := startFleet(t, 3, pgtest.NewDatabase(t), site, []string{"TRAWL_RATE_LIMITER=memory"})
	codes := f.burst(t, 45, f.newAccount(t, "alone@example.com", "basic"), site.URL("/page"))
	t.Logf("burst of 45 over 3 nodes limiting alone: %v", codes)
	if codes[200] <= 15 {
		t.Fatalf("per-node limits let %d through; the shared-limit test above would not tell a shared limiter from none", codes[200])
	}
	for _, n := range f.nodes {
		n.stop(t)
	}
}

// TestFleetOnPostgresAlone: without Redis, a fleet on PostgreSQL shares
// its limits through the database.
func TestFleetOnPostgresAlone(t *testing.T) {
	site := pageSite(t)
	f := startFleet(t, 3, pgtest.NewDatabase(t), site, nil)
	codes := f.burst(t, 45, f.newAccount(t, "pg@example.com", "basic"), site.URL("/page"))
	t.Logf("burst of 45 over 3 nodes sharing PostgreSQL: %v", codes)
	if codes[200] != 15 || codes[429] != 30 {
		t.Fatalf("burst = %v, want 15 x 200 and 30 x 429", codes)
	}
	for _, n := range f.nodes {
		n.stop(t)
	}
}
