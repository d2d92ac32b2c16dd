// Package cache holds the page cache's rules: when a fetched response may
// be served again instead of fetching the page, when a stale one is
// revalidated with the site, what identifies a response (the key), who may
// be served it, and how the cache stays within its size. It keeps the
// fetched response (status, final URL, content type, validators, body,
// engine), not an output format, so one entry serves scrape, content and
// every format built from the page.
//
// A call says what it accepts with a Request in its context (With); the
// page use cases fetch through Cache.Fetch and Cache.Render and read back
// what happened with Track.
package cache

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/ports"
)

// Bounds of max_age.
const (
	// MaxMaxAge is the oldest response a caller may accept: 30 days.
	MaxMaxAge = 30 * 24 * time.Hour
	// DefaultMaxBytes bounds the cache when the operator says nothing: 1 GiB.
	DefaultMaxBytes int64 = 1 << 30
	// touchEvery is how stale an entry's last use may be before a hit
	// writes it again: least-recently-used order to the minute, and a hit
	// on a busy entry reads without writing.
	touchEvery = time.Minute
)

// FieldMaxAge and FieldStore name the request fields.
const (
	FieldMaxAge = "max_age"
	FieldStore  = "store"
)

// ParseMaxAge checks a max_age in seconds: 0 (always fetch) to 30 days.
func ParseMaxAge(seconds int64, field string) (time.Duration, error) {
	if field == "" {
		field = FieldMaxAge
	}
	if seconds < 0 || seconds > int64(MaxMaxAge/time.Second) {
		return 0, failure.Invalidf("cache.ParseMaxAge", field, "The %s must be a number of seconds from 0 to %d (30 days).", field, int64(MaxMaxAge/time.Second))
	}
	return time.Duration(seconds) * time.Second, nil
}

// ParseMaxAgeText reads max_age from a query string value; empty is 0.
func ParseMaxAgeText(s, field string) (time.Duration, error) {
	if field == "" {
		field = FieldMaxAge
	}
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, failure.Invalidf("cache.ParseMaxAge", field, "The %s must be a number of seconds from 0 to %d (30 days).", field, int64(MaxMaxAge/time.Second))
	}
	return ParseMaxAge(n, field)
}

// Request is what a call accepts from the cache.
type Request struct {
	// MaxAge is the oldest cached response the caller takes; 0 fetches.
	MaxAge time.Duration
	// NoStore keeps this call's responses out of the cache (store: false).
	NoStore bool
	// Account is the calling account.
	Account int64
	// Private is set when the fetch carries the caller's own headers or
	// cookies: its responses are kept for this account alone.
	Private bool
	// Fingerprint identifies the options that change what the site sends
	// (locale, device, headers, cookies...); "" when there are none. Two
	// calls share entries only when their fingerprints are equal.
	Fingerprint string
}

type requestKey struct{}

// With returns ctx carrying what the call accepts from the cache.
func With(ctx context.Context, r Request) context.Context {
	return context.WithValue(ctx, requestKey{}, r)
}

// RequestOf is the cache request ctx carries; the zero Request (fetch,
// store, shared) when there is none.
func RequestOf(ctx context.Context) Request {
	r, _ := ctx.Value(requestKey{}).(Request)
	return r
}

// Info is what an answer says about the cache: whether it came from it,
// when the site last vouched for the response, and how old that is.
type Info struct {
	Hit bool
	// Revalidated is set when a stale entry was confirmed by the site (a
	// 304): the body is the cached one, its age starts again.
	Revalidated bool
	// CachedAt is when the response was fetched or last confirmed; zero
	// when it is not in the cache (store: false, or not kept).
	CachedAt time.Time
	Age      time.Duration
	// Body identifies the kept body the answer was read from (a hit) or
	// stored as (a miss); empty when none was kept. Work derived from a
	// body alone (extraction) may be remembered under it.
	Body string
}

// Object is the cache object of an answer: {hit, cached_at, age}.
type Object struct {
	Hit         bool    `json:"hit"`
	CachedAt    *string `json:"cached_at"`
	Age         int64   `json:"age"`
	Revalidated bool    `json:"revalidated,omitempty"`
}

