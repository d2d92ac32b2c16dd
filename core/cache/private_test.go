package cache_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/trawlhq/trawl/adapters/blob"
	"github.com/trawlhq/trawl/adapters/fetch"
	"github.com/trawlhq/trawl/core/cache"
	"github.com/trawlhq/trawl/core/crawl"
	"github.com/trawlhq/trawl/core/weburl"
	"github.com/trawlhq/trawl/ports"
	"github.com/trawlhq/trawl/testkit"
	"github.com/trawlhq/trawl/testkit/memstore"
	"github.com/trawlhq/trawl/testkit/sites"
)

// A response fetched with the caller's own headers or cookies is kept for
// that account alone; anonymous entries are not served to a private fetch
// either (the site may answer a signed-in caller differently).
func TestPrivateFetchesNeverLeakAcrossAccounts(t *testing.T) {
	site := sites.New(t, "members.test")
	site.Mux.HandleFunc("/account", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<html><body><p>Your account page.</p></body></html>"))
	})
	clk := testkit.NewClock(time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC))
	bodies, err := blob.NewLocal(t.TempDir(), []byte("cache-test-secret-0123456789"), "http://127.0.0.1", clk.Now)
	if err != nil {
		t.Fatal(err)
	}
	c, err := cache.New(memstore.New(), bodies, clk, 1<<20, crawl.NewNormalizer(nil).Key)
	if err != nil {
		t.Fatal(err)
	}
	f := fetch.New(fetch.Options{Resolve: sites.Resolve(site), Timeout: 5 * time.Second})
	u, err := weburl.Parse(site.URL("/account"), weburl.Rules{Field: "url"})
	if err != nil {
		t.Fatal(err)
	}
	get := func(q cache.Request) cache.Info {
		t.Helper()
		ctx, tr := cache.Track(cache.With(context.Background(), q))
		if _, err := c.Fetch(ctx, f, ports.FetchRequest{URL: u}); err != nil {
			t.Fatal(err)
		}
		i, _ := tr.Info()
		return i
	}
	hour := time.Hour
	get(cache.Request{MaxAge: time.Hour, Account: 1, Private: true, Fingerprint: "cookie:session=a"})
	for _, c := range []struct {
		name string
		q    cache.Request
		hit  bool
	}{
		{"the same account, same options", cache.Request{MaxAge: hour, Account: 1, Private: true, Fingerprint: "cookie:session=a"}, true},
		{"another account, same options", cache.Request{MaxAge: hour, Account: 2, Private: true, Fingerprint: "cookie:session=a"}, false},
		{"another account, anonymous", cache.Request{MaxAge: hour, Account: 2}, false},
		{"the same account, other options", cache.Request{MaxAge: hour, Account: 1, Private: true, Fingerprint: "cookie:session=b"}, false},
	} {
		if got := get(c.q); got.Hit != c.hit {
			t.Errorf("%s: hit = %v, want %v", c.name, got.Hit, c.hit)
		}
	}
	// The anonymous fetch above stored a shared entry: an anonymous call
	// of any account is served it, a private one still is not.
	if got := get(cache.Request{MaxAge: hour, Account: 3}); !got.Hit {
		t.Error("anonymous call after an anonymous fetch: want a hit")
	}
	if got := get(cache.Request{MaxAge: hour, Account: 3, Private: true, Fingerprint: "cookie:session=c"}); got.Hit {
		t.Error("private call after an anonymous fetch: want a miss")
	}
	if n := site.Hits.Load(); n != 5 {
		t.Errorf("the site was asked %d times, want 5 (one per miss)", n)
	}
}
