package app

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// cacheFromEnv reads TRAWL_CACHE_MAX_BYTES: the page cache's bound in
// bytes (default 1 GiB); 0 turns the cache off.
func (c Config) cacheFromEnv(getenv func(string) string) (Config, error) {
	if v := strings.TrimSpace(getenv("TRAWL_CACHE_MAX_BYTES")); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return c, fmt.Errorf("TRAWL_CACHE_MAX_BYTES must be a number of bytes (0 turns the page cache off), got %q", v)
		}
		c.CacheMaxBytes = n
	}
	if v := strings.TrimSpace(getenv("TRAWL_CHANGES_RETENTION")); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return c, fmt.Errorf("TRAWL_CHANGES_RETENTION must be a duration such as 2160h, got %q", v)
		}
		c.ChangesRetention = d
	}
	return c, nil
}
