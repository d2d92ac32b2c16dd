// Package sitemap discovers a site's URLs from its sitemaps: robots.txt
// Sitemap lines (parsed with temoto/robotstxt), else /sitemap.xml and
// /sitemap_index.xml; sitemap indexes are followed concurrently with bounded
// depth, count and size, and the URLs come back in sitemap order.
package sitemapxml

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/xml"
	"errors"
	"io"
	"net/url"
	"strings"
	"sync"

	"github.com/temoto/robotstxt"
	"golang.org/x/net/html/charset"

	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/core/weburl"
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

// Fetcher is what discovery needs of adapters/fetch: Fetch for robots.txt,
// Stream for sitemaps, which are read only as far as the URL budget goes.
type Fetcher interface {
	ports.Fetcher
	Stream(ctx context.Context, r ports.FetchRequest, read func(ports.FetchResponse, io.Reader) error) error
}

// Discoverer implements ports.SitemapDiscoverer.
type Discoverer struct {
	fetcher Fetcher
	limits  Limits
}

var _ ports.SitemapDiscoverer = (*Discoverer)(nil)

// New builds a discoverer; zero limits take the defaults.
func New(fetcher Fetcher, l Limits) (*Discoverer, error) {
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
	if err != nil && refused(err) {
		return nil, err // the host is not public: a 422, as for any URL input
	}
	found, any := r.readAll(ctx, declared, 0)
	if !any {
		found, any = r.readAll(ctx, []string{origin + "/sitemap.xml", origin + "/sitemap_index.xml"}, 0)
	}
	if !any {
		host := strings.TrimPrefix(strings.TrimPrefix(origin, "https://"), "http://")
		return nil, &ports.SitemapError{Reason: ports.SitemapUnreadable, Host: host, Err: r.lastErr}
	}
	return found, nil
}

func (r *run) robotsSitemaps(ctx context.Context, origin string) ([]string, error) {
	u, err := weburl.Parse(origin+"/robots.txt", weburl.Rules{MaxLen: maxURLBytes})
	if err != nil {
		r.lastErr = err
		return nil, err
	}
	res, err := r.d.fetcher.Fetch(ctx, ports.FetchRequest{URL: u, Accept: "text/plain,*/*;q=0.5", MaxBytes: 2 << 20})
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

func (r *run) spent() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.urls >= r.d.limits.MaxURLs
}

// takeURL reserves one URL of the run's budget; false when it is spent.
func (r *run) takeURL() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.urls >= r.d.limits.MaxURLs {
		return false
	}
	r.urls++
	return true
}

// read streams and parses one sitemap file; an index recurses. Reading
// stops, and the transfer with it, as soon as the run's URL budget is spent.
func (r *run) read(ctx context.Context, sm string, depth int) ([]string, bool) {
	var kind string
	var locs []string
	r.sem <- struct{}{}
	if r.spent() { // nothing this file lists could be kept
		<-r.sem
		return nil, true
	}
	u, err := weburl.Parse(sm, weburl.Rules{MaxLen: maxURLBytes})
	if err != nil { // a listed sitemap that breaks the URL rules is not read
		<-r.sem
		r.keep(err)
		return nil, false
	}
	err = r.d.fetcher.Stream(ctx, ports.FetchRequest{URL: u, Accept: xmlAccept, MaxBytes: r.d.limits.MaxFileBytes},
		func(res ports.FetchResponse, body io.Reader) error {
			if res.StatusCode != 200 {
				return errNotOK
			}
			br := bufio.NewReader(body)
			if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
				zr, err := gzip.NewReader(br)
				if err != nil {
					return err
				}
				defer zr.Close()
				br = bufio.NewReader(&capped{r: zr, left: r.d.limits.MaxFileBytes})
			}
			// The server's charset wins, as when the whole body was converted;
			// without one, the decoder follows the XML declaration.
			declared := charset.NewReaderLabel
			if res.Charset != "" && res.Charset != "utf-8" {
				if decoded, err := charset.NewReaderLabel(res.Charset, br); err == nil {
					br = bufio.NewReader(decoded)
					declared = func(_ string, in io.Reader) (io.Reader, error) { return in, nil }
				}
			}
			var err error
			kind, locs, err = parse(br, r.d.limits.MaxURLsPerFile, declared, func(kind string) bool { return kind == "sitemapindex" || r.takeURL() })
			return err
		})
	<-r.sem
	if err != nil {
		if _, ok := weburl.AsFetchError(err); ok { // a fetch failure: its reason is worth reporting
			r.keep(err)
		}
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
		return locs, true
	}
	return nil, false
}

