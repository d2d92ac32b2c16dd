// Package redistest gives tests a Redis server and a key prefix of their own.
//
// The server comes from TRAWL_TEST_REDIS_URL (default
// redis://127.0.0.1:6379/0). When it cannot be reached the test is skipped
// with a message, except under CI=true, where it fails: in CI the Redis tests
// must really run.
package redistest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// DefaultURL is the server tests use unless TRAWL_TEST_REDIS_URL says otherwise.
const DefaultURL = "redis://127.0.0.1:6379/0"

// ServerURL is the URL of the test server.
func ServerURL() string {
	if u := os.Getenv("TRAWL_TEST_REDIS_URL"); u != "" {
		return u
	}
	return DefaultURL
}

// Server is a reachable Redis server with a prefix no other test uses; the
// keys under the prefix are deleted when the test ends.
type Server struct {
	URL    string
	Prefix string
	Client *redis.Client
}

// New checks the server answers and picks a fresh prefix.
func New(tb testing.TB) *Server {
	tb.Helper()
	opt, err := redis.ParseURL(ServerURL())
	if err != nil {
		tb.Fatalf("TRAWL_TEST_REDIS_URL: %v", err)
	}
	c := redis.NewClient(opt)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	err = c.Ping(ctx).Err()
	cancel()
	if err != nil {
		c.Close()
		if os.Getenv("CI") == "true" {
			tb.Fatalf("redis at %s is unreachable and CI=true: %v", ServerURL(), err)
		}
		tb.Skipf("redis at %s is unreachable (set TRAWL_TEST_REDIS_URL; CI fails here): %v", ServerURL(), err)
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	s := &Server{URL: ServerURL(), Prefix: "trawl-test:" + hex.EncodeToString(b[:]) + ":", Client: c}
	tb.Cleanup(func() {
		ctx := context.Background()
		iter := c.Scan(ctx, 0, s.Prefix+"*", 100).Iterator()
		for iter.Next(ctx) {
			c.Del(ctx, iter.Val())
		}
		c.Close()
	})
	return s
}
