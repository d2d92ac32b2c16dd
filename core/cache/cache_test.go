package cache_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/trawlhq/trawl/core/cache"
	"github.com/trawlhq/trawl/core/failure"
)

func TestDecide(t *testing.T) {
	for _, c := range []struct {
		name      string
		maxAge    time.Duration
		found     bool
		age       time.Duration
		validator bool
		want      cache.Decision
	}{
		{"max_age 0 always fetches", 0, true, 0, true, cache.Fetch},
		{"nothing kept", time.Hour, false, 0, false, cache.Fetch},
		{"fresh entry served", time.Hour, true, 59 * time.Minute, false, cache.Serve},
		{"exactly max_age is still fresh", time.Hour, true, time.Hour, false, cache.Serve},
		{"stale with a validator revalidates", time.Hour, true, time.Hour + time.Second, true, cache.Revalidate},
		{"stale without a validator fetches", time.Hour, true, 2 * time.Hour, false, cache.Fetch},
	} {
		if got := cache.Decide(c.maxAge, c.found, c.age, c.validator); got != c.want {
			t.Errorf("%s: Decide = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestParseMaxAge(t *testing.T) {
	for _, c := range []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"", 0, true}, {"0", 0, true}, {"3600", time.Hour, true}, {"2592000", 30 * 24 * time.Hour, true},
		{"2592001", 0, false}, {"-1", 0, false}, {"1h", 0, false}, {"1.5", 0, false},
	} {
		got, err := cache.ParseMaxAgeText(c.in, "max_age")
		if c.ok && (err != nil || got != c.want) {
			t.Errorf("max_age %q = %v, %v; want %v", c.in, got, err, c.want)
		}
		if !c.ok && (!failure.Is(err, failure.Invalid) || fmt.Sprint(failure.FieldNames(err)) != "[max_age]") {
			t.Errorf("max_age %q: %v, want a 422 naming max_age", c.in, err)
		}
	}
}

func TestKey(t *testing.T) {
	anon := cache.Request{Account: 1}
	base := cache.Key("site.test/a", cache.EngineHTTP, anon)
	if cache.Key("site.test/a", cache.EngineHTTP, cache.Request{Account: 2, MaxAge: time.Hour}) != base {
		t.Error("anonymous fetches of two accounts must share the key")
	}
	for name, k := range map[string]string{
		"other URL":         cache.Key("site.test/b", cache.EngineHTTP, anon),
		"other engine":      cache.Key("site.test/a", cache.EngineBrowser, anon),
		"other fingerprint": cache.Key("site.test/a", cache.EngineHTTP, cache.Request{Account: 1, Fingerprint: "locale=fr"}),
		"private":           cache.Key("site.test/a", cache.EngineHTTP, cache.Request{Account: 1, Private: true}),
	} {
		if k == base {
			t.Errorf("%s: same key as the base", name)
		}
	}
	if cache.Key("site.test/a", cache.EngineHTTP, cache.Request{Account: 1, Private: true}) == cache.Key("site.test/a", cache.EngineHTTP, cache.Request{Account: 2, Private: true}) {
		t.Error("private fetches of two accounts must not share the key")
	}
}

func TestCacheable(t *testing.T) {
	for _, c := range []struct {
		status int
		size   int64
		want   bool
	}{{200, 100, true}, {204, 0, true}, {206, 100, false}, {304, 0, false}, {404, 100, false}, {500, 100, false}, {200, 300, false}} {
		if got := cache.Cacheable(c.status, c.size, 1000); got != c.want {
			t.Errorf("Cacheable(%d, %d) = %v, want %v", c.status, c.size, got, c.want)
		}
	}
}
