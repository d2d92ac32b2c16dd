package crawl

import (
	"context"
	"time"

	"github.com/trawlhq/trawl/core/cache"
	"github.com/trawlhq/trawl/core/changes"
)

// cacheRequest is ctx with the crawl's page cache request: its max_age and
// store for every page, on the account that asked for the crawl.
func (cr *run) cacheRequest(ctx context.Context) context.Context {
	ctx = changes.With(ctx, changes.Request{On: cr.p.Changes, Tag: cr.p.Tag, Account: cr.job.AccountID, Writer: cr.job.ID})
	return cache.With(ctx, cache.Request{MaxAge: time.Duration(cr.p.MaxAge) * time.Second, NoStore: cr.p.NoStore, Account: cr.job.AccountID})
}
