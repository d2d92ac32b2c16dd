package search

import (
	"context"

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
