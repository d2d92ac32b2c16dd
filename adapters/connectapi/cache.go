package connectapi

import (
	"context"
	"encoding/json"

	"connectrpc.com/connect"

	trawlv1 "github.com/trawlhq/trawl/adapters/connectapi/gen/trawl/v1"
	"github.com/trawlhq/trawl/core/cache"
	"github.com/trawlhq/trawl/core/changes"
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

// withChanges puts a message's changes and tag into ctx, where the page
// use cases read whether to compare the answer with the last one.
func withChanges(ctx context.Context, on bool, tag string) (context.Context, error) {
	tag, err := changes.ParseTag(tag, "tag")
	if err != nil {
		return ctx, err
	}
	return changes.With(ctx, changes.Request{On: on, Tag: tag}), nil
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

// changeMsg is an answer's change object as the RPC message; nil in, nil out.
func changeMsg(o *changes.Object) *trawlv1.Change {
	if o == nil {
		return nil
	}
	m := &trawlv1.Change{Status: o.Status, PreviousAt: o.PreviousAt}
	if o.Diff != nil {
		m.Diff = *o.Diff
	}
	for name, f := range o.Fields {
		if m.Fields == nil {
			m.Fields = map[string]*trawlv1.FieldChange{}
		}
		m.Fields[name] = &trawlv1.FieldChange{Previous: jsonText(f.Previous), Current: jsonText(f.Current)}
	}
	return m
}

// jsonText is a decoded JSON value as text.
func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return "null"
	}
	return string(b)
}

// cacheHeader is the X-Trawl-Cache value of an answer carrying these
// cache messages (cache.HeaderOf decides hit or miss); "" when none does.
func cacheHeader(msgs ...*trawlv1.Cache) string {
	objs := make([]*cache.Object, 0, len(msgs))
	for _, m := range msgs {
		if m != nil {
			objs = append(objs, &cache.Object{Hit: m.GetHit()})
		}
	}
	return cache.HeaderOf(objs...)
}

// withCacheHeader sets X-Trawl-Cache on an answer. The value is computed
// when the work runs, so an Idempotency-Key replay, which is neither a
// hit nor a miss, sends none, as over REST.
func withCacheHeader[T any](res *connect.Response[T], err error, value string) (*connect.Response[T], error) {
	if err == nil && res != nil && value != "" {
		res.Header().Set(cache.HeaderName, value)
	}
	return res, err
}
