package sitemap

import (
	"errors"
	"fmt"
	"strings"

	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/core/weburl"
	"github.com/trawlhq/trawl/ports"
)

// DiscoverFailure words a sitemap reader's Discover error for the caller
// of the map endpoint, whose URL came in the url field: a URL rule broken
// or a non-public host is a 422; a site without a readable sitemap is
// no_sitemap, saying why the last file failed when a fetch did.
func DiscoverFailure(err error, origin string) error {
	se, ok := asSitemapError(err)
	if !ok {
		return weburl.Failure(err, "url")
	}
	host := strings.TrimPrefix(strings.TrimPrefix(origin, "https://"), "http://")
	if se.Host != "" {
		host = se.Host
	}
	last := weburl.Failure(se.Err, "url")
	if failure.Is(last, failure.Invalid) {
		return last
	}
	msg := fmt.Sprintf("No sitemap could be discovered for %s (robots.txt, /sitemap.xml, /sitemap_index.xml).", host)
	if fe, ok := weburl.AsFetchError(se.Err); ok && fe.Reason != ports.FetchCanceled {
		msg = fmt.Sprintf("No sitemap could be discovered for %s: %s", host, weburl.FetchDetail(fe, "url"))
	}
	return failure.Unable("sitemap.Discover", failure.ReasonNoSitemap, msg)
}

// ReadFailure words a sitemap reader's Read error for a sitemap URL the
// caller gave in field: a 422 naming field, saying why when a fetch
// failed. A sitemap it lists that breaks the URL rules, or one on a
// non-public host, is the 422 of that URL.
func ReadFailure(err error, field string) error {
	se, ok := asSitemapError(err)
	if !ok {
		return weburl.Failure(err, field)
	}
	const op = "sitemap.Read"
	if se.Reason == ports.SitemapRefused {
		return failure.Invalidf(op, field, "The %s could not be read.", field)
	}
	last := weburl.Failure(se.Err, "url")
	if failure.Is(last, failure.Invalid) {
		return last
	}
	if fe, ok := weburl.AsFetchError(se.Err); ok {
		return failure.Invalidf(op, field, "The %s could not be read: %s", field, weburl.FetchDetail(fe, "url"))
	}
	return failure.Invalidf(op, field, "The %s could not be read as an XML sitemap.", field)
}

func asSitemapError(err error) (*ports.SitemapError, bool) {
	var se *ports.SitemapError
	return se, errors.As(err, &se)
}
