package e2e

import (
	"database/sql"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

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

var ownerPIDRE = regexp.MustCompile(`-(\d+)-[0-9a-f]+$`)

// holder is the node whose worker holds job's lease (nil when none does).
func (f *fleet) holder(t *testing.T, sdb *sql.DB, job string) *server {
	t.Helper()
	var owner string
	if err := sdb.QueryRow(`SELECT lease_owner FROM bulk_jobs WHERE id = $1 AND status = 'processing'`, job).Scan(&owner); err != nil {
		return nil
	}
	m := ownerPIDRE.FindStringSubmatch(owner)
	if m == nil {
		return nil
	}
	for _, n := range f.nodes {
		if strconv.Itoa(n.cmd.Process.Pid) == m[1] {
			return n
		}
	}
	return nil
}

// load sends scrape calls one after another to target until stop closes,
// as a load balancer would: a call target refuses to connect (it stopped
// listening) goes to the next node instead. It counts target's answers by
// status, calls cut off after target took them (-1), and refused connections.
type load struct {
	mu       sync.Mutex
	answered map[int]int
	refused  int
	others   int
}

func (f *fleet) load(t *testing.T, target *server, token, url string, clients int, stop <-chan struct{}) (*load, *sync.WaitGroup) {
	l := &load{answered: map[int]int{}}
	var wg sync.WaitGroup
	client := &http.Client{Timeout: 30 * time.Second}
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				case <-time.After(80 * time.Millisecond):
				}
				for i, n := range append([]*server{target}, f.nodes...) {
					if i > 0 && n == target {
						continue
					}
					req, _ := http.NewRequest("GET", n.base+"/v1/scrape?url="+url, nil)
					req.Header.Set("Authorization", "Bearer "+token)
					res, err := client.Do(req)
					var op *net.OpError
					if err != nil && errors.As(err, &op) && op.Op == "dial" {
						if n == target {
							l.mu.Lock()
							l.refused++
							l.mu.Unlock()
						}
						continue // not taken: the next node gets it
					}
					code := -1
					if err == nil {
						_, _ = io.Copy(io.Discard, res.Body)
						res.Body.Close()
						code = res.StatusCode
					}
					l.mu.Lock()
					if n == target {
						l.answered[code]++
					} else {
						l.others++
					}
					l.mu.Unlock()
					break
				}
			}
		}()
	}
	return l, &wg
}

