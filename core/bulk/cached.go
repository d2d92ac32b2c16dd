package bulk

import (
	"context"
	"time"

	"github.com/trawlhq/trawl/core/cache"
	"github.com/trawlhq/trawl/core/changes"
	"github.com/trawlhq/trawl/ports"
)

// cacheRequest is ctx with the job's page cache request, on the account
// that submitted it.
func cacheRequest(ctx context.Context, job ports.BulkJob) context.Context {
	ctx = changes.With(ctx, changes.Request{On: job.Changes, Tag: job.ChangeTag, Account: job.AccountID})
	return cache.With(ctx, cache.Request{MaxAge: time.Duration(job.CacheMaxAge) * time.Second, NoStore: job.CacheNoStore, Account: job.AccountID})
}