// Object renders the info as the answer's cache object; age in seconds.
func (i Info) Object() *Object {
	o := &Object{Hit: i.Hit, Revalidated: i.Revalidated, Age: int64(i.Age / time.Second)}
	if !i.CachedAt.IsZero() {
		s := i.CachedAt.UTC().Format(time.RFC3339)
		o.CachedAt = &s
	}
	return o
}

// Header is the X-Trawl-Cache value of the info: hit or miss.
func (i Info) Header() string {
	if i.Hit {
		return "hit"
	}
	return "miss"
}

// HeaderName is the response header that says hit or miss.
const HeaderName = "X-Trawl-Cache"

// HeaderOf is the X-Trawl-Cache value of an answer made of the given cache
// objects (results and pages): hit when every one came from the cache,
// miss when one did not, "" when none says anything of the cache (nil
// objects are skipped).
func HeaderOf(objs ...*Object) string {
	state := ""
	for _, o := range objs {
		switch {
		case o == nil:
		case !o.Hit:
			return "miss"
		default:
			state = "hit"
		}
	}
	return state
}

// Tracker collects what the cache did for one page.
type Tracker struct {
	mu   sync.Mutex
	info Info
	seen bool
}

type trackerKey struct{}

// Track returns ctx with a new tracker: the cached fetches and renders
// made with it report to it, the last one winning (a page read again in a
// browser is answered by the render).
func Track(ctx context.Context) (context.Context, *Tracker) {
	t := &Tracker{}
	return context.WithValue(ctx, trackerKey{}, t), t
}

func note(ctx context.Context, i Info) {
	if t, ok := ctx.Value(trackerKey{}).(*Tracker); ok {
		t.mu.Lock()
		t.info, t.seen = i, true
		t.mu.Unlock()
	}
}

// Noted is what the cache did so far for the page ctx is tracking; ok is
// false when nothing went through it.
func Noted(ctx context.Context) (Info, bool) {
	t, _ := ctx.Value(trackerKey{}).(*Tracker)
	return t.Info()
}