// TestFleetRollingRestart: a bulk job runs over three nodes on one
// database and one Redis. The node holding it is stopped with SIGTERM
// while it serves a steady load: it answers every call it took, hands the
// job back at once (another node resumes it long before the lease would
// run out) and a new node takes its place. The next holder is killed with
// SIGKILL: the job resumes when its lease runs out, completes once, and no
// URL is charged twice.
func TestFleetRollingRestart(t *testing.T) {
	db := pgtest.NewDatabase(t)
	rds := redistest.New(t)
	site, urls, served := articleSite(t, "rolling.test", 40, 250*time.Millisecond)
	pages := pageSite(t)
	hook := newHook(t, 0)
	hookResolve, hookURL := hook.resolve()
	const lease = 15 * time.Second
	env := []string{"TRAWL_REDIS_URL=" + rds.URL, "TRAWL_REDIS_PREFIX=" + rds.Prefix, "TRAWL_BULK_LEASE=" + lease.String()}
	store := []string{"--database", db, "--resolve", sites.ResolveFlags(site)[0], "--resolve", sites.ResolveFlags(pages)[0], "--resolve", hookResolve}
	f := &fleet{store: []string{"--database", db}}
	startNode := func() *server {
		s := startEnv(t, append([]string{"--data-dir", t.TempDir()}, store...), append([]string{"TRAWL_LINK_SECRET=fleet-test-link-secret"}, env...))
		f.nodes = append(f.nodes, s)
		return s
	}
	first := startNode()
	token := tokenRE.FindString(first.stdout.String())
	startNode()
	startNode()
	loadToken := f.newAccount(t, "load@example.com", "business")
	sdb, err := sql.Open("postgres", db)
	if err != nil {
		t.Fatal(err)
	}
	defer sdb.Close()

	code, ack := postJSON(t, first.base+"/v1/content/bulk", token, map[string]any{"urls": urls, "callback_url": hookURL})
	if code != 202 {
		t.Fatalf("ack = %d %v", code, ack)
	}
	id := ack["job_id"].(string)
	waitStatus(t, first.base, token, id, func(m map[string]any) bool { return m["processed_count"].(float64) >= 4 }, 30*time.Second)
	graceful := f.holder(t, sdb, id)
	if graceful == nil {
		t.Fatal("no node holds the job")
	}

	// SIGTERM the holder under load.
	stop := make(chan struct{})
	l, wg := f.load(t, graceful, loadToken, pages.URL("/page"), 3, stop)
	time.Sleep(500 * time.Millisecond)
	termAt := time.Now()
	_ = graceful.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-graceful.done:
		graceful.done <- err
		if err != nil {
			t.Fatalf("exit after SIGTERM: %v\n%s", err, graceful.stderr)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("no exit 20 s after SIGTERM")
	}
	time.Sleep(300 * time.Millisecond) // calls now go elsewhere
	close(stop)
	wg.Wait()
	t.Logf("graceful node under load: answered %v, refused %d connections after it stopped listening; other nodes answered %d", l.answered, l.refused, l.others)
	if len(l.answered) != 1 || l.answered[200] == 0 {
		t.Fatalf("the graceful node failed calls it took: %v", l.answered)
	}
	if !strings.Contains(graceful.stderr.String(), "handed back") {
		t.Fatalf("the job was not handed back:\n%s", graceful.stderr)
	}
	// Another node resumes it long before the lease would have run out.
	var next *server
	for deadline := time.Now().Add(lease / 2); next == nil || next == graceful; {
		if time.Now().After(deadline) {
			t.Fatalf("no node resumed the job within %s of SIGTERM (lease %s)", lease/2, lease)
		}
		time.Sleep(50 * time.Millisecond)
		next = f.holder(t, sdb, id)
	}
	t.Logf("resumed by another node %s after SIGTERM (lease %s)", time.Since(termAt).Round(10*time.Millisecond), lease)
	startNode() // the restarted node

	// SIGKILL the next holder mid-job; the restarted node watches.
	alive := f.nodes[len(f.nodes)-1]
	before := waitStatus(t, alive.base, token, id, func(m map[string]any) bool { return true }, time.Second)["processed_count"].(float64)
	waitStatus(t, alive.base, token, id, func(m map[string]any) bool { return m["processed_count"].(float64) >= before+3 }, 30*time.Second)
	_ = next.cmd.Process.Signal(syscall.SIGKILL)
	<-next.done
	next.done <- nil
	killAt := time.Now()
	job := waitStatus(t, alive.base, token, id, func(m map[string]any) bool { return m["status"] == "completed" || m["status"] == "failed" }, lease+30*time.Second)
	t.Logf("completed %s after SIGKILL; %d page fetches for 40 URLs", time.Since(killAt).Round(100*time.Millisecond), served.Load())
	if job["status"] != "completed" || job["success_count"] != float64(40) || job["failed_count"] != float64(0) {
		t.Fatalf("job = %v", job)
	}
	_, tx := get(t, alive.base+"/v1/credits/transactions?per_page=100", token)
	if tx["total"] != float64(40) {
		t.Fatalf("%v charges for 40 URLs: a URL was charged twice or not at all", tx["total"])
	}
	if _, cr := get(t, alive.base+"/v1/credits", token); cr["balance"] != float64(90000-80) {
		t.Fatalf("balance %v, want 80 charged", cr["balance"])
	}
	deadline := time.Now().Add(10 * time.Second)
	for hook.count() < 1 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond)
	if hook.count() != 1 {
		t.Fatalf("%d completion webhooks, want 1", hook.count())
	}
	for _, n := range f.nodes {
		if n != graceful && n != next {
			n.stop(t)
		}
	}
}
