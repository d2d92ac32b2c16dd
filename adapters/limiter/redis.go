package limiter

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/trawlhq/trawl/ports"
)

// Redis is the shared limiter: the same exact sliding-window log as Memory,
// kept in one Redis sorted set per key, so every node counts against one
// window. A decision is one EVALSHA of a server-side script, which Redis runs
// atomically: two nodes racing for the last slot cannot both get it.
//
// Times come from the Clock, not from the Redis server, so the window is the
// one the rest of Trawl sees (and tests can move it); nodes are expected to
// keep their clocks in step (NTP), and a skew between them moves the edge of
// a window by that much, never the count inside it.
type Redis struct {
	client  redis.UniversalClient
	clock   ports.Clock
	prefix  string
	timeout time.Duration
}

var _ ports.RateLimiter = (*Redis)(nil)

// RedisOptions configure NewRedis.
type RedisOptions struct {
	// Prefix is put before every key (default "trawl:rl:"), so one Redis can
	// serve several deployments or tests.
	Prefix string
	// Timeout bounds one decision, the round trip included (default 250 ms):
	// a limiter that hangs must not hang the request behind it.
	Timeout time.Duration
}

// DefaultRedisPrefix is the key prefix when none is configured.
const DefaultRedisPrefix = "trawl:rl:"

// NewRedis builds the limiter over a client.
func NewRedis(client redis.UniversalClient, clock ports.Clock, o RedisOptions) (*Redis, error) {
	if client == nil || clock == nil {
		return nil, errors.New("limiter.NewRedis: client and clock are required")
	}
	if o.Prefix == "" {
		o.Prefix = DefaultRedisPrefix
	}
	if o.Timeout <= 0 {
		o.Timeout = 250 * time.Millisecond
	}
	return &Redis{client: client, clock: clock, prefix: o.Prefix, timeout: o.Timeout}, nil
}

// NewRedisClient opens a client for a redis:// or rediss:// URL (the database
// number is the path: redis://host:6379/2). Nothing is dialled yet.
func NewRedisClient(rawURL string) (*redis.Client, error) {
	opt, err := redis.ParseURL(rawURL)
	if err != nil {
		return nil, fmt.Errorf("redis URL: %w", err)
	}
	// A decision is short; a dead server must be noticed quickly.
	opt.DialTimeout = time.Second
	opt.MaxRetries = 0
	return redis.NewClient(opt), nil
}

// slidingWindow is the decision. KEYS[1] is the key; ARGV: now, the cut (the
// oldest time still outside the window), the limit, a unique member, and the
// window in milliseconds. Times are integer microseconds passed as strings,
// so no precision is lost in Lua's doubles. It drops what left the window,
// adds the request when fewer than limit remain, and sets the key to expire
// when its newest entry leaves the window. It returns allowed (0/1), the
// count in the window, and the oldest and newest times (as strings).
var slidingWindow = redis.NewScript(`
local key = KEYS[1]
redis.call('ZREMRANGEBYSCORE', key, '-inf', ARGV[2])
local n = redis.call('ZCARD', key)
local allowed = 0
if n < tonumber(ARGV[3]) then
  redis.call('ZADD', key, ARGV[1], ARGV[4])
  n = n + 1
  allowed = 1
end
if n == 0 then
  return {allowed, 0, '', ''}
end
local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
local newest = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
if allowed == 1 then
  redis.call('PEXPIRE', key, ARGV[5])
end
return {allowed, n, oldest[2], newest[2]}
`)

// Allow counts a request for key if fewer than limit were counted in the
// last window, across every node sharing the Redis server.
func (l *Redis) Allow(ctx context.Context, key string, limit int, window time.Duration) (ports.RateDecision, error) {
	now := l.clock.Now()
	nowUs := now.UnixMicro()
	var nonce [8]byte
	_, _ = rand.Read(nonce[:])
	member := strconv.FormatInt(nowUs, 10) + "-" + hex.EncodeToString(nonce[:])
	// The key lives a millisecond past the window of its newest entry (the
	// one this call may add): after that it holds nothing that counts.
	ttl := window.Milliseconds() + 1
	ctx, cancel := context.WithTimeout(ctx, l.timeout)
	defer cancel()
	res, err := slidingWindow.Run(ctx, l.client, []string{l.prefix + key},
		nowUs, nowUs-window.Microseconds(), limit, member, ttl).Slice()
	if err != nil {
		return ports.RateDecision{}, fmt.Errorf("limiter.Redis: %w: %w", ports.ErrLimiterUnavailable, err)
	}
	if len(res) != 4 {
		return ports.RateDecision{}, fmt.Errorf("limiter.Redis: a reply of %d items", len(res))
	}
	allowed, _ := res[0].(int64)
	used, _ := res[1].(int64)
	d := ports.RateDecision{Allowed: allowed == 1, Limit: limit, Used: int(used), Remaining: max(0, limit-int(used))}
	if used == 0 {
		return d, nil
	}
	oldest, err1 := score(res[2])
	newest, err2 := score(res[3])
	if err := errors.Join(err1, err2); err != nil {
		return ports.RateDecision{}, fmt.Errorf("limiter.Redis: an odd reply: %w", err)
	}
	if !d.Allowed {
		d.RetryAfter = time.UnixMicro(oldest).Add(window).Sub(now)
	}
	d.Reset = time.UnixMicro(newest).Add(window).Sub(now)
	return d, nil
}

// score reads a sorted-set score Redis returned as a string.
func score(v any) (int64, error) {
	s, ok := v.(string)
	if !ok {
		return 0, fmt.Errorf("score of type %T", v)
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, err
	}
	return int64(f), nil
}

// Ping checks the server answers (readiness).
func (l *Redis) Ping(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, l.timeout)
	defer cancel()
	return l.client.Ping(ctx).Err()
}
