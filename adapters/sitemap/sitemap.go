// Package sitemap discovers a site's URLs from its sitemaps: robots.txt
// Sitemap lines (parsed with temoto/robotstxt), else /sitemap.xml and
// /sitemap_index.xml; sitemap indexes are followed concurrently with bounded
// depth, count and size, and the URLs come back in sitemap order.
package sitemap

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"sync"

	"github.com/temoto/robotstxt"

	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/ports"
)

// Limits. The per-file ones are the sitemap protocol's.
type Limits struct {
	MaxFileBytes   int64 // uncompressed, per sitemap file (50 MB)
	MaxURLsPerFile int   // 50,000
	MaxDepth       int   // index nesting
	MaxFiles       int   // sitemap files per discovery
	MaxURLs        int   // URLs per discovery
	Concurrency    int   // sub-sitemaps fetched at once
}

// DefaultLimits are the limits in force unless configured.
var DefaultLimits = Limits{MaxFileBytes: 50 << 20, MaxURLsPerFile: 50_000, MaxDepth: 4, MaxFiles: 500, MaxURLs: 500_000, Concurrency: 8}

// Discoverer implements ports.SitemapDiscoverer.
type Discoverer struct {
	fetcher ports.Fetcher
	limits  Limits
}

var _ ports.SitemapDiscoverer = (*Discoverer)(nil)

// New builds a discoverer; zero limits take the defaults.
func New(fetcher ports.Fetcher, l Limits) (*Discoverer, error) {
	if fetcher == nil {
		return nil, errors.New("sitemap.New: fetcher is required")
	}
	d := DefaultLimits
	if l.MaxFileBytes > 0 {
		d.MaxFileBytes = l.MaxFileBytes
	}
	if l.MaxURLsPerFile > 0 {
		d.MaxURLsPerFile = l.MaxURLsPerFile
	}
	if l.MaxDepth > 0 {
		d.MaxDepth = l.MaxDepth
	}
	if l.MaxFiles > 0 {
		d.MaxFiles = l.MaxFiles
	}
	if l.MaxURLs > 0 {
		d.MaxURLs = l.MaxURLs
	}
	if l.Concurrency > 0 {
		d.Concurrency = l.Concurrency
	}
	return &Discoverer{fetcher: fetcher, limits: d}, nil
}

const xmlAccept = "application/xml,text/xml;q=0.9,application/x-gzip;q=0.8,*/*;q=0.5"

// run is one discovery: the files visited and the shared budget.
type run struct {
	d       *Discoverer
	mu      sync.Mutex
	visited map[string]bool
	files   int
	urls    int
	sem     chan struct{}
	lastErr error
}

// Discover implements ports.SitemapDiscoverer.
func (d *Discoverer) Discover(ctx context.Context, origin string) ([]string, error) {
	r := &run{d: d, visited: map[string]bool{}, sem: make(chan struct{}, d.limits.Concurrency)}
	declared, err := r.robotsSitemaps(ctx, origin)
	if err != nil && failure.Is(err, failure.Invalid) {
		return nil, err // the host is not public: a 422, as for any URL input
	}
	found, any := r.readAll(ctx, declared, 0)
	if !any {
		found, any = r.readAll(ctx, []string{origin + "/sitemap.xml", origin + "/sitemap_index.xml"}, 0)
	}
	if !any {
		host := strings.TrimPrefix(strings.TrimPrefix(origin, "https://"), "http://")
		msg := fmt.Sprintf("No sitemap could be discovered for %s (robots.txt, /sitemap.xml, /sitemap_index.xml).", host)
		if fe, ok := failure.As(r.lastErr); ok && fe.Kind == failure.Invalid {
			return nil, r.lastErr
		} else if ok && strings.Contains(fe.Message, "could not be fetched") {
			msg = fmt.Sprintf("No sitemap could be discovered for %s: %s", host, strings.TrimPrefix(fe.Message, "The page could not be fetched: "))
		}
		return nil, failure.E("sitemap.Discover", failure.Unavailable, msg)
	}
	return found, nil
}

func (r *run) robotsSitemaps(ctx context.Context, origin string) ([]string, error) {
	res, err := r.d.fetcher.Fetch(ctx, ports.FetchRequest{URL: origin + "/robots.txt", Field: "url", Accept: "text/plain,*/*;q=0.5", MaxBytes: 2 << 20})
	if err != nil {
		r.lastErr = err
		return nil, err
	}
	if res.StatusCode != 200 {
		return nil, nil
	}
	robots, err := robotstxt.FromBytes(res.Body)
	if err != nil {
		return nil, nil
	}
	return robots.Sitemaps, nil
}

// readAll reads sitemaps concurrently and concatenates their URLs in the
// order the sitemaps were listed. any reports whether one was readable.
func (r *run) readAll(ctx context.Context, sitemaps []string, depth int) ([]string, bool) {
	results := make([][]string, len(sitemaps))
	ok := make([]bool, len(sitemaps))
	var wg sync.WaitGroup
	for i, sm := range sitemaps {
		if !r.claim(sm) {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], ok[i] = r.read(ctx, sm, depth)
		}()
	}
	wg.Wait()
	var out []string
	any := false
	for i := range sitemaps {
		out = append(out, results[i]...)
		any = any || ok[i]
	}
	return out, any
}

