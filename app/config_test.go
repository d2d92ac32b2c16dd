package app

import (
	"testing"
	"time"
)

func TestConfigFromEnv(t *testing.T) {
	env := map[string]string{
		"TRAWL_ADDR": "0.0.0.0:9000", "TRAWL_DATA_DIR": "/var/trawl", "TRAWL_DATABASE_URL": "postgres://x@y/z",
		"TRAWL_FETCH_RESOLVE":    "site.test:80=127.0.0.1:18080, api.test:443=127.0.0.1:18443 ,",
		"TRAWL_SHUTDOWN_TIMEOUT": "3s", "TRAWL_BOOTSTRAP": "false", "TRAWL_MAX_BODY_BYTES": "2048",
	}
	c, err := DefaultConfig().FromEnv(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if c.Addr != "0.0.0.0:9000" || c.DataDir != "/var/trawl" || c.DatabaseURL != "postgres://x@y/z" || len(c.Resolve) != 2 ||
		c.Shutdown != 3*time.Second || c.Bootstrap || c.MaxBody != 2048 {
		t.Fatalf("config = %+v", c)
	}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if got := c.PublicBase(); got != "http://127.0.0.1:9000" {
		t.Errorf("PublicBase = %q", got)
	}
	for k, v := range map[string]string{"TRAWL_SHUTDOWN_TIMEOUT": "soon", "TRAWL_BOOTSTRAP": "maybe", "TRAWL_MAX_BODY_BYTES": "-1"} {
		if _, err := DefaultConfig().FromEnv(func(name string) string {
			if name == k {
				return v
			}
			return ""
		}); err == nil {
			t.Errorf("%s=%s accepted", k, v)
		}
	}
}

func TestParseResolve(t *testing.T) {
	for _, c := range []struct {
		in   string
		ok   bool
		host string
		addr string
	}{
		{"site.test:80=127.0.0.1:18080", true, "site.test", "127.0.0.1:18080"},
		{"Site.Test:443=[::1]:8443", true, "site.test", "[::1]:8443"},
		{"site.test=127.0.0.1:80", false, "", ""},
		{"site.test:80=localhost:80", false, "", ""},
		{"site.test:80", false, "", ""},
		{":80=127.0.0.1:80", false, "", ""},
	} {
		r, err := ParseResolve(c.in)
		if (err == nil) != c.ok || (c.ok && (r.Host != c.host || r.Addr != c.addr)) {
			t.Errorf("ParseResolve(%q) = %+v, %v", c.in, r, err)
		}
	}
}
