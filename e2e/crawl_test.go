package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/trawlhq/trawl/testkit/crawlsite"
	"github.com/trawlhq/trawl/testkit/sites"
)

func waitCrawl(t *testing.T, base, token, id string, limit time.Duration) map[string]any {
	t.Helper()
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		if code, m := get(t, base+"/v1/crawl/"+id, token); code == 200 && (m["status"] == "completed" || m["status"] == "failed" || m["status"] == "cancelled") {
			return m
		}
		time.Sleep(100 * time.Millisecond)
	}
	_, m := get(t, base+"/v1/crawl/"+id, token)
	t.Fatalf("crawl %s did not finish in %s: %v", id, limit, m)
	return nil
}

// TestBinaryCrawl crawls a generated site of 300 articles (with duplicate
// spellings, canonical duplicates, a robots.txt, a trap and a 429) through
// the binary: every article once, each charged 2 credits, the pages listed
// through the cursor in the order they finished, and one signed event per
// page between crawl-started and crawl-completed.
func TestBinaryCrawl(t *testing.T) {
	cs := crawlsite.New(300)
	site := sites.New(t, "generated.test")
	site.Mux.Handle("/", cs)
	hook := newHook(t, 0)
	hookResolve, hookURL := hook.resolve()
	s := startEnv(t, []string{"--data-dir", t.TempDir(), "--resolve", sites.ResolveFlags(site)[0], "--resolve", hookResolve},
		[]string{"TRAWL_CRAWL_DELAY=0", "TRAWL_CRAWL_PER_HOST=4", "TRAWL_CRAWL_CONCURRENCY=8", "TRAWL_CRAWL_OPERATOR_URL=https://operator.example/crawler"})
	token := tokenRE.FindString(s.stdout.String())
	// A crawl of up to 10,000 pages is priced by the preview endpoint.
	if code, pv := postJSON(t, s.base+"/v1/credits/preview-cost", token, map[string]any{"service_type": "crawl", "quantity": 10000}); code != 200 || pv["total_cost"] != float64(20000) {
		t.Fatalf("crawl preview = %d %v", code, pv)
	}
	code, ack := postJSON(t, s.base+"/v1/crawl", token, map[string]any{"url": "http://generated.test/", "limit": 1000, "max_depth": 4, "callback_url": hookURL})
	if code != 202 || ack["status"] != "queued" {
		t.Fatalf("ack = %d %v", code, ack)
	}
	id := ack["crawl_id"].(string)
	st := waitCrawl(t, s.base, token, id, 120*time.Second)
	sk := st["skipped"].(map[string]any)
	// / + 300 articles + 4 calendar months + /slow/1.
	want := 1 + 300 + 4 + 1
	if st["status"] != "completed" || st["succeeded"] != float64(want) || st["credits_charged"] != float64(2*want) || st["failed"] != float64(1) {
		t.Fatalf("crawl = %v", st)
	}
	if sk["duplicate"] != float64(300) || sk["robots"] != float64(301) || sk["scope"] != float64(1) {
		t.Fatalf("skipped = %v", sk)
	}
	if cs.Hits("/private/") != 0 || cs.Hits("/p/") != 300 || cs.MaxInFlight() > 4 {
		t.Fatalf("private %d, articles %d, max in flight %d", cs.Hits("/private/"), cs.Hits("/p/"), cs.MaxInFlight())
	}
	// Every request names the crawler: the token robots.txt groups match
	// and the operator's URL.
	if ua := cs.UserAgents(); len(ua) != 1 || !strings.Contains(ua[0], "Trawl/") || !strings.Contains(ua[0], "+https://operator.example/crawler") {
		t.Fatalf("User-Agents = %q", ua)
	}
	t.Logf("crawl of a generated site of 300 articles: %d pages, skipped %v, %d credits, max %d requests in flight", want, sk, 2*want, cs.MaxInFlight())
	seen := map[string]bool{}
	cursor := ""
	for {
		q := s.base + "/v1/crawl/" + id + "/pages?per_page=100"
		if cursor != "" {
			q += "&cursor=" + cursor
		}
		code, page := get(t, q, token)
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
	if len(seen) != want || !seen["http://generated.test/p/300"] {
		t.Fatalf("listed %d pages, want %d", len(seen), want)
	}
	hook.mu.Lock()
	events := map[string]int{}
	for _, e := range hook.events {
		events[e]++
	}
	first, last := hook.events[0], hook.events[len(hook.events)-1]
	hook.mu.Unlock()
	if first != "crawl-started" || last != "crawl-completed" || events["crawl-page"] != want || events["crawl-page-failed"] != 1 {
		t.Fatalf("events %v (first %s, last %s)", events, first, last)
	}
	_, cr := get(t, s.base+"/v1/credits", token)
	if cr["balance"] != float64(90000-2*want) {
		t.Fatalf("balance %v, want %d charged and the rest of the hold released", cr["balance"], 2*want)
	}
	s.stop(t)
}