// claim marks a sitemap visited within the file budget; false for a repeat
// (a loop) or past the budget.
func (r *run) claim(sm string) bool {
	key := strings.ToLower(strings.TrimSpace(sm))
	r.mu.Lock()
	defer r.mu.Unlock()
	if key == "" || r.visited[key] || r.files >= r.d.limits.MaxFiles {
		return false
	}
	r.visited[key] = true
	r.files++
	return true
}

func (r *run) addURLs(n int) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	room := r.d.limits.MaxURLs - r.urls
	if n > room {
		n = max(0, room)
	}
	r.urls += n
	return n
}

// read fetches and parses one sitemap file; an index recurses.
func (r *run) read(ctx context.Context, sm string, depth int) ([]string, bool) {
	r.sem <- struct{}{}
	res, err := r.d.fetcher.Fetch(ctx, ports.FetchRequest{URL: sm, Field: "url", Accept: xmlAccept, MaxBytes: r.d.limits.MaxFileBytes})
	<-r.sem
	if err != nil {
		r.mu.Lock()
		r.lastErr = err
		r.mu.Unlock()
		return nil, false
	}
	if res.StatusCode != 200 {
		return nil, false
	}
	body := res.Body
	if len(body) > 2 && body[0] == 0x1f && body[1] == 0x8b {
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			return nil, false
		}
		body, err = io.ReadAll(io.LimitReader(zr, r.d.limits.MaxFileBytes+1))
		if err != nil || int64(len(body)) > r.d.limits.MaxFileBytes {
			return nil, false
		}
	}
	kind, locs, err := parse(body, r.d.limits.MaxURLsPerFile)
	if err != nil {
		return nil, false
	}
	switch kind {
	case "sitemapindex":
		if depth+1 > r.d.limits.MaxDepth {
			return nil, true
		}
		urls, _ := r.readAll(ctx, locs, depth+1)
		return urls, true
	case "urlset", "text":
		n := r.addURLs(len(locs))
		return locs[:n], true
	}
	return nil, false
}

// parse reads a sitemap with a streaming decoder: a <urlset> gives page
// URLs, a <sitemapindex> gives sitemap URLs; a plain-text sitemap (one URL a
// line) is accepted too. At most maxURLs entries are read.
func parse(body []byte, maxURLs int) (kind string, locs []string, err error) {
	trimmed := bytes.TrimSpace(bytes.TrimPrefix(body, []byte("\xef\xbb\xbf")))
	if len(trimmed) > 0 && trimmed[0] != '<' {
		return "text", parseText(trimmed, maxURLs), nil
	}
	dec := xml.NewDecoder(bytes.NewReader(body))
	dec.Strict = false
	dec.CharsetReader = func(_ string, in io.Reader) (io.Reader, error) { return in, nil } // the fetcher gave UTF-8
	inLoc, parent := false, ""
	var loc strings.Builder
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			if kind != "" {
				return kind, locs, nil // keep what a truncated file gave
			}
			return "", nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			name := strings.ToLower(t.Name.Local)
			switch {
			case kind == "" && (name == "urlset" || name == "sitemapindex"):
				kind = name
			case name == "url" || name == "sitemap":
				parent = name
			case name == "loc" && parent != "":
				inLoc = true
				loc.Reset()
			}
		case xml.CharData:
			if inLoc {
				loc.Write(t)
			}
		case xml.EndElement:
			name := strings.ToLower(t.Name.Local)
			if name == "loc" && inLoc {
				inLoc = false
				if u := cleanLoc(loc.String()); u != "" &&
					((kind == "urlset" && parent == "url") || (kind == "sitemapindex" && parent == "sitemap")) {
					locs = append(locs, u)
					if len(locs) >= maxURLs {
						return kind, locs, nil
					}
				}
			}
			if name == "url" || name == "sitemap" {
				parent = ""
			}
		}
	}
	if kind == "" {
		return "", nil, errors.New("not a sitemap")
	}
	return kind, locs, nil
}

func parseText(body []byte, maxURLs int) []string {
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() && len(out) < maxURLs {
		if u := cleanLoc(sc.Text()); u != "" {
			out = append(out, u)
		}
	}
	return out
}

// cleanLoc keeps absolute http(s) URLs only.
func cleanLoc(s string) string {
	s = strings.TrimSpace(s)
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return ""
	}
	return s
}

// Read implements ports.SitemapDiscoverer: one sitemap, indexes followed, at
// most max URLs (max+1 are read so callers can tell "too many").
func (d *Discoverer) Read(ctx context.Context, sitemapURL, field string, max int) ([]string, error) {
	lim := d.limits
	lim.MaxURLs = max + 1
	r := &run{d: &Discoverer{fetcher: d.fetcher, limits: lim}, visited: map[string]bool{}, sem: make(chan struct{}, lim.Concurrency)}
	if !r.claim(sitemapURL) {
		return nil, failure.Invalidf("sitemap.Read", field, "The %s could not be read.", field)
	}
	urls, ok := r.read(ctx, sitemapURL, 0)
	if !ok {
		msg := fmt.Sprintf("The %s could not be read as an XML sitemap.", field)
		if fe, isFE := failure.As(r.lastErr); isFE && fe.Kind == failure.Invalid {
			return nil, r.lastErr
		} else if isFE && fe.Message != "" {
			msg = fmt.Sprintf("The %s could not be read: %s", field, strings.TrimPrefix(fe.Message, "The page could not be fetched: "))
		}
		return nil, failure.Invalidf("sitemap.Read", field, "%s", msg)
	}
	return urls, nil
}
