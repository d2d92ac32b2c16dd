package app_test

import (
	"fmt"
	"testing"

	"github.com/trawlhq/trawl/app"
	"github.com/trawlhq/trawl/testkit/apitest"
	"github.com/trawlhq/trawl/testkit/memstore"
	"github.com/trawlhq/trawl/testkit/sites"
)

// The per-minute limits are the configured plan table's, through the real
// router: a Basic plan lowered to 2 scrapes a minute answers the third with
// 429, and one lifted to 40 lets 20 through, both read from the documented
// file format.
func TestConfiguredPlanLimits(t *testing.T) {
	site := sites.New(t, "plans.test")
	site.Handle("/", "text/html; charset=utf-8", `<!doctype html><html><head><title>P</title></head><body><p>Plans.</p></body></html>`)
	run := func(perMinute, calls int) (statuses []int) {
		t.Helper()
		plans, err := app.LoadPlans("test", fmt.Appendf(nil, "plans:\n  - name: basic\n    per_minute: {scrape: %d}\n  - name: pro\n", perMinute))
		if err != nil {
			t.Fatal(err)
		}
		e := apitest.Start(t, memstore.New(), apitest.Options{Resolve: sites.Resolve(site), Plans: plans})
		_, tok := e.Account(fmt.Sprintf("limit%d@example.com", perMinute), "basic")
		for range calls {
			r := e.Do("GET", "/v1/scrape?url=http://plans.test/", tok, nil)
			statuses = append(statuses, r.Status)
			if r.Status == 429 && r.Header.Get("Retry-After") == "" {
				t.Errorf("429 without Retry-After")
			}
		}
		return statuses
	}
	if got := run(2, 3); got[0] != 200 || got[1] != 200 || got[2] != 429 {
		t.Errorf("lowered to 2 a minute: %v, want 200 200 429", got)
	}
	for i, s := range run(40, 20) {
		if s != 200 {
			t.Fatalf("lifted to 40 a minute: call %d = %d", i+1, s)
		}
	}
}
