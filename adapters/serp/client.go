// Package search holds the search-engine adapters: Google, Bing and
// DuckDuckGo. Each splits fetching (request, headers, consent cookies, proxy,
// configurable base URL) from a pure parser of the result page, so parsers
// are tested on saved real pages.
package serp

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/ports"
)

// ErrBlocked marks a block page: a captcha or anomaly challenge served in
// place of results.
var ErrBlocked = errors.New("the engine answered with a block page")

// ClientOptions configure how engines are reached.
type ClientOptions struct {
	Timeout   time.Duration // per search; default 15 s
	MaxBytes  int64         // default 8 MiB
	Proxy     *url.URL      // TRAWL_SEARCH_PROXY
	UserAgent string
}

// engineClient fetches result pages. Engine base URLs are operator
// configuration, not user input, so they may point anywhere (a test server
// on loopback included); the address guard of the page fetcher does not apply.
type engineClient struct {
	http *http.Client
	opts ClientOptions
}

const desktopUA = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"

func newEngineClient(o ClientOptions) *engineClient {
	if o.Timeout <= 0 {
		o.Timeout = 15 * time.Second
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = 8 << 20
	}
	if o.UserAgent == "" {
		o.UserAgent = desktopUA
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 16
	if o.Proxy != nil {
		tr.Proxy = http.ProxyURL(o.Proxy)
	} else {
		tr.Proxy = nil
	}
	return &engineClient{opts: o, http: &http.Client{Transport: tr, Timeout: o.Timeout}}
}

// get fetches a result page. Non-2xx answers are returned with their body:
// engines serve block pages with 429 or 503.
func (c *engineClient) get(ctx context.Context, engine, rawURL string, header http.Header) ([]byte, int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return nil, 0, failure.Wrap("serp.get", err)
	}
	req.Header.Set("User-Agent", c.opts.UserAgent)
	req.Header.Set("Accept", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8")
	req.Header.Set("Accept-Language", "en-US,en;q=0.9")
	for k, v := range header {
		req.Header[k] = v
	}
	res, err := c.http.Do(req)
	if err != nil {
		return nil, 0, unreachable(engine, err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, c.opts.MaxBytes+1))
	if err != nil {
		return nil, res.StatusCode, unreachable(engine, err)
	}
	if int64(len(body)) > c.opts.MaxBytes {
		return nil, res.StatusCode, &ports.SearchError{Reason: ports.SearchTooLarge, Engine: engine}
	}
	return body, res.StatusCode, nil
}

func unreachable(engine string, err error) error {
	reason := ports.SearchUnreachable
	if errors.Is(err, context.DeadlineExceeded) || os.IsTimeout(err) {
		reason = ports.SearchTimeout
	}
	return &ports.SearchError{Reason: reason, Engine: engine, Err: err}
}

// outcome turns a parse into the adapter's answer: a block page or an
// engine error is a typed reason, never empty results.
func outcome(engine string, status int, err error) error {
	switch {
	case errors.Is(err, ErrBlocked):
		return &ports.SearchError{Reason: ports.SearchBlocked, Engine: engine, Err: err}
	case err != nil:
		return &ports.SearchError{Reason: ports.SearchUnreadable, Engine: engine, Err: err}
	case status >= 400:
		return &ports.SearchError{Reason: ports.SearchStatus, Engine: engine, Status: status}
	}
	return nil
}

func baseURL(raw, def string) string {
	if strings.TrimSpace(raw) == "" {
		return def
	}
	return strings.TrimRight(raw, "/")
}