// refused reports an error that ends a discovery at once: the origin's
// URL breaks a rule or its host is not public.
func refused(err error) bool {
	if fe, ok := weburl.AsFetchError(err); ok {
		return fe.Reason == ports.FetchNonPublic
	}
	return failure.Is(err, failure.Invalid)
}

// keep records err as the failure Discover reports when no sitemap is read.
func (r *run) keep(err error) {
	r.mu.Lock()
	r.lastErr = err
	r.mu.Unlock()
}

// maxURLBytes bounds the URLs a sitemap lists, longer than the API's own
// URL inputs may be.
const maxURLBytes = 2048

var (
	errNotOK    = errors.New("the sitemap answered a status other than 200")
	errTooLarge = errors.New("the sitemap is larger than the byte cap")
)

// capped fails once more than left bytes come through (a gzip bomb).
type capped struct {
	r    io.Reader
	left int64
}

func (c *capped) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.left -= int64(n)
	if c.left < 0 {
		return n, errTooLarge
	}
	return n, err
}

// parse reads a sitemap with a streaming decoder: a <urlset> gives page
// URLs, a <sitemapindex> gives sitemap URLs; a plain-text sitemap (one URL a
// line) is accepted too. It stops after maxURLs entries, or when take
// (asked before keeping each entry) says the budget is spent. A file cut
// short keeps the entries read, unless it broke a byte cap.
func parse(body *bufio.Reader, maxURLs int, charsetReader func(string, io.Reader) (io.Reader, error), take func(kind string) bool) (kind string, locs []string, err error) {
	skipBOMAndSpace(body)
	first, err := body.Peek(1)
	if err != nil {
		if isCapError(err) {
			return "", nil, err
		}
		return "", nil, errors.New("not a sitemap")
	}
	if first[0] != '<' {
		locs, err := parseText(body, maxURLs, take)
		return "text", locs, err
	}
	if scannable(body) {
		return scanLocs(body, maxURLs, take)
	}
	return parseXML(body, maxURLs, charsetReader, take)
}

// parseXML is parse's XML branch with encoding/xml: for files in another
// encoding than UTF-8 or with a document type.
func parseXML(body *bufio.Reader, maxURLs int, charsetReader func(string, io.Reader) (io.Reader, error), take func(kind string) bool) (kind string, locs []string, err error) {
	dec := xml.NewDecoder(body)
	dec.Strict = false
	dec.CharsetReader = charsetReader
	inLoc, parent := false, ""
	var loc strings.Builder
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			if kind != "" && !isCapError(err) {
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
					if !take(kind) {
						return kind, locs, nil
					}
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

// isCapError reports a byte cap broken while reading: the file is unreadable.
func isCapError(err error) bool {
	_, fetchFailed := weburl.AsFetchError(err)
	return errors.Is(err, errTooLarge) || fetchFailed
}

func skipBOMAndSpace(r *bufio.Reader) {
	if b, err := r.Peek(3); err == nil && bytes.Equal(b, []byte("\xef\xbb\xbf")) {
		_, _ = r.Discard(3)
	}
	for {
		b, err := r.Peek(1)
		if err != nil || !strings.ContainsRune(" \t\r\n", rune(b[0])) {
			return
		}
		_, _ = r.Discard(1)
	}
}

func parseText(body io.Reader, maxURLs int, take func(kind string) bool) ([]string, error) {
	var out []string
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for len(out) < maxURLs && sc.Scan() {
		if u := cleanLoc(sc.Text()); u != "" {
			if !take("text") {
				return out, nil
			}
			out = append(out, u)
		}
	}
	if err := sc.Err(); err != nil && isCapError(err) {
		return nil, err
	}
	return out, nil
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
func (d *Discoverer) Read(ctx context.Context, sitemapURL string, max int) ([]string, error) {
	lim := d.limits
	lim.MaxURLs = max + 1
	r := &run{d: &Discoverer{fetcher: d.fetcher, limits: lim}, visited: map[string]bool{}, sem: make(chan struct{}, lim.Concurrency)}
	if !r.claim(sitemapURL) {
		return nil, &ports.SitemapError{Reason: ports.SitemapRefused}
	}
	urls, ok := r.read(ctx, sitemapURL, 0)
	if !ok {
		return nil, &ports.SitemapError{Reason: ports.SitemapUnreadable, Err: r.lastErr}
	}
	return urls, nil
}
