package httpapi_test

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/trawlhq/trawl/testkit/apitest"
	"github.com/trawlhq/trawl/testkit/memstore"
	"github.com/trawlhq/trawl/testkit/sites"
)

// A bulk job refuses, when it is accepted, a URL /v1/content refuses: a
// host that resolves to a non-public address is a 422 naming urls.<i>, and
// nothing is held.
func TestBulkRefusesNonPublicHosts(t *testing.T) {
	e, tok, _ := bulkEnv(t, nil, apitest.Options{NoWorker: true})
	if r := e.Do("GET", "/v1/content?url=http://intranet.test/x", tok, nil); r.Status != 422 {
		t.Fatalf("the single endpoint = %d %s", r.Status, r.Body)
	}
	urls := []string{"http://news.test/a", "http://intranet.test/x", "http://news.test/b", "http://metadata.test/latest/meta-data/", "http://news.test/a", "http://intranet.test/y"}
	r := e.Do("POST", "/v1/content/bulk", tok, map[string]any{"urls": urls, "email": true})
	m := r.JSON(t)
	errs, _ := m["errors"].(map[string]any)
	if r.Status != 422 || len(errs) != 3 || errs["urls.1"] == nil || errs["urls.3"] == nil || errs["urls.5"] == nil {
		t.Fatalf("bulk with non-public hosts = %d %v; want 422 naming urls.1, urls.3 and urls.5", r.Status, m)
	}
	if msg := fmt.Sprint(errs["urls.1"]); !strings.Contains(msg, "non-public") {
		t.Fatalf("urls.1 = %s", msg)
	}
	if b := balance(t, e, tok); b != 90000 {
		t.Fatalf("a refused job held credits: balance %v", b)
	}
	// A sitemap's entries on such hosts are dropped, like entries that break the URL rules.
	site := sites.New(t, "maps.test")
	site.Handle("/s.xml", "application/xml", `<urlset><url><loc>http://intranet.test/a</loc></url><url><loc>http://maps.test/b</loc></url><url><loc>http://metadata.test/c</loc></url></urlset>`)
	e2 := apitest.Start(t, memstore.New(), apitest.Options{NoWorker: true, Resolve: sites.Resolve(site)})
	_, tok2 := e2.Account("maps@example.com", "business")
	r = e2.Do("POST", "/v1/content/bulk", tok2, map[string]any{"sitemap": "http://maps.test/s.xml", "email": true})
	if ack := r.JSON(t); r.Status != 202 || ack["urls_count"] != float64(1) {
		t.Fatalf("sitemap with non-public entries = %d %v", r.Status, ack)
	}
	site.Handle("/private.xml", "application/xml", `<urlset><url><loc>http://intranet.test/a</loc></url></urlset>`)
	r = e2.Do("POST", "/v1/content/bulk", tok2, map[string]any{"sitemap": "http://maps.test/private.xml", "email": true})
	if errs, _ := r.JSON(t)["errors"].(map[string]any); r.Status != 422 || errs["sitemap"] == nil {
		t.Fatalf("sitemap of non-public entries only = %d %s", r.Status, r.Body)
	}
}

// The hosts of a job are resolved at once, a bounded number at a time, and
// a host resolved for one URL is not resolved again for the next.
func TestBulkResolvesHostsConcurrently(t *testing.T) {
	var inFlight, most, lookups atomic.Int64
	const delay = 50 * time.Millisecond
	lookup := func(ctx context.Context, host string) ([]netip.Addr, error) {
		lookups.Add(1)
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for {
			m := most.Load()
			if n <= m || most.CompareAndSwap(m, n) {
				break
			}
		}
		select {
		case <-time.After(delay):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if strings.HasPrefix(host, "private") {
			return []netip.Addr{netip.MustParseAddr("192.168.1.9")}, nil
		}
		if strings.HasPrefix(host, "host") {
			return []netip.Addr{netip.MustParseAddr("93.184.215.14")}, nil
		}
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	e, tok, _ := bulkEnv(t, nil, apitest.Options{NoWorker: true, LookupIP: lookup})
	urls := make([]string, 100)
	for i := range urls {
		urls[i] = fmt.Sprintf("http://host%d.test/page", i%50) // 50 hosts, two URLs each
	}
	urls[97] = "http://private.test/a"
	start := time.Now()
	r := e.Do("POST", "/v1/content/bulk", tok, map[string]any{"urls": urls, "email": true})
	took := time.Since(start)
	errs, _ := r.JSON(t)["errors"].(map[string]any)
	if r.Status != 422 || len(errs) != 1 || errs["urls.97"] == nil {
		t.Fatalf("= %d %s", r.Status, r.Body)
	}
	if lookups.Load() != 51 {
		t.Fatalf("%d lookups for 51 hosts", lookups.Load())
	}
	if m := most.Load(); m < 2 || m > 8 {
		t.Fatalf("%d lookups at once; want between 2 and 8", m)
	}
	if took > 51*delay/2 {
		t.Fatalf("accepting took %s: the lookups ran in series", took)
	}
	t.Logf("51 lookups of %s each, at most %d at once: %s", delay, most.Load(), took)
	// Hosts that do not resolve now are left to the fetch: the job is accepted.
	urls[97] = "http://unknown.test/a"
	if r := e.Do("POST", "/v1/content/bulk", tok, map[string]any{"urls": urls, "email": true}); r.Status != 202 {
		t.Fatalf("a job with an unresolvable host = %d %s", r.Status, r.Body)
	}
}

// A resolver that never answers does not hold a submission: the check
// gives up within its bound and leaves the host to the fetch.
func TestBulkHostCheckIsBounded(t *testing.T) {
	lookup := func(ctx context.Context, host string) ([]netip.Addr, error) {
		if host == "hang.test" {
			<-ctx.Done()
			return nil, ctx.Err()
		}
		return apitest.LookupIP(ctx, host)
	}
	e, tok, _ := bulkEnv(t, nil, apitest.Options{NoWorker: true, LookupIP: lookup})
	start := time.Now()
	r := e.Do("POST", "/v1/content/bulk", tok, map[string]any{"urls": []string{"http://news.test/a", "http://hang.test/x", "http://intranet.test/y"}, "email": true})
	took := time.Since(start)
	if errs, _ := r.JSON(t)["errors"].(map[string]any); r.Status != 422 || len(errs) != 1 || errs["urls.2"] == nil {
		t.Fatalf("= %d %s", r.Status, r.Body)
	}
	if took > 8*time.Second {
		t.Fatalf("a hanging resolver held the submission %s", took)
	}
}
