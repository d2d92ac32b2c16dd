package bulk

import (
	"context"
	"encoding/json"
	"time"

	"github.com/trawlhq/trawl/core/cache"
	"github.com/trawlhq/trawl/core/changes"
	"github.com/trawlhq/trawl/ports"
)

// cacheRequest is ctx with the job's page cache request, on the account
// that submitted it.
func cacheRequest(ctx context.Context, job ports.BulkJob) context.Context {
	ctx = changes.With(ctx, changes.Request{On: job.Changes, Tag: job.ChangeTag, Account: job.AccountID, Writer: job.ID})
	return cache.With(ctx, cache.Request{MaxAge: time.Duration(job.CacheMaxAge) * time.Second, NoStore: job.CacheNoStore, Account: job.AccountID})
}

// removedContent is what a failed URL keeps of a removed change: the
// change object, or nothing.
func removedContent(c *changes.Change) []byte {
	if c == nil {
		return nil
	}
	b, _ := json.Marshal(struct {
		Change *changes.Object `json:"change"`
	}{c.Object()})
	return b
}

// removedOf reads the removed change a failed URL kept; nil when none.
func removedOf(content []byte) *changes.Object {
	var v struct {
		Change *changes.Object `json:"change"`
	}
	if len(content) == 0 || json.Unmarshal(content, &v) != nil {
		return nil
	}
	return v.Change
}
