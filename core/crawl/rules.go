// Package crawl holds the crawl use case: from a start URL, every page of a
// site within a budget, a depth, filters and a scope, obeying robots.txt and
// a per-host politeness shared by every node. A crawl is a job of the bulk
// queue (same lease, claim and hand-back); its frontier is durable in the
// store, so a URL is queued once, the limit is never overshot and a node
// that dies loses nothing.
package crawl

import (
	"fmt"
	"net/url"
	"path"
	"regexp"
	"sort"
	"strings"

	"golang.org/x/net/publicsuffix"

	"github.com/trawlhq/trawl/core/billing"
	"github.com/trawlhq/trawl/core/weburl"
)

// Bounds of a crawl request.
const (
	MinLimit        = 1
	MaxLimit        = billing.MaxCrawlPages
	DefaultLimit    = 100
	MaxMaxDepth     = 20
	DefaultMaxDepth = 3
	MaxPatterns     = 100
	MaxPatternLen   = 500
	MaxIgnoreParams = 100
	// CostPerPage is the price of an extracted page (the content price).
	CostPerPage = 2
	// MaxCrawlURLLength bounds the URLs a crawl follows: longer ones are
	// traps (session ids and calendars that grow the path) and are
	// skipped as filtered.
	MaxCrawlURLLength = 1024
)

// DefaultIgnoreParams are the query parameters dropped when URLs are
// compared, unless the caller names others.
var DefaultIgnoreParams = []string{"utm_*", "gclid", "fbclid", "ref"}

// Scope is how far from the start URL's host a crawl may go.
type Scope string

// Scopes.
const (
	ScopeHost       Scope = "host"       // the start host (with or without www.)
	ScopeDomain     Scope = "domain"     // the registrable domain and all its subdomains
	ScopeSubdomains Scope = "subdomains" // the start host and its subdomains
)

// SitemapMode is how a crawl uses the site's sitemaps.
type SitemapMode string

// Sitemap modes.
const (
	SitemapInclude SitemapMode = "include" // seed from the sitemaps and follow links
	SitemapSkip    SitemapMode = "skip"    // follow links only
	SitemapOnly    SitemapMode = "only"    // the sitemaps' URLs only, no link following
)

// Skip reasons, as the status counts name them.
const (
	SkipRobots    = "robots"
	SkipFilter    = "filter"
	SkipScope     = "scope"
	SkipDepth     = "depth"
	SkipDuplicate = "duplicate"
	SkipLimit     = "limit"
)

// SkipReasons lists the skip reasons in the order the status shows them.
var SkipReasons = []string{SkipRobots, SkipFilter, SkipScope, SkipDepth, SkipDuplicate, SkipLimit}

// Normalizer compares URLs: two URLs with the same Key are one page.
type Normalizer struct {
	ignore []glob
}

// NewNormalizer builds a normalizer dropping the named query parameters
// (a name may end in * to match a prefix); nil means DefaultIgnoreParams.
func NewNormalizer(ignoreParams []string) Normalizer {
	if ignoreParams == nil {
		ignoreParams = DefaultIgnoreParams
	}
	n := Normalizer{}
	for _, p := range ignoreParams {
		n.ignore = append(n.ignore, glob(strings.ToLower(p)))
	}
	return n
}

type glob string

func (g glob) match(name string) bool {
	if p, ok := strings.CutSuffix(string(g), "*"); ok {
		return strings.HasPrefix(name, p)
	}
	return string(g) == name
}

func (n Normalizer) ignored(name string) bool {
	name = strings.ToLower(name)
	for _, g := range n.ignore {
		if g.match(name) {
			return true
		}
	}
	return false
}

// Key is the comparison form of a URL parsed by weburl.Parse: the scheme,
// a leading "www.", the default port, the fragment, a trailing slash, a
// final index.html (or index.htm), the ignored query parameters and the
// order of the others make no difference.
func (n Normalizer) Key(u *url.URL) string {
	host := strings.TrimPrefix(strings.ToLower(u.Hostname()), "www.")
	if p := u.Port(); p != "" && p != weburl.DefaultPort(u.Scheme) {
		host += ":" + p
	}
	p := u.EscapedPath()
	if base := path.Base(p); base == "index.html" || base == "index.htm" {
		p = strings.TrimSuffix(p, base)
	}
	p = strings.TrimRight(p, "/")
	var params []string
	if u.RawQuery != "" {
		for _, kv := range strings.Split(u.RawQuery, "&") {
			if kv == "" {
				continue
			}
			name, _, _ := strings.Cut(kv, "=")
			if dn, err := url.QueryUnescape(name); err == nil {
				name = dn
			}
			if !n.ignored(name) {
				params = append(params, kv)
			}
		}
		sort.Strings(params)
	}
	k := host + p
	if len(params) > 0 {
		k += "?" + strings.Join(params, "&")
	}
	return k
}

