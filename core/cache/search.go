package cache

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/trawlhq/trawl/ports"
)

// EngineSearch is the engine a kept search-results page is keyed under.
const EngineSearch = "serp"

// Search runs a query through the cache, as the context's Request allows.
// What is kept is the engine's results page as read (its parsed results,
// a function of the page the engine sent): one query, location and
// languages on one engine is one entry, shared by every account (a search
// carries nothing of the caller). Engines send no validators for results:
// a stale entry is searched again.
func (c *Cache) Search(ctx context.Context, e ports.SearchEngine, q ports.SearchQuery) (ports.SearchResults, error) {
	r := RequestOf(ctx)
	r.Private, r.Fingerprint = false, ""
	id := strings.Join([]string{e.Name(), q.Q, q.Loc, q.HL, q.GL}, "\x00")
	key := Key(id, EngineSearch, r)
	now := c.clock.Now()
	if r.MaxAge > 0 {
		if ent, body, ok := c.lookup(ctx, key); ok && Decide(r.MaxAge, true, now.Sub(ent.StoredAt), false) == Serve {
			var res ports.SearchResults
			if json.Unmarshal(body, &res) == nil {
				note(ctx, c.hit(ctx, ent, now, false))
				return res, nil
			}
		}
	}
	res, err := e.Search(ctx, q)
	if err != nil {
		return res, err
	}
	info := Info{}
	if r.keeps() {
		if body, err := json.Marshal(res); err == nil {
			now = c.clock.Now()
			info.CachedAt, info.Body = c.store(ctx, ports.CacheEntry{
				Key: key, URL: e.Name() + ":" + q.Q, FinalURL: e.Name() + ":" + q.Q, Engine: EngineSearch, StatusCode: 200,
				ContentType: "application/json", Charset: "utf-8", StoredAt: now, UsedAt: now,
			}, body)
		}
	}
	note(ctx, info)
	return res, nil
}
