package httpapi_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/trawlhq/trawl/adapters/sqlstore"
	"github.com/trawlhq/trawl/ports"
	"github.com/trawlhq/trawl/testkit/apitest"
	"github.com/trawlhq/trawl/testkit/memstore"
	"github.com/trawlhq/trawl/testkit/pgtest"
	"github.com/trawlhq/trawl/testkit/sites"
	"github.com/trawlhq/trawl/testkit/storetest"
)

// TestMonitorOnThreeNodes: three nodes (each its own services, worker
// and scheduler, on its own settable clock) share one store. Each
// scheduled time, every node ticks at once: a second before it nothing
// starts; at it exactly one node starts the check, which runs once, is
// charged once and reports once.
func TestMonitorOnThreeNodes(t *testing.T) {
	t.Run("memory", func(t *testing.T) { monitorOnThreeNodes(t, memstore.New()) })
	t.Run("postgres", func(t *testing.T) {
		s, err := sqlstore.Open(context.Background(), sqlstore.Options{DatabaseURL: pgtest.NewDatabase(t)})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		monitorOnThreeNodes(t, s)
	})
}

func monitorOnThreeNodes(t *testing.T, store storetest.Stores) {
	rcv := newReceiver(t, 0)
	site := newChangingSite(t)
	site.set("/pricing", pricing(10, 20))
	resolve := sites.Resolve(site.Site)
	resolve[rcv.hostKey] = strings.TrimPrefix(rcv.Server.URL, "http://")
	var nodes []*apitest.Env
	for range 3 {
		nodes = append(nodes, apitest.Start(t, store, apitest.Options{Resolve: resolve}))
	}
	acct, tok := nodes[0].Account("fleet@example.com", "business")
	before, _ := nodes[0].Credits.Status(context.Background(), acct.ID)
	res := nodes[1].Do("POST", "/v1/monitors", tok, map[string]any{"urls": []string{site.URL("/pricing")}, "schedule": "*/5 * * * *",
		"callback_url": rcv.URL(), "changes_only": false})
	if res.Status != 201 {
		t.Fatalf("create: %d %s", res.Status, res.Body)
	}
	id := res.JSON(t)["id"].(string)
	setAll := func(at time.Time) {
		for _, n := range nodes {
			n.Clock.Set(at)
		}
	}
	tickAll := func() []int {
		started := make([]int, len(nodes))
		var wg sync.WaitGroup
		for i, n := range nodes {
			wg.Add(1)
			go func() {
				defer wg.Done()
				k, err := n.Services.Scheduler.Tick(context.Background())
				if err != nil {
					t.Error(err)
				}
				started[i] = k
			}()
		}
		wg.Wait()
		return started
	}
	byNode := map[int]int{}
	const runs = 4
	for run := 1; run <= runs; run++ {
		at := time.Date(2026, 6, 15, 12, 5*run, 0, 0, time.UTC)
		setAll(at.Add(-time.Second))
		if started := tickAll(); started[0]+started[1]+started[2] != 0 {
			t.Fatalf("run %d: a second early, %v started", run, started)
		}
		setAll(at)
		started := tickAll()
		if started[0]+started[1]+started[2] != 1 {
			t.Fatalf("run %d: at %s the nodes started %v checks, want exactly one", run, at.Format("15:04"), started)
		}
		for i, k := range started {
			byNode[i] += k
		}
		// A late tick (the same scheduled time, seconds later) starts nothing more.
		setAll(at.Add(3 * time.Second))
		if started := tickAll(); started[0]+started[1]+started[2] != 0 {
			t.Fatalf("run %d: a late tick started %v", run, started)
		}
		waitChecks(t, nodes[0], id)
		hooks := rcv.deliveries()
		if len(hooks) != run {
			t.Fatalf("run %d: %d webhooks in all", run, len(hooks))
		}
		if r := report(t, hooks[run-1]); r.Check.ScheduledAt != ports.FormatTime(at) || r.Check.Credits != 2 {
			t.Fatalf("run %d: report %+v", run, r.Check)
		}
	}
	t.Logf("checks started by node: %v", byNode)
	got := nodes[2].Do("GET", "/v1/monitors/"+id, tok, nil).JSON(t)
	checks, _ := got["checks"].([]any)
	if len(checks) != runs {
		t.Fatalf("%d checks, want %d", len(checks), runs)
	}
	for i, c := range checks {
		c := c.(map[string]any)
		want := ports.FormatTime(time.Date(2026, 6, 15, 12, 5*(runs-i), 0, 0, time.UTC))
		if c["scheduled_at"] != want || c["status"] != "completed" || c["credits"] != float64(2) {
			t.Fatalf("check %d: %v, want scheduled at %s", i, c, want)
		}
	}
	after, _ := nodes[0].Credits.Status(context.Background(), acct.ID)
	if before.Balance-after.Balance != 2*runs {
		t.Fatalf("charged %d, want %d", before.Balance-after.Balance, 2*runs)
	}
}

// waitChecks waits until every check of the monitor has finished.
func waitChecks(t *testing.T, e *apitest.Env, monitorID string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		checks, err := e.Store.(ports.MonitorStore).MonitorChecks(context.Background(), monitorID, 100)
		if err != nil {
			t.Fatal(err)
		}
		done := true
		for _, c := range checks {
			done = done && c.FinishedAt != nil
		}
		if done {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatal("the checks did not finish")
}
