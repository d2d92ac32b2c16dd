package app

import (
	"strings"
	"testing"
	"time"

	"github.com/trawlhq/trawl/adapters/sqlstore"
)

func TestDatabasePoolFromEnv(t *testing.T) {
	env := map[string]string{
		"TRAWL_DATABASE_URL": "postgres://trawl@db:5432/trawl", "TRAWL_DATABASE_MAX_CONNS": "12", "TRAWL_DATABASE_MAX_IDLE_CONNS": "4",
		"TRAWL_DATABASE_CONN_MAX_LIFETIME": "20m", "TRAWL_DATABASE_CONN_MAX_IDLE_TIME": "90s", "TRAWL_DATABASE_QUERY_TIMEOUT": "3s",
	}
	c, err := DefaultConfig().FromEnv(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	o := c.StoreOptions()
	want := sqlstore.Pool{MaxConns: 12, MaxIdleConns: 4, ConnMaxLifetime: 20 * time.Minute, ConnMaxIdleTime: 90 * time.Second}
	if o.Pool != want || o.QueryTimeout != 3*time.Second || o.DatabaseURL != env["TRAWL_DATABASE_URL"] {
		t.Fatalf("store options = %+v", o)
	}
	// Unset: the dialect's defaults, and a 10 s query timeout.
	d := DefaultConfig()
	if err := d.Validate(); err != nil {
		t.Fatal(err)
	}
	if o := d.StoreOptions(); o.Pool != (sqlstore.Pool{}) || o.QueryTimeout != 10*time.Second {
		t.Fatalf("default store options = %+v", o)
	}
}

func TestDatabasePoolValidation(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		want string // in the error
	}{
		{map[string]string{"TRAWL_DATABASE_MAX_CONNS": "0"}, "TRAWL_DATABASE_MAX_CONNS must be a positive integer"},
		{map[string]string{"TRAWL_DATABASE_MAX_CONNS": "lots"}, "TRAWL_DATABASE_MAX_CONNS must be a positive integer"},
		{map[string]string{"TRAWL_DATABASE_MAX_CONNS": "5000"}, "TRAWL_DATABASE_MAX_CONNS must be between 1 and 1000"},
		{map[string]string{"TRAWL_DATABASE_MAX_IDLE_CONNS": "-2"}, "TRAWL_DATABASE_MAX_IDLE_CONNS must be a positive integer"},
		{map[string]string{"TRAWL_DATABASE_MAX_CONNS": "4", "TRAWL_DATABASE_MAX_IDLE_CONNS": "8"}, "TRAWL_DATABASE_MAX_IDLE_CONNS (8) must not exceed TRAWL_DATABASE_MAX_CONNS (4)"},
		// Postgres keeps 16 by default, SQLite 8: idle is checked against the default.
		{map[string]string{"TRAWL_DATABASE_URL": "postgres://db/trawl", "TRAWL_DATABASE_MAX_IDLE_CONNS": "20"}, "must not exceed TRAWL_DATABASE_MAX_CONNS (16)"},
		{map[string]string{"TRAWL_DATABASE_MAX_IDLE_CONNS": "9"}, "must not exceed TRAWL_DATABASE_MAX_CONNS (8)"},
		{map[string]string{"TRAWL_DATABASE_CONN_MAX_LIFETIME": "forever"}, "TRAWL_DATABASE_CONN_MAX_LIFETIME must be a duration"},
		{map[string]string{"TRAWL_DATABASE_CONN_MAX_IDLE_TIME": "0s"}, "TRAWL_DATABASE_CONN_MAX_IDLE_TIME must be a duration"},
		{map[string]string{"TRAWL_DATABASE_QUERY_TIMEOUT": "-1s"}, "TRAWL_DATABASE_QUERY_TIMEOUT must be a duration"},
	} {
		cfg, err := DefaultConfig().FromEnv(func(k string) string { return c.env[k] })
		if err == nil {
			err = cfg.Validate()
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want one saying %q", c.env, err, c.want)
		}
	}
	// Idle may equal the maximum.
	cfg, err := DefaultConfig().FromEnv(func(k string) string {
		return map[string]string{"TRAWL_DATABASE_URL": "postgres://db/trawl", "TRAWL_DATABASE_MAX_IDLE_CONNS": "16"}[k]
	})
	if err != nil || cfg.Validate() != nil {
		t.Fatalf("idle = default max: %v %v", err, cfg.Validate())
	}
}
