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

// Discovery sources, named in Result.Sources.
const (
	SourceSitemap = "sitemap"
	// SourceLinks is a shallow link crawl from the URL (include_links).
	SourceLinks = "links"
)

// LinkFinder finds a site's URLs by following links from a start URL,
// obeying robots.txt: up to most URLs, leaving out those skip reports
// already known.
type LinkFinder interface {
	FindLinks(ctx context.Context, start string, most int, skip func(string) bool) ([]string, error)
}

// Service runs the map use case.
type Service struct {
	discoverer ports.SitemapDiscoverer
	biller     *credits.Biller
	links      LinkFinder
}

// Option tunes the service.
type Option func(*Service)

// WithLinks lets map follow links (include_links) with f.
func WithLinks(f LinkFinder) Option { return func(s *Service) { s.links = f } }

// NewService builds the service.
func NewService(d ports.SitemapDiscoverer, biller *credits.Biller, opts ...Option) (*Service, error) {
	if d == nil || biller == nil {
		return nil, errors.New("sitemap.NewService: discoverer and biller are required")
	}
	s := &Service{discoverer: d, biller: biller}
	for _, o := range opts {
		o(s)
	}
	return s, nil
}

// Options are map's optional behaviours.
type Options struct {
	// IncludeLinks adds the URLs a shallow link crawl from the URL finds
	// (robots.txt obeyed) when the sitemaps are missing or list fewer URLs
	// than the limit.
	IncludeLinks bool
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
	return s.MapWith(ctx, call, rawURL, maxURLs, Options{})
}

// MapWith is Map with its options. With IncludeLinks, a site without a
// sitemap is answered from its links (and is free only when they give no
// URL either); the link crawl adds at most limit minus the sitemaps' URLs.
func (s *Service) MapWith(ctx context.Context, call credits.Call, rawURL string, maxURLs *int, o Options) (Result, credits.Receipt, error) {
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
			err = DiscoverFailure(err, weburl.Origin(u))
		}
		links := o.IncludeLinks && s.links != nil
		if err != nil && (!links || failure.ReasonOf(err) != failure.ReasonNoSitemap) {
			return 0, ports.TransactionMetadata{}, err
		}
		all := Dedup(found)
		res = Result{URL: rawURL, Total: len(all), Sources: []string{}, URLs: all}
		if err == nil {
			res.Sources = append(res.Sources, SourceSitemap)
		}
		if links && len(all) < limit {
			known := make(map[string]bool, len(all))
			for _, a := range all {
				known[weburl.DedupKey(a)] = true
			}
			more, lerr := s.links.FindLinks(ctx, u.String(), limit-len(all), func(v string) bool { return known[weburl.DedupKey(v)] })
			if lerr != nil && failure.Is(lerr, failure.Invalid) {
				return 0, ports.TransactionMetadata{}, lerr
			}
			if more = Dedup(append(all, more...))[len(all):]; len(more) > 0 {
				all = append(all, more...)
				res.Sources = append(res.Sources, SourceLinks)
				res.Total, res.URLs = len(all), all
			}
		}
		if len(res.Sources) == 0 {
			return 0, ports.TransactionMetadata{}, err // no sitemap and no link: the sitemap's failure
		}
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
