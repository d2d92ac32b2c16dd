package search

import (
	"context"

	"github.com/trawlhq/trawl/core/cache"
	"github.com/trawlhq/trawl/ports"
)

// search runs a query on an engine, through the page cache when the
// server keeps one.
func (s *Service) search(ctx context.Context, e ports.SearchEngine, q ports.SearchQuery) (ports.SearchResults, error) {
	if c := s.content.Cache(); c != nil {
		return c.Search(ctx, e, q)
	}
	return e.Search(ctx, q)
}

// track follows what the cache does for the results; nil without a cache.
func (s *Service) track(ctx context.Context) (context.Context, *cache.Tracker) {
	if s.content.Cache() == nil {
		return ctx, nil
	}
	return cache.Track(ctx)
}

func searchCacheInfo(t *cache.Tracker) *cache.Info {
	if i, ok := t.Info(); ok {
		return &i
	}
	return nil
}
