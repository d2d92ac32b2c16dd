package app

import (
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/trawlhq/trawl/adapters/sqlstore"
)

// Rate limiter choices (TRAWL_RATE_LIMITER).
const (
	LimiterAuto     = "auto"     // Redis with TRAWL_REDIS_URL, else PostgreSQL on PostgreSQL, else memory
	LimiterMemory   = "memory"   // this process only
	LimiterPostgres = "postgres" // shared through the database
	LimiterRedis    = "redis"    // shared through Redis
)

// fleetFromEnv overlays the settings of a fleet of nodes: the shared rate
// limiter and the metrics listener.
func (c Config) fleetFromEnv(getenv func(string) string) (Config, error) {
	for name, dst := range map[string]*string{"TRAWL_REDIS_URL": &c.RedisURL, "TRAWL_REDIS_PREFIX": &c.RedisPrefix,
		"TRAWL_RATE_LIMITER": &c.RateLimiter, "TRAWL_METRICS_ADDR": &c.MetricsAddr} {
		if v := strings.TrimSpace(getenv(name)); v != "" {
			*dst = v
		}
	}
	if v := strings.TrimSpace(getenv("TRAWL_REDIS_TIMEOUT")); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return c, fmt.Errorf("TRAWL_REDIS_TIMEOUT must be a duration such as 250ms, got %q", v)
		}
		c.RedisTimeout = d
	}
	return c, nil
}

// validateFleet checks the limiter and metrics settings. The Redis URL is
// never quoted: it may hold a password.
func (c Config) validateFleet() error {
	if c.RedisURL != "" {
		if _, err := redis.ParseURL(c.RedisURL); err != nil {
			return fmt.Errorf("TRAWL_REDIS_URL: want redis://[user:password@]host:port[/db] or rediss://")
		}
	}
	if c.RedisTimeout < 0 {
		return fmt.Errorf("TRAWL_REDIS_TIMEOUT must be a positive duration such as 250ms, got %s", c.RedisTimeout)
	}
	switch c.LimiterKind() {
	case LimiterMemory:
	case LimiterRedis:
		if c.RedisURL == "" {
			return fmt.Errorf("TRAWL_RATE_LIMITER=redis needs TRAWL_REDIS_URL")
		}
	case LimiterPostgres:
		if sqlstore.DialectOf(c.DatabaseURL) != sqlstore.Postgres {
			return fmt.Errorf("TRAWL_RATE_LIMITER=postgres needs a postgres:// TRAWL_DATABASE_URL")
		}
	default:
		return fmt.Errorf("TRAWL_RATE_LIMITER %q: want auto, memory, postgres or redis", c.RateLimiter)
	}
	if c.MetricsAddr != "" {
		if _, _, err := net.SplitHostPort(c.MetricsAddr); err != nil {
			return fmt.Errorf("TRAWL_METRICS_ADDR %q: want host:port", c.MetricsAddr)
		}
		if c.MetricsAddr == c.Addr {
			return fmt.Errorf("TRAWL_METRICS_ADDR must differ from the API address")
		}
	}
	return nil
}

// LimiterKind is the rate limiter a configuration runs: TRAWL_RATE_LIMITER,
// or for auto the most shared one available, so no fleet on one database
// multiplies the limits by its number of nodes.
func (c Config) LimiterKind() string {
	switch k := strings.ToLower(c.RateLimiter); k {
	case "", LimiterAuto:
		switch {
		case c.RedisURL != "":
			return LimiterRedis
		case sqlstore.DialectOf(c.DatabaseURL) == sqlstore.Postgres:
			return LimiterPostgres
		default:
			return LimiterMemory
		}
	default:
		return k
	}
}
