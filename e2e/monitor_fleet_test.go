package e2e

import (
	"database/sql"
	"encoding/json"
	"syscall"
	"testing"
	"time"

	"github.com/trawlhq/trawl/testkit/pgtest"
	"github.com/trawlhq/trawl/testkit/sites"
)

// TestFleetMonitorCheckSurvivesKill: three trawl processes on one
// PostgreSQL database run a monitor's check on the job queue. The node
// working the check is killed with SIGKILL mid-check: another node resumes
// it when its lease runs out, and the check completes with every page
// read, each charged once, and one monitor-check webhook.
func TestFleetMonitorCheckSurvivesKill(t *testing.T) {
	const pages = 20
	db := pgtest.NewDatabase(t)
	site, urls, served := articleSite(t, "watched.test", pages, 250*time.Millisecond)
	hook := newHook(t, 0)
	hookResolve, hookURL := hook.resolve()
	const lease = 3 * time.Second
	store := []string{"--database", db, "--resolve", sites.ResolveFlags(site)[0], "--resolve", hookResolve}
	env := []string{"TRAWL_LINK_SECRET=fleet-test-link-secret", "TRAWL_BULK_JOBS=1", "TRAWL_BULK_LEASE=" + lease.String(), "TRAWL_MONITOR_TICK=200ms"}
	f := &fleet{store: []string{"--database", db}}
	for i := range 3 {
		s := startEnv(t, append([]string{"--data-dir", t.TempDir()}, store...), env)
		if i == 0 {
			f.token = tokenRE.FindString(s.stdout.String())
		}
		f.nodes = append(f.nodes, s)
	}
	sdb, err := sql.Open("postgres", db)
	if err != nil {
		t.Fatal(err)
	}
	defer sdb.Close()
	_, before := get(t, f.nodes[0].base+"/v1/credits", f.token)

	// Once a year, so no other run falls within the test; then made due
	// now, as a real clock would have it at its scheduled time.
	code, m := postJSON(t, f.nodes[1].base+"/v1/monitors", f.token, map[string]any{"name": "Articles", "urls": urls, "schedule": "0 0 1 1 *",
		"callback_url": hookURL, "changes_only": false})
	if code != 201 {
		t.Fatalf("create = %d %v", code, m)
	}
	id := m["id"].(string)
	if _, err := sdb.Exec(`UPDATE monitors SET next_run_at = $1 WHERE id = $2`, time.Now().UnixMilli(), id); err != nil {
		t.Fatal(err)
	}

	// Kill the node working the check once it has read a few pages.
	var holder *server
	var check string
	deadline := time.Now().Add(60 * time.Second)
	for holder == nil {
		if time.Now().After(deadline) {
			t.Fatal("the check did not get going")
		}
		if check == "" {
			_ = sdb.QueryRow(`SELECT id FROM monitor_checks WHERE monitor_id = $1`, id).Scan(&check)
		}
		if check != "" && served.Load() >= 4 {
			holder = f.holder(t, sdb, check)
		}
		time.Sleep(20 * time.Millisecond)
	}
	_ = holder.cmd.Process.Signal(syscall.SIGKILL)
	<-holder.done
	holder.done <- nil
	killedAt, part := time.Now(), served.Load()
	var alive *server
	for _, n := range f.nodes {
		if n != holder {
			alive = n
		}
	}
	var got map[string]any
	deadline = time.Now().Add(lease*2 + 60*time.Second)
	for {
		_, got = get(t, alive.base+"/v1/monitors/"+id, f.token)
		checks, _ := got["checks"].([]any)
		if len(checks) > 0 && checks[0].(map[string]any)["status"] == "completed" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the check did not complete after the kill: %v", got)
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("killed the node working the check after %d page reads; completed on another node %s later (%d reads in all)",
		part, time.Since(killedAt).Round(100*time.Millisecond), served.Load())
	checks := got["checks"].([]any)
	c := checks[0].(map[string]any)
	if len(checks) != 1 || c["pages_checked"] != float64(pages) || c["credits"] != float64(2*pages) || c["changed"] != float64(pages) {
		t.Fatalf("checks = %v", checks)
	}
	_, tx := get(t, alive.base+"/v1/credits/transactions?per_page=100", f.token)
	if tx["total"] != float64(pages) {
		t.Fatalf("%v transactions for %d pages: a page was charged twice or not at all", tx["total"], pages)
	}
	_, after := get(t, alive.base+"/v1/credits", f.token)
	if before["balance"].(float64)-after["balance"].(float64) != 2*pages {
		t.Fatalf("balance %v -> %v, want %d less", before["balance"], after["balance"], 2*pages)
	}
	// One report, listing every page as new.
	time.Sleep(500 * time.Millisecond)
	hook.mu.Lock()
	defer hook.mu.Unlock()
	if len(hook.bodies) != 1 || hook.events[0] != "monitor-check" {
		t.Fatalf("webhooks: %v", hook.events)
	}
	var r struct {
		Counts  map[string]int   `json:"counts"`
		Changes []map[string]any `json:"changes"`
	}
	if err := json.Unmarshal(hook.bodies[0], &r); err != nil || r.Counts["new"] != pages || len(r.Changes) != pages {
		t.Fatalf("report: %v %s", err, hook.bodies[0])
	}
	t.Logf("monitor-check webhook: %.400s", hook.bodies[0])
}
