package sitemap_test

import (
	"errors"
	"testing"

	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/core/sitemap"
	"github.com/trawlhq/trawl/core/weburl"
	"github.com/trawlhq/trawl/ports"
)

// TestReadAndDiscoverFailures: core words a sitemap reader's typed reason,
// naming the caller's field for a sitemap it gave, and saying why the last
// file failed when a fetch did.
func TestReadAndDiscoverFailures(t *testing.T) {
	dns := &ports.FetchError{Reason: ports.FetchHostNotFound, Host: "shop.test"}
	nonPublic := &ports.FetchError{Reason: ports.FetchNonPublic, Host: "shop.test"}
	_, rule := weburl.Parse("ftp://shop.test/s.xml", weburl.Rules{})
	public := func(err error) (failure.Kind, string) {
		fe, ok := failure.As(err)
		if !ok {
			return failure.Internal, ""
		}
		for _, msgs := range fe.Fields {
			return fe.Kind, msgs[0]
		}
		return fe.Kind, fe.Message
	}
	for _, c := range []struct {
		name string
		err  error
		kind failure.Kind
		msg  string
	}{
		{"refused", sitemap.ReadFailure(&ports.SitemapError{Reason: ports.SitemapRefused}, "sitemap"), failure.Invalid, "The sitemap could not be read."},
		{"not a sitemap", sitemap.ReadFailure(&ports.SitemapError{Reason: ports.SitemapUnreadable}, "sitemap"), failure.Invalid, "The sitemap could not be read as an XML sitemap."},
		{"read, a fetch failed", sitemap.ReadFailure(&ports.SitemapError{Reason: ports.SitemapUnreadable, Err: dns}, "sitemap"), failure.Invalid, "The sitemap could not be read: the host shop.test was not found."},
		{"read, non-public", sitemap.ReadFailure(&ports.SitemapError{Reason: ports.SitemapUnreadable, Err: nonPublic}, "sitemap"), failure.Invalid, "The url resolves to a non-public address."},
		{"read, a listed sitemap breaks a rule", sitemap.ReadFailure(&ports.SitemapError{Reason: ports.SitemapUnreadable, Err: rule}, "sitemap"), failure.Invalid, "The url must use http or https."},
		{"discover, none", sitemap.DiscoverFailure(&ports.SitemapError{Reason: ports.SitemapUnreadable, Host: "shop.test"}, "https://shop.test"), failure.Unavailable, "No sitemap could be discovered for shop.test (robots.txt, /sitemap.xml, /sitemap_index.xml)."},
		{"discover, a fetch failed", sitemap.DiscoverFailure(&ports.SitemapError{Reason: ports.SitemapUnreadable, Host: "shop.test", Err: dns}, "https://shop.test"), failure.Unavailable, "No sitemap could be discovered for shop.test: the host shop.test was not found."},
		{"discover, cancelled", sitemap.DiscoverFailure(&ports.SitemapError{Reason: ports.SitemapUnreadable, Host: "shop.test", Err: &ports.FetchError{Reason: ports.FetchCanceled}}, "https://shop.test"), failure.Unavailable, "No sitemap could be discovered for shop.test (robots.txt, /sitemap.xml, /sitemap_index.xml)."},
		{"discover, a non-public origin", sitemap.DiscoverFailure(nonPublic, "https://shop.test"), failure.Invalid, "The url resolves to a non-public address."},
	} {
		if kind, msg := public(c.err); kind != c.kind || msg != c.msg {
			t.Errorf("%s: %v %q, want %v %q", c.name, kind, msg, c.kind, c.msg)
		}
	}
	if failure.ReasonOf(sitemap.DiscoverFailure(&ports.SitemapError{}, "https://shop.test")) != failure.ReasonNoSitemap {
		t.Error("no sitemap is reason no_sitemap")
	}
	other := errors.New("boom")
	if sitemap.ReadFailure(other, "sitemap") != other {
		t.Error("an error that is no typed reason passes as it is")
	}
}
