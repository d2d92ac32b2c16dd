package crawl

import (
	"net/url"
	"time"

	"github.com/temoto/robotstxt"

	"github.com/trawlhq/trawl/ports"
)

// robots.txt rules (RFC 9309).
const (
	// RobotsAgent is the product token Trawl's groups are matched by.
	RobotsAgent = "Trawl"
	// RobotsMaxBytes is how much of a robots.txt is parsed.
	RobotsMaxBytes = 500 << 10
	// RobotsMaxRedirects is how many redirects are followed to it.
	RobotsMaxRedirects = 5
	// RobotsTTL is how long a fetched robots.txt is used.
	RobotsTTL = 24 * time.Hour
	// RobotsErrorTTL is how long an unreachable one disallows the host
	// before it is asked again.
	RobotsErrorTTL = 10 * time.Minute
)

// Robots is a host's robots.txt as a crawl obeys it.
type Robots struct {
	data *robotstxt.RobotsData // nil: disallow everything
	// Unreachable is set when the file could not be read (a 5xx, a network
	// failure, too many redirects): the whole host is disallowed.
	Unreachable bool
}

// RobotsFrom reads a stored robots.txt record: a 2xx body is parsed (its
// first RobotsMaxBytes), a 4xx allows everything, anything else (5xx, no
// answer) disallows everything.
func RobotsFrom(rec ports.RobotsRecord) Robots {
	switch {
	case rec.StatusCode >= 200 && rec.StatusCode < 300:
		body := rec.Body
		if len(body) > RobotsMaxBytes {
			body = body[:RobotsMaxBytes]
		}
		d, err := robotstxt.FromBytes(body)
		if err != nil {
			// A file that does not parse is read as allowing everything,
			// as RFC 9309 has crawlers ignore the lines they cannot read.
			d, _ = robotstxt.FromStatusAndBytes(404, nil)
		}
		return Robots{data: d}
	case rec.StatusCode >= 400 && rec.StatusCode < 500:
		d, _ := robotstxt.FromStatusAndBytes(404, nil)
		return Robots{data: d}
	}
	return Robots{Unreachable: true}
}

// RobotsRecordOf turns the outcome of fetching a robots.txt into the record
// kept for every node: a fetch that brought no answer, a server error or a
// chain of more than RobotsMaxRedirects redirects is recorded as
// unreachable (status 0) and kept RobotsErrorTTL; an answer RobotsTTL.
func RobotsRecordOf(origin string, res ports.FetchResponse, err error, now time.Time) ports.RobotsRecord {
	rec := ports.RobotsRecord{Origin: origin, FetchedAt: now, ExpiresAt: now.Add(RobotsTTL)}
	switch {
	case err != nil, res.Redirects > RobotsMaxRedirects, res.StatusCode >= 500, res.StatusCode < 200, res.StatusCode >= 300 && res.StatusCode < 400:
		rec.StatusCode, rec.ExpiresAt = 0, now.Add(RobotsErrorTTL)
	default:
		rec.StatusCode = res.StatusCode
		if res.StatusCode < 300 {
			rec.Body = res.Body
			if len(rec.Body) > RobotsMaxBytes {
				rec.Body = rec.Body[:RobotsMaxBytes]
			}
		}
	}
	return rec
}

// Allowed says whether the Trawl group lets a crawl fetch u.
func (r Robots) Allowed(u *url.URL) bool {
	if r.data == nil {
		return false
	}
	p := u.EscapedPath()
	if p == "" {
		p = "/"
	}
	if u.RawQuery != "" {
		p += "?" + u.RawQuery
	}
	return r.data.TestAgent(p, RobotsAgent)
}

// CrawlDelay is the Trawl group's Crawl-delay, at most max.
func (r Robots) CrawlDelay(max time.Duration) time.Duration {
	if r.data == nil {
		return 0
	}
	g := r.data.FindGroup(RobotsAgent)
	if g == nil {
		return 0
	}
	return min(g.CrawlDelay, max)
}

// RobotsURL is the robots.txt of a URL's origin.
func RobotsURL(u *url.URL) *url.URL {
	return &url.URL{Scheme: u.Scheme, Host: u.Host, Path: "/robots.txt"}
}

// UserAgent is the User-Agent a crawl sends: the product token RobotsAgent,
// which robots.txt groups are matched by, and the operator's URL when one
// is configured, so that a site owner can find who crawls them.
func UserAgent(operatorURL string) string {
	if operatorURL == "" {
		return "Mozilla/5.0 (compatible; " + RobotsAgent + "/1.0)"
	}
	return "Mozilla/5.0 (compatible; " + RobotsAgent + "/1.0; +" + operatorURL + ")"
}