// Info is what the cache did for the page; ok is false when nothing went
// through it.
func (t *Tracker) Info() (Info, bool) {
	if t == nil {
		return Info{}, false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.info, t.seen
}

// Said is what an answer says of the cache: what it did for the page, nil
// when nothing went through it or nothing tracked it.
func (t *Tracker) Said() *Info {
	if i, ok := t.Info(); ok {
		return &i
	}
	return nil
}

// Track starts following what c does for one page or search: Track(ctx)
// on a server that keeps a cache, ctx and a nil tracker on one that keeps
// none (c nil), whose answers then say nothing of a cache.
func (c *Cache) Track(ctx context.Context) (context.Context, *Tracker) {
	if c == nil {
		return ctx, nil
	}
	return Track(ctx)
}

// Decision is what to do with a cached entry.
type Decision uint8

// Decisions.
const (
	Fetch      Decision = iota // fetch the page
	Serve                      // answer from the entry, the site untouched
	Revalidate                 // ask the site whether the entry still holds
)

// Decide is the rule: with max_age 0 every call fetches (the spec's
// behaviour); an entry no older than max_age is served; an older one is
// revalidated when the site gave it a validator, fetched otherwise.
func Decide(maxAge time.Duration, found bool, age time.Duration, hasValidator bool) Decision {
	switch {
	case maxAge <= 0 || !found:
		return Fetch
	case age <= maxAge:
		return Serve
	case hasValidator:
		return Revalidate
	}
	return Fetch
}

// Cacheable reports whether a response is kept: a whole 2xx answer (a
// partial 206 is not the page), within the cache's bound.
func Cacheable(status int, size, maxBytes int64) bool {
	return status >= 200 && status <= 299 && status != 206 && size <= maxBytes/4
}

// Engines the key distinguishes.
const (
	EngineHTTP    = "http"
	EngineBrowser = "browser"
)

// Key identifies a response: the URL in its normalised form (the crawl's
// comparison rules), the engine, the options fingerprint and, for a
// private fetch, the account. Anonymous fetches share their entries
// across accounts; private ones never do.
func Key(urlKey, engine string, r Request) string {
	scope := "shared"
	if r.Private {
		scope = "account:" + strconv.FormatInt(r.Account, 10)
	}
	h := sha256.Sum256([]byte(strings.Join([]string{"v1", urlKey, engine, r.Fingerprint, scope}, "\x00")))
	return hex.EncodeToString(h[:])
}

// Cache serves fetches and renders from kept responses.
type Cache struct {
	index    ports.CacheIndex
	bodies   ports.BlobObjects
	clock    ports.Clock
	maxBytes int64
	urlKey   func(*url.URL) string
}

// New builds the cache. urlKey is the URL comparison rule (the crawl's
// normaliser); maxBytes bounds what the bodies add up to (> 0).
func New(index ports.CacheIndex, bodies ports.BlobObjects, clock ports.Clock, maxBytes int64, urlKey func(*url.URL) string) (*Cache, error) {
	if index == nil || bodies == nil || clock == nil || urlKey == nil || maxBytes <= 0 {
		return nil, errors.New("cache.New: index, bodies, clock, a URL key and a positive size bound are required")
	}
	return &Cache{index: index, bodies: bodies, clock: clock, maxBytes: maxBytes, urlKey: urlKey}, nil
}

// MaxBytes is the bound the cache keeps to.
func (c *Cache) MaxBytes() int64 { return c.maxBytes }

// lookup reads the entry and its body; an entry whose body is gone is no
// entry. Store failures are misses: the cache never fails a call.
func (c *Cache) lookup(ctx context.Context, key string) (ports.CacheEntry, []byte, bool) {
	e, found, err := c.index.CacheEntry(ctx, key)
	if err != nil || !found {
		return ports.CacheEntry{}, nil, false
	}
	body, err := c.bodies.Get(ctx, e.BodyKey)
	if err != nil {
		return ports.CacheEntry{}, nil, false
	}
	return e, body, true
}

// hit answers from an entry and marks it used.
func (c *Cache) hit(ctx context.Context, e ports.CacheEntry, now time.Time, revalidated bool) Info {
	switch {
	case revalidated:
		e.StoredAt = now
		_ = c.index.TouchCacheEntry(ctx, e.Key, now, now)
	case now.Sub(e.UsedAt) >= touchEvery:
		_ = c.index.TouchCacheEntry(ctx, e.Key, now, time.Time{})
	}
	return Info{Hit: true, Revalidated: revalidated, CachedAt: e.StoredAt, Age: max(now.Sub(e.StoredAt), 0), Body: e.BodyKey}
}

// store keeps a fetched response, drops the body it replaces and evicts
// past the bound. It reports when the response was stored and under which
// body key (zero when it was not). Failures leave the call's answer as it is.
func (c *Cache) store(ctx context.Context, e ports.CacheEntry, body []byte) (time.Time, string) {
	e.Size = int64(len(body)) + int64(len(e.URL)+len(e.FinalURL)+len(e.ContentType)+len(e.ETag)+len(e.LastModified))
	if !Cacheable(e.StatusCode, e.Size, c.maxBytes) {
		return time.Time{}, ""
	}
	ctx = context.WithoutCancel(ctx)
	e.BodyKey = fmt.Sprintf("cache/%s/%s-%d", e.Key[:2], e.Key, e.StoredAt.UnixNano())
	if err := c.bodies.Put(ctx, e.BodyKey, body, e.ContentType); err != nil {
		return time.Time{}, ""
	}
	old, replaced, err := c.index.PutCacheEntry(ctx, e)
	if err != nil {
		_ = c.bodies.Delete(ctx, e.BodyKey)
		return time.Time{}, ""
	}
	if replaced && old.BodyKey != e.BodyKey {
		_ = c.bodies.Delete(ctx, old.BodyKey)
	}
	c.evict(ctx)
	return e.StoredAt, e.BodyKey
}

// evict drops least recently used entries past the bound, bodies included.
func (c *Cache) evict(ctx context.Context) {
	gone, err := c.index.EvictCacheEntries(ctx, c.maxBytes)
	if err != nil {
		return
	}
	for _, e := range gone {
		_ = c.bodies.Delete(ctx, e.BodyKey)
	}
}

// Fetch fetches r.URL through the cache, as the context's Request allows.
func (c *Cache) Fetch(ctx context.Context, f ports.Fetcher, r ports.FetchRequest) (ports.FetchResponse, error) {
	q := RequestOf(ctx)
	key := Key(c.urlKey(r.URL)+"\x00"+r.Accept, EngineHTTP, q)
	now := c.clock.Now()
	var (
		e    ports.CacheEntry
		body []byte
		ok   bool
	)
	if q.MaxAge > 0 {
		e, body, ok = c.lookup(ctx, key)
	}
	fromEntry := func() ports.FetchResponse {
		return ports.FetchResponse{URL: r.URL.String(), FinalURL: e.FinalURL, StatusCode: e.StatusCode, ContentType: e.ContentType, Charset: e.Charset, Body: body}
	}
	switch Decide(q.MaxAge, ok, now.Sub(e.StoredAt), e.ETag != "" || e.LastModified != "") {
	case Serve:
		note(ctx, c.hit(ctx, e, now, false))
		return fromEntry(), nil
	case Revalidate:
		r.IfNoneMatch, r.IfModifiedSince = e.ETag, e.LastModified
	}
	res, err := f.Fetch(ctx, r)
	if err != nil {
		return res, err
	}
	now = c.clock.Now()
	if res.StatusCode == 304 && ok && (r.IfNoneMatch != "" || r.IfModifiedSince != "") {
		note(ctx, c.hit(ctx, e, now, true))
		return fromEntry(), nil
	}
	info := Info{}
	if q.keeps() {
		info.CachedAt, info.Body = c.store(ctx, ports.CacheEntry{
			Key: key, URL: r.URL.String(), FinalURL: res.FinalURL, Engine: EngineHTTP, StatusCode: res.StatusCode,
			ContentType: res.ContentType, Charset: res.Charset, ETag: res.ETag, LastModified: res.LastModified,
			StoredAt: now, UsedAt: now,
		}, res.Body)
	}
	note(ctx, info)
	return res, nil
}

// Render renders a page through the cache, as the context's Request
// allows. A rendered page has no validators: a stale one is rendered again.
func (c *Cache) Render(ctx context.Context, rd ports.Renderer, r ports.RenderRequest) (ports.RenderResponse, error) {
	q := RequestOf(ctx)
	key := Key(c.urlKey(r.URL), EngineBrowser, q)
	now := c.clock.Now()
	if q.MaxAge > 0 {
		if e, body, ok := c.lookup(ctx, key); ok && Decide(q.MaxAge, true, now.Sub(e.StoredAt), false) == Serve {
			note(ctx, c.hit(ctx, e, now, false))
			return ports.RenderResponse{URL: r.URL.String(), FinalURL: e.FinalURL, StatusCode: e.StatusCode, HTML: body}, nil
		}
	}
	res, err := rd.Render(ctx, r)
	if err != nil {
		return res, err
	}
	info := Info{}
	if q.keeps() {
		now = c.clock.Now()
		info.CachedAt, info.Body = c.store(ctx, ports.CacheEntry{
			Key: key, URL: r.URL.String(), FinalURL: res.FinalURL, Engine: EngineBrowser, StatusCode: res.StatusCode,
			ContentType: "text/html", Charset: "utf-8", StoredAt: now, UsedAt: now,
		}, res.HTML)
	}
	note(ctx, info)
	return res, nil
}

// keeps reports whether this call's response is written to the cache: only
// when the caller takes cached answers (max_age above 0) and did not say
// store: false. A call that always fetches pays for no write, so the
// default read costs what it did before the cache.
func (q Request) keeps() bool { return q.MaxAge > 0 && !q.NoStore }

// ForAccount returns ctx whose cache request names the calling account:
// the use case sets it from the call, whatever the delivery said.
func ForAccount(ctx context.Context, account int64) context.Context {
	q := RequestOf(ctx)
	q.Account = account
	return With(ctx, q)
}
