// Package crawlsite is a generated site to crawl in tests and benchmarks:
// pages linked ten to a page, with the duplicates, traps, robots.txt rules
// and refusals a crawl must handle, and counters of what was asked for.
package crawlsite

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Site serves Pages article pages: / links to /p/1../p/10, and /p/i to
// /p/10i+1../p/10i+10 while they exist. Every article also links to
//   - a tracking-parameter and a trailing-slash spelling of itself, and
//     /p/i/index.html (variants: never read),
//   - /dup/i, whose rel=canonical names /p/i (a duplicate),
//   - /private/i, which robots.txt disallows (never read),
//   - /nofollow/i with rel=nofollow (never read),
//   - /calendar/2026/1, a trap whose every month links to the next,
//   - an external site (out of scope).
//
// /noindex is a page that asks not to be indexed, /gone answers 404, and
// /slow/i answers 429 with Retry-After: 1 the first time.
type Site struct {
	Pages int
	// Delay is how long each answer takes (simulated work).
	Delay time.Duration

	inFlight, maxInFlight atomic.Int64
	hits                  sync.Map // path -> *atomic.Int64
	slowOnce              sync.Map
	agents                sync.Map // User-Agent -> true
}

// UserAgents are the distinct User-Agent headers the site was sent.
func (s *Site) UserAgents() []string {
	var out []string
	s.agents.Range(func(k, _ any) bool { out = append(out, k.(string)); return true })
	return out
}

// New builds a site of n pages.
func New(n int) *Site { return &Site{Pages: n} }

// MaxInFlight is the most requests the site saw at once.
func (s *Site) MaxInFlight() int64 { return s.maxInFlight.Load() }

// Hits is how often paths starting with prefix were asked for.
func (s *Site) Hits(prefix string) int64 {
	var n int64
	s.hits.Range(func(k, v any) bool {
		if strings.HasPrefix(k.(string), prefix) {
			n += v.(*atomic.Int64).Load()
		}
		return true
	})
	return n
}

func (s *Site) count(path string) {
	v, _ := s.hits.LoadOrStore(path, new(atomic.Int64))
	v.(*atomic.Int64).Add(1)
}

func (s *Site) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := s.inFlight.Add(1)
	defer s.inFlight.Add(-1)
	for {
		m := s.maxInFlight.Load()
		if n <= m || s.maxInFlight.CompareAndSwap(m, n) {
			break
		}
	}
	s.count(r.URL.Path)
	s.agents.LoadOrStore(r.UserAgent(), true)
	if s.Delay > 0 {
		time.Sleep(s.Delay)
	}
	p := r.URL.Path
	switch {
	case p == "/robots.txt":
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "User-agent: *\nDisallow: /private/\n\nUser-agent: OtherBot\nDisallow: /\n")
	case p == "/" || p == "/index.html":
		s.article(w, r, 0, "")
	case strings.HasPrefix(p, "/p/"):
		i, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSuffix(strings.TrimPrefix(p, "/p/"), "index.html"), "/"))
		if err != nil || i < 1 || i > s.Pages {
			http.NotFound(w, r)
			return
		}
		s.article(w, r, i, "")
	case strings.HasPrefix(p, "/dup/"):
		i, _ := strconv.Atoi(strings.TrimPrefix(p, "/dup/"))
		s.article(w, r, i, fmt.Sprintf(`<link rel="canonical" href="/p/%d">`, i))
	case strings.HasPrefix(p, "/calendar/"):
		var y, m int
		fmt.Sscanf(p, "/calendar/%d/%d", &y, &m)
		ny, nm := y, m+1
		if nm > 12 {
			ny, nm = y+1, 1
		}
		page(w, fmt.Sprintf("Calendar %d-%02d", y, m), "", fmt.Sprintf(`<a href="/calendar/%d/%d">Next month</a>`, ny, nm))
	case p == "/noindex":
		page(w, "Hidden page", `<meta name="robots" content="noindex">`, `<a href="/p/1">One</a>`)
	case strings.HasPrefix(p, "/slow/"):
		if _, seen := s.slowOnce.LoadOrStore(p, true); !seen {
			w.Header().Set("Retry-After", "1")
			http.Error(w, "slow down", http.StatusTooManyRequests)
			return
		}
		page(w, "Slow page "+p, "", "")
	default: // /private/, /nofollow/, /gone and anything else
		if strings.HasPrefix(p, "/private/") || strings.HasPrefix(p, "/nofollow/") {
			page(w, "Should not be read", "", "")
			return
		}
		http.NotFound(w, r)
	}
}

func (s *Site) article(w http.ResponseWriter, r *http.Request, i int, head string) {
	var links strings.Builder
	for c := 10*i + 1; c <= min(10*i+10, s.Pages); c++ {
		fmt.Fprintf(&links, `<li><a href="/p/%d">Article %d</a></li>`, c, c)
	}
	if i > 0 {
		fmt.Fprintf(&links, `<li><a href="/p/%d?utm_source=feed&utm_medium=x">Share</a></li>`, i)
		fmt.Fprintf(&links, `<li><a href="/p/%d/">Permalink</a></li><li><a href="/p/%d/index.html">Index</a></li>`, i, i)
		fmt.Fprintf(&links, `<li><a href="/dup/%d">Print view</a></li>`, i)
		fmt.Fprintf(&links, `<li><a href="/private/%d">Private</a></li>`, i)
		fmt.Fprintf(&links, `<li><a rel="nofollow" href="/nofollow/%d">Login</a></li>`, i)
	} else {
		links.WriteString(`<li><a href="/calendar/2026/1">Calendar</a></li><li><a href="/noindex">Hidden</a></li><li><a href="/gone">Gone</a></li><li><a href="/slow/1">Slow</a></li>`)
	}
	links.WriteString(`<li><a href="http://elsewhere.test/">Elsewhere</a></li><li><a href="#top">Top</a></li>`)
	page(w, fmt.Sprintf("Article %d", i), head, "<ul>"+links.String()+"</ul>")
}

func page(w http.ResponseWriter, title, head, nav string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprintf(w, `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>%[1]s</title>%[2]s</head><body>
<nav>%[3]s</nav>
<main><article><h1>%[1]s</h1>
<p>%[1]s is a page of the generated site. It has enough prose for the extractor to take it for the main content of the page, which is what a crawl extracts and what it charges for.</p>
<p>The second paragraph of %[1]s says more of the same, so that the text is long enough and plainly the article: crawls read pages like this one by the thousand, following the links around it.</p>
<p>A third paragraph closes %[1]s with a sentence about nothing in particular, and another one after it for good measure.</p>
</article></main>
<footer><p>Footer of the generated site.</p></footer></body></html>`, title, head, nav)
}
