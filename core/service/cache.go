package service

import (
	"errors"

	"github.com/trawlhq/trawl/core/cache"
	"github.com/trawlhq/trawl/core/changes"
	"github.com/trawlhq/trawl/core/content"
	"github.com/trawlhq/trawl/core/crawl"
	"github.com/trawlhq/trawl/ports"
)

// withCacheAndChanges adds the page cache (an index, a blob store that
// reads and deletes, a bound) and change tracking (snapshots, a differ) to
// the content options, each when its ports are there. Both compare URLs by
// the crawl's rules.
func withCacheAndChanges(copts []content.Option, st Stores, out Outbound, clk ports.Clock, o Options) ([]content.Option, error) {
	urlKey := crawl.NewNormalizer(nil).Key
	if st.Cache != nil && o.CacheMaxBytes > 0 {
		bodies, ok := out.Blobs.(ports.BlobObjects)
		if !ok {
			return nil, errors.New("service.New: the page cache needs a blob store that reads and deletes (TRAWL_CACHE_MAX_BYTES=0 turns it off)")
		}
		c, err := cache.New(st.Cache, bodies, clk, o.CacheMaxBytes, urlKey)
		if err != nil {
			return nil, err
		}
		copts = append(copts, content.WithCache(c))
	}
	if st.Snapshots != nil && out.Differ != nil {
		t, err := changes.NewTracker(st.Snapshots, out.Differ, clk, urlKey, o.ChangesRetention)
		if err != nil {
			return nil, err
		}
		copts = append(copts, content.WithChanges(t))
	}
	return copts, nil
}
