package content

import (
	"context"

	"github.com/trawlhq/trawl/core/cache"
	"github.com/trawlhq/trawl/ports"
)

// WithCache lets the service answer from fetched responses kept by c, as
// each call's cache request (max_age, store) allows.
func WithCache(c *cache.Cache) Option {
	return func(s *Service) { s.cache, s.memo = c, newExtractionMemo() }
}

// Cache is the page cache the service reads through; nil without one.
// Search results go through the same cache.
func (s *Service) Cache() *cache.Cache { return s.cache }

// fetch fetches a page, through the cache when the server keeps one.
//
// A fetch with page options (device, locale, headers, cookies, a proxy's
// country) neither reads nor fills the cache: what the site sends depends
// on them, and headers and cookies are the caller's own.
func (s *Service) fetch(ctx context.Context, r ports.FetchRequest) (ports.FetchResponse, error) {
	if s.cache == nil || !r.Page.Empty() {
		return s.fetcher.Fetch(ctx, r)
	}
	return s.cache.Fetch(ctx, s.fetcher, r)
}

// renderVia renders a page, through the cache when the server keeps one.
// Like fetch, a render with page options, actions or a screenshot goes
// around the cache.
func (s *Service) renderVia(ctx context.Context, r ports.RenderRequest) (ports.RenderResponse, error) {
	if s.cache != nil && r.Page.Empty() && len(r.Actions) == 0 && r.Shot == ports.ShotNone {
		return s.cache.Render(ctx, s.renderer, r)
	}
	return s.renderer.Render(ctx, r)
}
