package app

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/trawlhq/trawl/adapters/clock"
	"github.com/trawlhq/trawl/adapters/textdiff"
	"github.com/trawlhq/trawl/core/cache"
	"github.com/trawlhq/trawl/core/changes"
	"github.com/trawlhq/trawl/core/crawl"
	"github.com/trawlhq/trawl/ports"
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

// newChangeTracker builds change tracking over the store's snapshots; nil
// when the store keeps none.
func newChangeTracker(st Stores, clk ports.Clock, retention time.Duration) (*changes.Tracker, error) {
	if st.Snapshots == nil {
		return nil, nil
	}
	if clk == nil {
		clk = clock.System{}
	}
	return changes.NewTracker(st.Snapshots, textdiff.Differ{}, clk, crawl.NewNormalizer(nil).Key, retention)
}

// newPageCache builds the page cache over the store's index and the blob
// store; nil when it is off (no bound, no index).
func newPageCache(st Stores, out Outbound, clk ports.Clock, maxBytes int64) (*cache.Cache, error) {
	if maxBytes <= 0 || st.Cache == nil {
		return nil, nil
	}
	bodies, ok := out.Blobs.(ports.BlobObjects)
	if !ok {
		return nil, errors.New("the page cache needs a blob store that reads and deletes (set TRAWL_CACHE_MAX_BYTES=0 to turn it off)")
	}
	if clk == nil {
		clk = clock.System{}
	}
	return cache.New(st.Cache, bodies, clk, maxBytes, crawl.NewNormalizer(nil).Key)
}
