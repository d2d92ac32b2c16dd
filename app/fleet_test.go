package app

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"go.uber.org/fx"

	"github.com/trawlhq/trawl/adapters/limiter"
	"github.com/trawlhq/trawl/adapters/sqlstore"
	"github.com/trawlhq/trawl/testkit"
	"github.com/trawlhq/trawl/testkit/pgtest"
	"github.com/trawlhq/trawl/testkit/redistest"
)

func fleetEnv(env map[string]string) (Config, error) {
	c, err := DefaultConfig().FromEnv(func(k string) string { return env[k] })
	if err != nil {
		return c, err
	}
	return c, c.Validate()
}

func TestFleetConfig(t *testing.T) {
	c, err := fleetEnv(map[string]string{"TRAWL_REDIS_URL": "redis://:pw@10.0.0.5:6379/3", "TRAWL_REDIS_TIMEOUT": "100ms",
		"TRAWL_REDIS_PREFIX": "eu:", "TRAWL_METRICS_ADDR": "127.0.0.1:9100"})
	if err != nil {
		t.Fatal(err)
	}
	if c.LimiterKind() != LimiterRedis || c.RedisTimeout != 100*time.Millisecond || c.RedisPrefix != "eu:" || c.MetricsAddr != "127.0.0.1:9100" {
		t.Fatalf("config = %+v", c)
	}
	for _, k := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{}, LimiterMemory},
		{map[string]string{"TRAWL_DATABASE_URL": "postgres://u@h/db"}, LimiterPostgres},
		{map[string]string{"TRAWL_DATABASE_URL": "postgres://u@h/db", "TRAWL_REDIS_URL": "redis://h:6379"}, LimiterRedis},
		{map[string]string{"TRAWL_DATABASE_URL": "postgres://u@h/db", "TRAWL_RATE_LIMITER": "memory"}, LimiterMemory},
	} {
		c, err := fleetEnv(k.env)
		if err != nil || c.LimiterKind() != k.want {
			t.Errorf("%v: %s, %v; want %s", k.env, c.LimiterKind(), err, k.want)
		}
	}
	for env, want := range map[string]map[string]string{
		"TRAWL_REDIS_URL":       {"TRAWL_REDIS_URL": "http://:secret@h:6379"},
		"TRAWL_REDIS_TIMEOUT":   {"TRAWL_REDIS_TIMEOUT": "fast"},
		"TRAWL_RATE_LIMITER":    {"TRAWL_RATE_LIMITER": "etcd"},
		"needs TRAWL_REDIS_URL": {"TRAWL_RATE_LIMITER": "redis"},
		"needs a postgres://":   {"TRAWL_RATE_LIMITER": "postgres"},
		"TRAWL_METRICS_ADDR":    {"TRAWL_METRICS_ADDR": "9100"},
		"must differ":           {"TRAWL_METRICS_ADDR": "127.0.0.1:8080"},
	} {
		_, err := fleetEnv(want)
		if err == nil || !strings.Contains(err.Error(), env) {
			t.Errorf("%v: %v, want an error naming %s", want, err, env)
		}
		if err != nil && strings.Contains(err.Error(), "secret") {
			t.Errorf("the Redis password reached the message: %v", err)
		}
	}
}

