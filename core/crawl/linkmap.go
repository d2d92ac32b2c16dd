package crawl

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/trawlhq/trawl/core/weburl"
	"github.com/trawlhq/trawl/ports"
)

// Bounds of map's link discovery: a shallow crawl answered within the
// /v1/map call.
const (
	// LinkMapDepth is how many hops from the start URL are followed.
	LinkMapDepth = 2
	// LinkMapPages is how many pages are read at most.
	LinkMapPages = 50
	// LinkMapConcurrency is how many pages are read at once.
	LinkMapConcurrency = 4
	// LinkMapTimeout bounds the whole discovery; what was found by then is
	// answered.
	LinkMapTimeout = 15 * time.Second
)

// LinkMapper finds a site's URLs by following its links a few hops from a
// start URL, obeying robots.txt (the same records crawls keep in the
// store): /v1/map's include_links. Only the start URL's host is followed.
type LinkMapper struct {
	fetcher      ports.Fetcher
	robots       ports.RobotsCache
	clock        ports.Clock
	ignoreRobots bool
}

// NewLinkMapper builds a mapper; ignoreRobots is the operator's switch.
func NewLinkMapper(f ports.Fetcher, robots ports.RobotsCache, clock ports.Clock, ignoreRobots bool) (*LinkMapper, error) {
	if f == nil || robots == nil || clock == nil {
		return nil, errors.New("crawl.NewLinkMapper: fetcher, robots cache and clock are required")
	}
	return &LinkMapper{fetcher: f, robots: robots, clock: clock, ignoreRobots: ignoreRobots}, nil
}

// FindLinks returns up to most distinct URLs of start's host reachable by
// links within LinkMapDepth hops, the start URL first, in the order they
// were found, leaving out those robots.txt disallows and those whose key is
// in skip (URLs already known). Pages are read up to LinkMapPages and
// LinkMapTimeout; a failure to read one page is not an error.
func (m *LinkMapper) FindLinks(ctx context.Context, start string, most int, skip func(string) bool) ([]string, error) {
	su, err := weburl.Parse(start, weburl.Rules{Field: "url"})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, LinkMapTimeout)
	defer cancel()
	rules := Rules{Norm: NewNormalizer(DefaultIgnoreParams), Scope: NewScoper(ScopeHost, su.Hostname()), MaxDepth: LinkMapDepth}
	rob := Robots{}
	if !m.ignoreRobots {
		if rob, err = LoadRobots(ctx, m.fetcher, m.robots, m.clock, su); err != nil {
			if ctx.Err() != nil {
				return nil, nil
			}
			return nil, err
		}
	}
	allowed := func(u *url.URL) bool { return m.ignoreRobots || rob.Allowed(u) }
	var (
		mu    sync.Mutex
		seen  = map[string]bool{}
		found []string
		read  int
	)
	// record keeps a URL once; it says whether the URL is new.
	record := func(u *url.URL, key string) bool {
		if seen[key] {
			return false
		}
		seen[key] = true
		if len(found) < most && (skip == nil || !skip(u.String())) {
			found = append(found, u.String())
		}
		return true
	}
	startKey := rules.Norm.Key(rules.Norm.Clean(su))
	if !allowed(su) {
		return nil, nil
	}
	record(rules.Norm.Clean(su), startKey)
	level := []*url.URL{rules.Norm.Clean(su)}
	for depth := 0; depth < LinkMapDepth && len(level) > 0; depth++ {
		var next []*url.URL
		sem := make(chan struct{}, LinkMapConcurrency)
		var wg sync.WaitGroup
		for _, u := range level {
			mu.Lock()
			full := len(found) >= most || read >= LinkMapPages
			read++
			mu.Unlock()
			if full || ctx.Err() != nil {
				break
			}
			sem <- struct{}{}
			wg.Add(1)
			go func(u *url.URL) {
				defer func() { <-sem; wg.Done() }()
				res, err := m.fetcher.Fetch(ctx, ports.FetchRequest{URL: u})
				if err != nil || res.StatusCode != 200 || !strings.Contains(res.ContentType, "html") {
					return
				}
				final := res.FinalURL
				if final == "" {
					final = u.String()
				}
				links := ExtractLinks(final, res.Body)
				if links.NoFollow {
					return
				}
				mu.Lock()
				defer mu.Unlock()
				for _, raw := range links.URLs {
					v, ok := rules.Judge(raw, depth+1)
					if !ok || v.Skip != "" || !allowed(v.URL) {
						continue
					}
					if record(v.URL, v.Key) {
						next = append(next, v.URL)
					}
				}
			}(u)
		}
		wg.Wait()
		level = next
	}
	mu.Lock()
	defer mu.Unlock()
	return append([]string(nil), found...), nil
}

// LoadRobots is the robots.txt of u's origin: the store's shared record
// while it lasts, else a fresh fetch recorded for every node.
func LoadRobots(ctx context.Context, f ports.Fetcher, cache ports.RobotsCache, clock ports.Clock, u *url.URL) (Robots, error) {
	rec, err := loadRobotsRecord(ctx, f, cache, clock, u)
	if err != nil {
		return Robots{}, err
	}
	return RobotsFrom(rec), nil
}

func loadRobotsRecord(ctx context.Context, f ports.Fetcher, cache ports.RobotsCache, clock ports.Clock, u *url.URL) (ports.RobotsRecord, error) {
	origin := u.Scheme + "://" + u.Host
	now := clock.Now()
	rec, ok, err := cache.Robots(ctx, origin, now)
	if err != nil || ok {
		return rec, err
	}
	res, ferr := f.Fetch(ctx, ports.FetchRequest{URL: RobotsURL(u), MaxBytes: 8 * RobotsMaxBytes, Accept: "text/plain,*/*;q=0.5"})
	if ctx.Err() != nil {
		return ports.RobotsRecord{}, ctx.Err()
	}
	rec = RobotsRecordOf(origin, res, ferr, now)
	return rec, cache.PutRobots(ctx, rec)
}
