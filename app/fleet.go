package app

import (
	"context"
	"errors"
	"log/slog"

	"go.uber.org/fx"

	"github.com/trawlhq/trawl/adapters/limiter"
	"github.com/trawlhq/trawl/adapters/metrics"
	"github.com/trawlhq/trawl/ports"
)

// Limiter is the rate limiter a configuration runs, with what readiness and
// metrics need of it.
type Limiter struct {
	ports.RateLimiter
	Kind string // memory, postgres or redis
	// Shared is the Redis limiter's failover to per-node limits; nil otherwise.
	Shared *limiter.Failover
	// Ping checks Redis answers; nil without Redis.
	Ping func(context.Context) error
	// Close releases the Redis connections.
	Close func() error
}

// Checks are what /readyz reports of the limiter: Redis, when in use. A
// node stays ready while Redis is down: it limits on its own meanwhile.
func (l Limiter) Checks() map[string]func(context.Context) error {
	if l.Ping == nil {
		return nil
	}
	return map[string]func(context.Context) error{"redis": l.Ping}
}

// NewLimiter builds the configured rate limiter. With Redis, a node whose
// Redis does not answer keeps limiting on its own (see limiter.Failover).
func NewLimiter(c Config, store Store, clk ports.Clock, log *slog.Logger) (Limiter, error) {
	none := func() error { return nil }
	switch kind := c.LimiterKind(); kind {
	case LimiterRedis:
		client, err := limiter.NewRedisClient(c.RedisURL)
		if err != nil {
			return Limiter{}, errors.New("TRAWL_REDIS_URL: want redis://[user:password@]host:port[/db] or rediss://")
		}
		shared, err := limiter.NewRedis(client, clk, limiter.RedisOptions{Prefix: c.RedisPrefix, Timeout: c.RedisTimeout})
		if err != nil {
			client.Close()
			return Limiter{}, err
		}
		local, err := limiter.NewMemory(clk)
		if err != nil {
			client.Close()
			return Limiter{}, err
		}
		f, err := limiter.NewFailover(shared, local, clk, log, limiter.DefaultCooldown)
		if err != nil {
			client.Close()
			return Limiter{}, err
		}
		return Limiter{RateLimiter: f, Kind: kind, Shared: f, Ping: shared.Ping, Close: client.Close}, nil
	case LimiterPostgres:
		l, err := store.SharedLimiter(clk)
		return Limiter{RateLimiter: l, Kind: kind, Close: none}, err
	default:
		m, err := limiter.NewMemory(clk)
		return Limiter{RateLimiter: m, Kind: LimiterMemory, Close: none}, err
	}
}

// provideLimiter builds the limiter for the app's lifetime, counted when
// metrics are on.
func provideLimiter(lc fx.Lifecycle, c Config, store Store, clk ports.Clock, log *slog.Logger, m *metrics.Metrics) (Limiter, error) {
	l, err := NewLimiter(c, store, clk, log)
	if err != nil {
		return l, err
	}
	lc.Append(fx.Hook{
		OnStart: func(ctx context.Context) error {
			log.Info("rate limiter", "kind", l.Kind)
			if l.Ping != nil {
				if err := l.Ping(ctx); err != nil {
					log.Warn("redis does not answer: limiting per node until it does", "err", err)
				}
			}
			return nil
		},
		OnStop: func(context.Context) error { return l.Close() },
	})
	if m != nil {
		if l.Shared != nil {
			m.Shared(l.Shared)
		}
		l.RateLimiter = m.Limiter(l.RateLimiter)
	}
	return l, nil
}