func TestNewLimiterKinds(t *testing.T) {
	clk := testkit.NewClock(time.Now())
	log := slog.New(slog.DiscardHandler)
	pg, err := sqlstore.Open(context.Background(), sqlstore.Options{DatabaseURL: pgtest.NewDatabase(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	l, err := NewLimiter(Config{StoreConfig: StoreConfig{DatabaseURL: "postgres://x/y"}}, SQLStore(pg), clk, log)
	if _, ok := l.RateLimiter.(*sqlstore.RateLimiter); err != nil || !ok || l.Kind != LimiterPostgres {
		t.Fatalf("postgres: %T %v", l.RateLimiter, err)
	}
	srv := redistest.New(t)
	l, err = NewLimiter(Config{FleetConfig: FleetConfig{RedisURL: srv.URL, RedisPrefix: srv.Prefix}}, SQLStore(pg), clk, log)
	if err != nil || l.Shared == nil || l.Ping == nil || l.Kind != LimiterRedis {
		t.Fatalf("redis: %+v %v", l, err)
	}
	defer l.Close()
	if err := l.Ping(context.Background()); err != nil {
		t.Fatal(err)
	}
	if d, err := l.Allow(context.Background(), "a1:content", 1, time.Minute); err != nil || !d.Allowed {
		t.Fatalf("%+v %v", d, err)
	}
	if n := srv.Client.Exists(context.Background(), srv.Prefix+"a1:content").Val(); n != 1 || !l.Shared.Up() {
		t.Fatal("the decision was not taken in Redis")
	}
	l, err = NewLimiter(Config{}, SQLStore(pg), clk, log)
	if _, ok := l.RateLimiter.(*limiter.Memory); err != nil || !ok {
		t.Fatalf("memory: %T %v", l.RateLimiter, err)
	}
}

// The whole server with metrics on: requests are counted by route pattern,
// the pool and the shared limiter are reported, on their own listener.
func TestServerMetrics(t *testing.T) {
	srv := redistest.New(t)
	c := DefaultConfig()
	c.DataDir = t.TempDir()
	c.RedisURL, c.RedisPrefix = srv.URL, srv.Prefix
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c.Addr = ln.Addr().String()
	mln, _ := net.Listen("tcp", "127.0.0.1:0")
	c.MetricsAddr = mln.Addr().String()
	mln.Close()
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	app := fx.New(ServerOptions(c, slog.New(slog.NewTextHandler(&logs, nil)), ln))
	if err := app.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer app.Stop(context.Background())
	for _, p := range []string{"/healthz", "/healthz", "/v1/credits", "/nowhere/private@example.com"} {
		res, err := http.Get("http://" + c.Addr + p)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
	}
	res, err := http.Get("http://" + c.MetricsAddr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	out := string(body)
	for _, want := range []string{`trawl_http_requests_total{code="200",route="GET /healthz"} 2`, `trawl_http_requests_total{code="401",route="GET /v1/credits"} 1`,
		`trawl_http_requests_total{code="404",route="unmatched"} 1`, `go_sql_open_connections{db_name="trawl"}`, "trawl_ratelimit_backend_up 1", "go_goroutines",
		`trawl_bulk_jobs{status="queued"} 0`, "trawl_bulk_urls_pending 0", "trawl_bulk_queue_scrape_ok 1"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %s", want)
		}
	}
	if strings.Contains(out, "private@example.com") {
		t.Error("a path reached the metrics")
	}
	if !strings.Contains(logs.String(), "kind=redis") {
		t.Errorf("the limiter in force is not logged:\n%s", logs.String())
	}
	if code, body := getJSON(t, "http://"+c.Addr+"/readyz"); code != 200 || body["checks"] == nil ||
		body["checks"].(map[string]any)["redis"] != "ok" || body["checks"].(map[string]any)["store"] != "ok" {
		t.Fatalf("/readyz = %d %v", code, body)
	}
	// The API itself does not serve /metrics.
	if res, err := http.Get("http://" + c.Addr + "/metrics"); err != nil || res.StatusCode != 404 {
		t.Fatalf("/metrics on the API: %v %v", res, err)
	}
}

func getJSON(t *testing.T, url string) (int, map[string]any) {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var m map[string]any
	_ = json.NewDecoder(res.Body).Decode(&m)
	return res.StatusCode, m
}

// With Redis unreachable the node starts, stays ready and says which
// dependency is down; limits hold per node meanwhile.
func TestServerWithRedisDown(t *testing.T) {
	c := DefaultConfig()
	c.DataDir = t.TempDir()
	c.RedisURL = "redis://127.0.0.1:1/0"
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c.Addr = ln.Addr().String()
	var logs bytes.Buffer
	app := fx.New(ServerOptions(c, slog.New(slog.NewTextHandler(&logs, nil)), ln))
	if err := app.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer app.Stop(context.Background())
	code, body := getJSON(t, "http://"+c.Addr+"/readyz")
	if code != 200 || body["checks"].(map[string]any)["redis"] != "unavailable" || body["checks"].(map[string]any)["store"] != "ok" {
		t.Fatalf("/readyz = %d %v", code, body)
	}
	if strings.Contains(fmt.Sprint(body), "127.0.0.1:1") {
		t.Fatalf("/readyz shows the Redis address: %v", body)
	}
	if !strings.Contains(logs.String(), "redis does not answer") {
		t.Fatalf("no warning at start:\n%s", logs.String())
	}
}

// A bad Redis URL stops serve before it listens, naming the variable and
// never quoting the URL (it may hold a password).
func TestServeRejectsABadRedisURL(t *testing.T) {
	var out, errb bytes.Buffer
	env := map[string]string{"TRAWL_REDIS_URL": "redis://:hunter2@[bad"}
	code := CLI{Stdout: &out, Stderr: &errb, Getenv: func(k string) string { return env[k] }}.Main([]string{"serve", "--addr", "127.0.0.1:0", "--data-dir", t.TempDir()})
	if code == 0 || !strings.Contains(errb.String(), "TRAWL_REDIS_URL") || strings.Contains(errb.String(), "hunter2") {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
}
