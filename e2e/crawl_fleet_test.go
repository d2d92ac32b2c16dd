package e2e

import (
	"database/sql"
	"syscall"
	"testing"
	"time"

	"github.com/trawlhq/trawl/testkit/crawlsite"
	"github.com/trawlhq/trawl/testkit/pgtest"
	"github.com/trawlhq/trawl/testkit/sites"
)

// TestFleetCrawl: three trawl processes on one PostgreSQL database, two
// crawls of one host (each node works one job at a time, so two nodes
// read the host at once). The site counts the requests it serves at once:
// never more than TRAWL_CRAWL_PER_HOST across the fleet. The node working
// the first crawl is killed with SIGKILL mid-crawl: another node resumes
// it when the leases run out, and it ends with exactly its limit of pages,
// every page listed once and charged once.
func TestFleetCrawl(t *testing.T) {
	const perHost, limit = 2, 150
	cs := crawlsite.New(400)
	cs.Delay = 40 * time.Millisecond
	site := sites.New(t, "fleetcrawl.test")
	site.Mux.Handle("/", cs)
	db := pgtest.NewDatabase(t)
	const lease = 8 * time.Second
	f := startFleet(t, 3, db, site, []string{"TRAWL_CRAWL_DELAY=0", "TRAWL_CRAWL_PER_HOST=2", "TRAWL_CRAWL_CONCURRENCY=8", "TRAWL_BULK_JOBS=1",
		"TRAWL_BULK_LEASE=" + lease.String(), "TRAWL_CRAWL_URL_LEASE=" + lease.String()})
	sdb, err := sql.Open("postgres", db)
	if err != nil {
		t.Fatal(err)
	}
	defer sdb.Close()
	other := f.newAccount(t, "second@example.com", "business")

	code, ack := postJSON(t, f.nodes[0].base+"/v1/crawl", f.token, map[string]any{"url": "http://fleetcrawl.test/", "limit": limit, "max_depth": 4})
	if code != 202 {
		t.Fatalf("ack = %d %v", code, ack)
	}
	id := ack["crawl_id"].(string)
	code, ack2 := postJSON(t, f.nodes[1].base+"/v1/crawl", other, map[string]any{"url": "http://fleetcrawl.test/", "limit": 100, "max_depth": 4})
	if code != 202 {
		t.Fatalf("second ack = %d %v", code, ack2)
	}
	id2 := ack2["crawl_id"].(string)

	// Kill the node working the first crawl once it has extracted pages.
	var holder *server
	deadline := time.Now().Add(60 * time.Second)
	for {
		if time.Now().After(deadline) {
			t.Fatal("the first crawl did not get going")
		}
		_, st := get(t, f.nodes[2].base+"/v1/crawl/"+id, f.token)
		if n, _ := st["succeeded"].(float64); n >= 30 {
			if holder = f.holder(t, sdb, id); holder != nil {
				break
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	_, st := get(t, f.nodes[2].base+"/v1/crawl/"+id, f.token)
	_ = holder.cmd.Process.Signal(syscall.SIGKILL)
	<-holder.done
	holder.done <- nil
	killAt := time.Now()
	t.Logf("SIGKILL of the node working the crawl at %v pages extracted", st["succeeded"])
	var alive *server
	for _, n := range f.nodes {
		if n != holder {
			alive = n
		}
	}
	done := waitCrawl(t, alive.base, f.token, id, lease*2+90*time.Second)
	t.Logf("completed %s after SIGKILL", time.Since(killAt).Round(100*time.Millisecond))
	if done["status"] != "completed" || done["succeeded"] != float64(limit) || done["credits_charged"] != float64(2*limit) || done["in_flight"] != float64(0) {
		t.Fatalf("crawl = %v", done)
	}
	second := waitCrawl(t, alive.base, other, id2, 90*time.Second)
	if second["status"] != "completed" || second["succeeded"] != float64(100) {
		t.Fatalf("second crawl = %v", second)
	}
	// Every page listed once, none lost with the killed node.
	seen := map[string]bool{}
	cursor := ""
	for {
		q := alive.base + "/v1/crawl/" + id + "/pages?per_page=100"
		if cursor != "" {
			q += "&cursor=" + cursor
		}
		code, page := get(t, q, f.token)
		if code != 200 {
			t.Fatalf("pages: %d %v", code, page)
		}
		for _, p := range page["pages"].([]any) {
			u := p.(map[string]any)["url"].(string)
			if seen[u] {
				t.Fatalf("%s listed twice", u)
			}
			seen[u] = true
		}
		if page["next_cursor"] == nil {
			break
		}
		cursor = page["next_cursor"].(string)
	}
	if len(seen) != limit {
		t.Fatalf("listed %d pages, want %d", len(seen), limit)
	}
	// Charged once each, the rest of the hold released.
	if _, tx := get(t, alive.base+"/v1/credits/transactions?per_page=100", f.token); tx["total"] != float64(limit) {
		t.Fatalf("%v charges for %d pages: a page was charged twice or not at all", tx["total"], limit)
	}
	if _, cr := get(t, alive.base+"/v1/credits", f.token); cr["balance"] != float64(90000-2*limit) {
		t.Fatalf("balance %v, want %d charged and the hold released", cr["balance"], 2*limit)
	}
	t.Logf("fleet of 3, two crawls of one host: at most %d requests in flight to the host (setting %d); %d article requests for %d + 100 pages",
		cs.MaxInFlight(), perHost, cs.Hits("/p/"), limit)
	if cs.MaxInFlight() > perHost {
		t.Fatalf("%d requests in flight to one host, the setting is %d", cs.MaxInFlight(), perHost)
	}
	for _, n := range f.nodes {
		if n != holder {
			n.stop(t)
		}
	}
}