// Clean is the URL a crawl fetches for a link: the ignored query parameters
// and the fragment dropped, the rest as written.
func (n Normalizer) Clean(u *url.URL) *url.URL {
	c := *u
	c.Fragment, c.RawFragment = "", ""
	if u.RawQuery != "" {
		var keep []string
		for _, kv := range strings.Split(u.RawQuery, "&") {
			name, _, _ := strings.Cut(kv, "=")
			if dn, err := url.QueryUnescape(name); err == nil {
				name = dn
			}
			if kv != "" && !n.ignored(name) {
				keep = append(keep, kv)
			}
		}
		c.RawQuery = strings.Join(keep, "&")
	}
	return &c
}

// Pattern is one include or exclude pattern, compiled.
type Pattern struct {
	Source string
	re     *regexp.Regexp
}

// Match reports whether the pattern matches a path plus query string.
func (p Pattern) Match(pathQuery string) bool { return p.re.MatchString(pathQuery) }

// CompilePattern compiles a glob (the default) or, prefixed "re:", an RE2
// expression. A glob matches the whole path plus query: "*" is any run of
// characters but "/", "**" any run at all, "?" one character but "/"; a
// glob not starting with "/" may match at any depth ("*.pdf"). A regular
// expression matches anywhere in it unless anchored.
func CompilePattern(s string) (Pattern, error) {
	if expr, ok := strings.CutPrefix(s, "re:"); ok {
		re, err := regexp.Compile(expr)
		if err != nil {
			return Pattern{}, err
		}
		return Pattern{Source: s, re: re}, nil
	}
	if s == "" {
		return Pattern{}, fmt.Errorf("empty pattern")
	}
	var b strings.Builder
	b.WriteString("^")
	if !strings.HasPrefix(s, "/") {
		b.WriteString("(?:.*/)?")
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '*':
			if i+1 < len(s) && s[i+1] == '*' {
				b.WriteString(".*")
				i++
			} else {
				b.WriteString("[^/]*")
			}
		case '?':
			b.WriteString("[^/]")
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString("$")
	re, err := regexp.Compile(b.String())
	if err != nil {
		return Pattern{}, err
	}
	return Pattern{Source: s, re: re}, nil
}

// Filter is a crawl's include and exclude lists.
type Filter struct {
	Include, Exclude []Pattern
}

// Allows says whether a URL passes the filter: no exclude pattern matches
// its path plus query (exclude wins), and some include pattern does when
// there are any.
func (f Filter) Allows(u *url.URL) bool {
	pq := u.EscapedPath()
	if pq == "" {
		pq = "/"
	}
	if u.RawQuery != "" {
		pq += "?" + u.RawQuery
	}
	for _, p := range f.Exclude {
		if p.Match(pq) {
			return false
		}
	}
	if len(f.Include) == 0 {
		return true
	}
	for _, p := range f.Include {
		if p.Match(pq) {
			return true
		}
	}
	return false
}

// Scoper says whether a host is within a crawl's scope.
type Scoper struct {
	scope  Scope
	host   string // the start host without www.
	domain string // its registrable domain
}

// NewScoper builds the scope of a crawl starting at host.
func NewScoper(scope Scope, host string) Scoper {
	h := strings.TrimPrefix(strings.ToLower(host), "www.")
	d, err := publicsuffix.EffectiveTLDPlusOne(h)
	if err != nil {
		d = h
	}
	return Scoper{scope: scope, host: h, domain: d}
}

// In reports whether host is in scope. host and www.host are one host.
func (s Scoper) In(host string) bool {
	h := strings.TrimPrefix(strings.ToLower(host), "www.")
	switch s.scope {
	case ScopeDomain:
		return h == s.domain || strings.HasSuffix(h, "."+s.domain)
	case ScopeSubdomains:
		return h == s.host || strings.HasSuffix(h, "."+s.host)
	}
	return h == s.host
}

// HostCap is how many distinct URLs a crawl records for one host: ten times
// its limit, at least 1,000 and at most 100,000. It bounds what traps (an
// endless calendar, session ids in paths) can fill the frontier with.
func HostCap(limit int) int {
	return min(max(10*limit, 1000), 100_000)
}

// Rules are a crawl's compiled request: what it follows and how it compares.
type Rules struct {
	Norm     Normalizer
	Filter   Filter
	Scope    Scoper
	MaxDepth int
}

// Verdict is what a crawl does with a discovered link: queue it, or skip
// it for a reason.
type Verdict struct {
	URL  *url.URL
	Key  string
	Skip string // empty: queue
}

// Judge decides on one discovered link at depth (the hops from the start).
// It returns ok false for a link that is not a URL Trawl would fetch at all
// (another scheme, a raw IP, credentials): those are not counted.
func (r Rules) Judge(raw string, depth int) (Verdict, bool) {
	u, err := weburl.Parse(raw, weburl.Rules{Field: "url", MaxLen: 8192})
	if err != nil {
		return Verdict{}, false
	}
	u = r.Norm.Clean(u)
	v := Verdict{URL: u, Key: r.Norm.Key(u)}
	switch {
	case !r.Scope.In(u.Hostname()):
		v.Skip = SkipScope
	case len(u.String()) > MaxCrawlURLLength || !r.Filter.Allows(u):
		v.Skip = SkipFilter
	case depth > r.MaxDepth:
		v.Skip = SkipDepth
	}
	return v, true
}
