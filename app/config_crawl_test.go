package app

import (
	"strings"
	"testing"
	"time"
)

func TestCrawlConfigFromEnv(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	c, err := DefaultConfig().FromEnv(env(map[string]string{"TRAWL_CRAWL_OPERATOR_URL": "https://ops.example/crawler", "TRAWL_CRAWL_PER_HOST": "3", "TRAWL_CRAWL_URL_LEASE": "20s"}))
	if err != nil {
		t.Fatal(err)
	}
	if c.Crawl.RunnerOptions().URLLease != 20*time.Second {
		t.Fatalf("URL lease %s", c.Crawl.RunnerOptions().URLLease)
	}
	if ua := c.Crawl.UserAgent(); ua != "Mozilla/5.0 (compatible; Trawl/1.0; +https://ops.example/crawler)" || c.Crawl.PerHost != 3 {
		t.Fatalf("User-Agent %q, per host %d", ua, c.Crawl.PerHost)
	}
	if ua := DefaultConfig().Crawl.UserAgent(); !strings.Contains(ua, "Trawl/1.0") || strings.Contains(ua, "+") {
		t.Fatalf("default User-Agent %q", ua)
	}
	for k, v := range map[string]string{"TRAWL_CRAWL_OPERATOR_URL": "ftp://ops.example/", "TRAWL_CRAWL_PER_HOST": "0", "TRAWL_CRAWL_DELAY": "-1s", "TRAWL_CRAWL_IGNORE_ROBOTS": "perhaps", "TRAWL_CRAWL_URL_LEASE": "10ms"} {
		if _, err := DefaultConfig().FromEnv(env(map[string]string{k: v})); err == nil || !strings.Contains(err.Error(), k) {
			t.Errorf("%s=%s: %v", k, v, err)
		}
	}
	for _, v := range []string{"https://ops.example/a b", "https://ops.example/(x)", "/relative"} {
		if _, err := DefaultConfig().FromEnv(env(map[string]string{"TRAWL_CRAWL_OPERATOR_URL": v})); err == nil {
			t.Errorf("operator URL %q accepted", v)
		}
	}
}
