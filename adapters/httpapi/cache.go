package httpapi

import (
	"context"
	"net/http"

	"github.com/trawlhq/trawl/core/cache"
	"github.com/trawlhq/trawl/core/changes"
	"github.com/trawlhq/trawl/core/content"
	"github.com/trawlhq/trawl/core/failure"
)

// withCache reads max_age and store from the query into the request's
// context, where the page use cases read what the call accepts.
func withCache(r *http.Request) (*http.Request, error) {
	q := r.URL.Query()
	maxAge, err := cache.ParseMaxAgeText(q.Get(cache.FieldMaxAge), cache.FieldMaxAge)
	if err != nil {
		return r, err
	}
	var fe failure.FieldErrors
	store := queryBool(&fe, r, cache.FieldStore, true)
	if err := fe.Err("httpapi.cache"); err != nil {
		return r, err
	}
	return r.WithContext(cache.With(r.Context(), cache.Request{MaxAge: maxAge, NoStore: !store})), nil
}

// cacheObject is the cache object of an answer; nil without a cache.
func cacheObject(i *cache.Info) *cache.Object {
	if i == nil {
		return nil
	}
	return i.Object()
}

// cacheHeader is the X-Trawl-Cache value of an answer: hit when the
// results and every page in it came from the cache, miss when one did not, "" when the answer
// says nothing of the cache.
func cacheHeader(v any) string {
	var objs []*cache.Object
	switch a := v.(type) {
	case scrapeJSON:
		objs = append(objs, a.Cache)
	case content.Object:
		objs = append(objs, a.Cache)
	case serpJSON:
		objs = append(objs, a.Cache)
		for _, o := range a.OrganicResults {
			if o.Content != nil {
				objs = append(objs, o.Content.Cache)
			}
		}
	}
	return cache.HeaderOf(objs...)
}

// cacheFields reads max_age (seconds) and store (default true) from a
// body; core checks the range.
func (b body) cacheFields(fe *failure.FieldErrors) (maxAge int64, noStore bool) {
	maxAge, _ = b.Int(fe, cache.FieldMaxAge, 0)
	if raw, ok := b[cache.FieldStore]; ok && string(raw) != "null" {
		noStore = !b.Bool(fe, cache.FieldStore)
	}
	return maxAge, noStore
}

// withChanges reads changes and tag from the query into the request's
// context.
func withChanges(r *http.Request) (*http.Request, error) {
	var fe failure.FieldErrors
	on := queryBool(&fe, r, "changes", false)
	if err := fe.Err("httpapi.changes"); err != nil {
		return r, err
	}
	tag, err := changes.ParseTag(r.URL.Query().Get("tag"), "tag")
	if err != nil {
		return r, err
	}
	return r.WithContext(changes.With(r.Context(), changes.Request{On: on, Tag: tag})), nil
}

// changeFields reads changes and tag from a body.
func (b body) changeFields(fe *failure.FieldErrors) (on bool, tag string) {
	on = b.Bool(fe, "changes")
	tag, _ = b.String(fe, "tag")
	return on, tag
}

// bodyCacheAndChanges puts a body's max_age, store, changes and tag into
// ctx after checking them, as withCache and withChanges do for a query.
func bodyCacheAndChanges(ctx context.Context, maxAge int64, noStore, track bool, tag string) (context.Context, error) {
	d, err := cache.ParseMaxAge(maxAge, cache.FieldMaxAge)
	if err != nil {
		return ctx, err
	}
	if tag, err = changes.ParseTag(tag, "tag"); err != nil {
		return ctx, err
	}
	ctx = cache.With(ctx, cache.Request{MaxAge: d, NoStore: noStore})
	return changes.With(ctx, changes.Request{On: track, Tag: tag}), nil
}
