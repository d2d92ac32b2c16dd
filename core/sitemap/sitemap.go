// Package sitemap holds the map use case: the URLs of a domain from its
// sitemaps, deduplicated, in sitemap order, capped by a limit.
package sitemap

import (
	"context"
	"errors"
	"fmt"

	"github.com/trawlhq/trawl/core/billing"
	"github.com/trawlhq/trawl/core/credits"
	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/core/weburl"
	"github.com/trawlhq/trawl/ports"
)

// Limits of the limit parameter (spec 4.4; default from DECISIONS.md).
const (
	MinLimit     = 1
	MaxLimit     = 1000
	DefaultLimit = 1000
)

// SourceSitemap is the one discovery source today; more may come.
const SourceSitemap = "sitemap"

// Service runs the map use case.
type Service struct {
	discoverer ports.SitemapDiscoverer
	biller     *credits.Biller
}

// NewService builds the service.
func NewService(d ports.SitemapDiscoverer, biller *credits.Biller) (*Service, error) {
	if d == nil || biller == nil {
		return nil, errors.New("sitemap.NewService: discoverer and biller are required")
	}
	return &Service{discoverer: d, biller: biller}, nil
}

// Result is the answer of /v1/map.
type Result struct {
	URL       string
	Total     int
	Truncated bool
	Sources   []string
	URLs      []string
}

// ValidateLimit checks limit (1..1000).
func ValidateLimit(limit int) error {
	if limit < MinLimit || limit > MaxLimit {
		return failure.Invalidf("sitemap.Map", "limit", "The limit must be between %d and %d.", MinLimit, MaxLimit)
	}
	return nil
}

// Dedup keeps the first spelling of each URL, comparing case-insensitively
// and ignoring trailing slashes, in the order given.
func Dedup(urls []string) []string {
	seen := make(map[string]bool, len(urls))
	out := make([]string, 0, len(urls))
	for _, u := range urls {
		k := weburl.DedupKey(u)
		if k == "" || seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, u)
	}
	return out
}

// Map discovers a domain's URLs. A domain without a discoverable sitemap is
// a 503 and free; a found one costs 3 credits, unless it lists no URL. A nil
// maxURLs was not given and is DefaultLimit; a given one is validated as it
// is, so an explicit 0 is refused.
func (s *Service) Map(ctx context.Context, call credits.Call, rawURL string, maxURLs *int) (Result, credits.Receipt, error) {
	limit := DefaultLimit
	if maxURLs != nil {
		limit = *maxURLs
	}
	var fe failure.FieldErrors
	u, err := weburl.Parse(rawURL, weburl.Rules{Field: "url"})
	if err != nil {
		fe2, _ := failure.As(err)
		for _, m := range fe2.Fields["url"] {
			fe.Add("url", m)
		}
	}
	if err := ValidateLimit(limit); err != nil {
		fe.Add("limit", fmt.Sprintf("The limit must be between %d and %d.", MinLimit, MaxLimit))
	}
	if err := fe.Err("sitemap.Map"); err != nil {
		return Result{}, credits.Receipt{}, err
	}
	call.Service = billing.Map
	var res Result
	rc, err := s.biller.Run(ctx, call, func(ctx context.Context) (int64, ports.TransactionMetadata, error) {
		found, err := s.discoverer.Discover(ctx, weburl.Origin(u))
		if err != nil {
			return 0, ports.TransactionMetadata{}, DiscoverFailure(err, weburl.Origin(u))
		}
		all := Dedup(found)
		res = Result{URL: rawURL, Total: len(all), Sources: []string{SourceSitemap}, URLs: all}
		if len(all) > limit {
			res.URLs, res.Truncated = all[:limit], true
		}
		cost := billing.Cost(billing.Map)
		if len(all) == 0 {
			cost = 0
		}
		return cost, ports.TransactionMetadata{URL: weburl.Origin(u)}, nil
	})
	return res, rc, err
}
