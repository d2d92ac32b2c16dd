package serp

import (
	"bytes"
	"context"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/trawlhq/trawl/ports"
)

// DuckDuckGo is the DuckDuckGo adapter, on its HTML (no-JS) endpoint.
type DuckDuckGo struct {
	base   string
	client *engineClient
}

var _ ports.SearchEngine = (*DuckDuckGo)(nil)

// NewDuckDuckGo builds the adapter; base "" means https://html.duckduckgo.com.
func NewDuckDuckGo(base string, o ClientOptions) *DuckDuckGo {
	return &DuckDuckGo{base: baseURL(base, "https://html.duckduckgo.com"), client: newEngineClient(o)}
}

// Name implements ports.SearchEngine.
func (d *DuckDuckGo) Name() string { return "duckduckgo" }

// RequestURL builds the search URL: kl is DuckDuckGo's region (country-language).
func (d *DuckDuckGo) RequestURL(q ports.SearchQuery) string {
	v := url.Values{}
	query := q.Q
	if q.Loc != "" {
		query += " " + q.Loc // DuckDuckGo has no location parameter; the place goes into the query
	}
	v.Set("q", query)
	if q.GL != "" {
		lang := q.HL
		if lang == "" {
			lang = "en"
		}
		v.Set("kl", strings.ToLower(q.GL)+"-"+strings.ToLower(lang))
	}
	return d.base + "/html/?" + v.Encode()
}

// Search implements ports.SearchEngine.
func (d *DuckDuckGo) Search(ctx context.Context, q ports.SearchQuery) (ports.SearchResults, error) {
	start := time.Now()
	body, status, err := d.client.get(ctx, "duckduckgo", d.RequestURL(q), http.Header{"Referer": {d.base + "/"}})
	if err != nil {
		return ports.SearchResults{}, err
	}
	res, perr := ParseDuckDuckGo(body)
	if err := outcome("duckduckgo", status, perr); err != nil {
		return ports.SearchResults{}, err
	}
	res.TimeTaken = time.Since(start)
	if res.QueryDisplayed == "" {
		res.QueryDisplayed = q.Q
	}
	return res, nil
}

var ddgBase, _ = url.Parse("https://duckduckgo.com/")

// DuckDuckGo's anomaly challenge, on a page without a result list.
const (
	ddgChallenge  = `form#challenge-form, .anomaly-modal__modal, .anomaly-modal__title`
	ddgResultPage = `div.result, div.web-result, .no-results`
)

// ddgTarget unwraps DuckDuckGo's redirect links (//duckduckgo.com/l/?uddg=...).
func ddgTarget(href string) string {
	u, err := ddgBase.Parse(strings.TrimSpace(href))
	if err != nil {
		return ""
	}
	if strings.HasSuffix(strings.ToLower(u.Hostname()), "duckduckgo.com") {
		if t := u.Query().Get("uddg"); strings.HasPrefix(t, "http://") || strings.HasPrefix(t, "https://") {
			return t
		}
		return ""
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return ""
	}
	return u.String()
}

// ParseDuckDuckGo reads a page of DuckDuckGo's HTML endpoint.
func ParseDuckDuckGo(page []byte) (ports.SearchResults, error) {
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(page))
	if err != nil {
		return ports.SearchResults{}, err
	}
	res := ports.SearchResults{}
	if v, ok := doc.FindMatcher(match(`input[name="q"]`)).First().Attr("value"); ok {
		res.QueryDisplayed = strings.TrimSpace(v)
	}
	seen := map[string]bool{}
	doc.FindMatcher(match("div.result, div.web-result")).Each(func(_ int, s *goquery.Selection) {
		if s.HasClass("result--ad") || s.FindMatcher(match(".badge--ad")).Length() > 0 || s.HasClass("result--no-result") {
			return
		}
		a := s.FindMatcher(match("a.result__a")).First()
		if a.Length() == 0 {
			a = s.FindMatcher(match("h2 a[href]")).First()
		}
		href, _ := a.Attr("href")
		link := ddgTarget(href)
		if link == "" || seen[link] {
			return
		}
		seen[link] = true
		r := ports.OrganicResult{Position: len(res.Organic) + 1, Title: text(a), Link: link}
		r.DisplayedLink = text(s.FindMatcher(match(".result__url")).First())
		if r.DisplayedLink == "" {
			r.DisplayedLink = displayFromLink(link)
		}
		r.Snippet = text(s.FindMatcher(match(".result__snippet")).First())
		r.Source = hostOf(link)
		if img := s.FindMatcher(match("img.result__icon__img")).First(); img.Length() > 0 {
			r.Favicon = imgSrc(ddgBase, img)
		}
		if r.Favicon == "" {
			if u, err := url.Parse(link); err == nil {
				r.Favicon = u.Scheme + "://" + u.Host + "/favicon.ico"
			}
		}
		if img := s.FindMatcher(match(".result__image img, img.result__image")).First(); img.Length() > 0 {
			r.Thumbnail = imgSrc(ddgBase, img)
		}
		res.Organic = append(res.Organic, r)
	})
	if len(res.Organic) == 0 && isChallenge(doc, ddgChallenge, ddgResultPage) {
		return ports.SearchResults{}, ErrBlocked
	}
	doc.FindMatcher(match(".related-searches a[href], .js-related-searches a[href]")).Each(func(_ int, s *goquery.Selection) {
		href, _ := s.Attr("href")
		if q := text(s); q != "" {
			res.RelatedSearches = append(res.RelatedSearches, ports.RelatedSearch{Query: q, Link: absolute(ddgBase, href)})
		}
	})
	return res, nil
}
