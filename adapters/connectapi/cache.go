package connectapi

import (
	"context"

	trawlv1 "github.com/trawlhq/trawl/adapters/connectapi/gen/trawl/v1"
	"github.com/trawlhq/trawl/core/cache"
)

// withCache puts a message's max_age and store into ctx, where the page
// use cases read what the call accepts from the cache.
func withCache(ctx context.Context, maxAge int64, store *bool) (context.Context, error) {
	d, err := cache.ParseMaxAge(maxAge, cache.FieldMaxAge)
	if err != nil {
		return ctx, err
	}
	return cache.With(ctx, cache.Request{MaxAge: d, NoStore: store != nil && !*store}), nil
}

// cacheMsg is the cache message of an answer; nil without a cache.
func cacheMsg(i *cache.Info) *trawlv1.Cache {
	if i == nil {
		return nil
	}
	return cacheObjectMsg(i.Object())
}

// cacheObjectMsg is a page's cache object as the RPC message; nil in, nil out.
func cacheObjectMsg(o *cache.Object) *trawlv1.Cache {
	if o == nil {
		return nil
	}
	return &trawlv1.Cache{Hit: o.Hit, CachedAt: o.CachedAt, Age: o.Age, Revalidated: o.Revalidated}
}
