package limiter_test

import (
	"context"
	"testing"
	"time"

	"github.com/trawlhq/trawl/adapters/limiter"
	"github.com/trawlhq/trawl/ports"
	"github.com/trawlhq/trawl/testkit"
	"github.com/trawlhq/trawl/testkit/ratelimittest"
	"github.com/trawlhq/trawl/testkit/redistest"
)

func TestContractMemory(t *testing.T) {
	ratelimittest.Run(t, func(t *testing.T, clock ports.Clock) ratelimittest.Nodes {
		m, err := limiter.NewMemory(clock)
		if err != nil {
			t.Fatal(err)
		}
		return func() ports.RateLimiter { return m }
	})
}

// openRedis gives each node its own client (its own connections) over one
// server and a prefix no other test uses.
func openRedis(t *testing.T, clock ports.Clock) ratelimittest.Nodes {
	srv := redistest.New(t)
	return func() ports.RateLimiter {
		c, err := limiter.NewRedisClient(srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		l, err := limiter.NewRedis(c, clock, limiter.RedisOptions{Prefix: srv.Prefix})
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
}

func TestContractRedis(t *testing.T) { ratelimittest.Run(t, openRedis) }

// A key expires on its own a window after its newest request.
func TestRedisKeysExpire(t *testing.T) {
	srv := redistest.New(t)
	clock := testkit.NewClock(time.Now())
	l, _ := limiter.NewRedis(srv.Client, clock, limiter.RedisOptions{Prefix: srv.Prefix})
	ctx := context.Background()
	if _, err := l.Allow(ctx, "a1:content", 5, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	ttl, err := srv.Client.PTTL(ctx, srv.Prefix+"a1:content").Result()
	if err != nil || ttl <= 9*time.Second || ttl > 10*time.Second+time.Millisecond {
		t.Fatalf("PTTL = %v, %v; want about the window", ttl, err)
	}
	// A short window really goes away, with no other call to clean it.
	if _, err := l.Allow(ctx, "short", 1, 50*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(2 * time.Second)
	for srv.Client.Exists(ctx, srv.Prefix+"short").Val() == 1 {
		if time.Now().After(deadline) {
			t.Fatal("the key of a 50 ms window still exists after 2 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestRedisUnreachableIsTemporary(t *testing.T) {
	c, _ := limiter.NewRedisClient("redis://127.0.0.1:1/0")
	defer c.Close()
	l, _ := limiter.NewRedis(c, testkit.NewClock(time.Now()), limiter.RedisOptions{})
	_, err := l.Allow(context.Background(), "k", 1, time.Minute)
	if err == nil {
		t.Fatal("no error from an unreachable server")
	}
}

func TestRedisBadURL(t *testing.T) {
	if _, err := limiter.NewRedisClient("http://127.0.0.1:6379"); err == nil {
		t.Fatal("http:// accepted")
	}
}

func BenchmarkDecisionMemory(b *testing.B) {
	m, _ := limiter.NewMemory(testkit.NewClock(time.Now()))
	ratelimittest.Bench(b, m)
}

func BenchmarkDecisionRedis(b *testing.B) {
	srv := redistest.New(b)
	l, _ := limiter.NewRedis(srv.Client, testkit.NewClock(time.Now()), limiter.RedisOptions{Prefix: srv.Prefix})
	ratelimittest.Bench(b, l)
}
