package serp

import (
	"bytes"
	"context"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html"

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

// ParseDuckDuckGo reads a page of DuckDuckGo's HTML endpoint. The page is
// walked once for what it is read for (the search box, the results, the
// related searches), and each result once for its parts: the selectors
// say what is read, the walks are what it costs beside parsing the page.
func ParseDuckDuckGo(page []byte) (ports.SearchResults, error) {
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(page))
	if err != nil {
		return ports.SearchResults{}, err
	}
	return readDuckDuckGo(doc)
}

// readDuckDuckGo is ParseDuckDuckGo after the page is parsed.
func readDuckDuckGo(doc *goquery.Document) (ports.SearchResults, error) {
	res := ports.SearchResults{}
	var box *html.Node
	var results, related []*html.Node
	// inRelated: under .related-searches or .js-related-searches.
	eachElementUnder(doc.Get(0), false, func(n *html.Node, inRelated bool) bool {
		var result, relatedBox bool
		class, _ := attrOf(n, "class")
		for c, rest := nextClass(class); c != ""; c, rest = nextClass(rest) {
			switch c {
			case "result", "web-result":
				result = true
			case "related-searches", "js-related-searches":
				relatedBox = true
			}
		}
		switch n.Data {
		case "input": // input[name="q"]
			if box == nil && attrIs(n, "name", "q") {
				box = n
			}
		case "div": // div.result, div.web-result
			if result {
				results = append(results, n)
			}
		case "a": // .related-searches a[href], .js-related-searches a[href]
			if inRelated && hasAttr(n, "href") {
				related = append(related, n)
			}
		}
		return inRelated || relatedBox
	})
	if box != nil {
		if v, ok := attrOf(box, "value"); ok {
			res.QueryDisplayed = strings.TrimSpace(v)
		}
	}
	seen := map[string]bool{}
	for _, n := range results {
		if hasClass(n, "result--ad") || hasClass(n, "result--no-result") {
			continue
		}
		p := ddgPartsOf(n)
		if p.ad {
			continue
		}
		a := p.title
		if a == nil {
			a = p.h2Link
		}
		href := ""
		if a != nil {
			href, _ = attrOf(a, "href")
		}
		link := ddgTarget(href)
		if link == "" || seen[link] {
			continue
		}
		seen[link] = true
		r := ports.OrganicResult{Position: len(res.Organic) + 1, Title: nodeText(a), Link: link}
		r.DisplayedLink = nodeText(p.url)
		if r.DisplayedLink == "" {
			r.DisplayedLink = displayFromLink(link)
		}
		r.Snippet = nodeText(p.snippet)
		r.Source = hostOf(link)
		if p.icon != nil {
			r.Favicon = imgSrc(ddgBase, selectionOf(doc, []*html.Node{p.icon}))
		}
		if r.Favicon == "" {
			if u, err := url.Parse(link); err == nil {
				r.Favicon = u.Scheme + "://" + u.Host + "/favicon.ico"
			}
		}
		if p.image != nil {
			r.Thumbnail = imgSrc(ddgBase, selectionOf(doc, []*html.Node{p.image}))
		}
		if res.Organic == nil {
			res.Organic = make([]ports.OrganicResult, 0, len(results))
		}
		res.Organic = append(res.Organic, r)
	}
	if len(res.Organic) == 0 && isChallenge(doc, ddgChallenge, ddgResultPage) {
		return ports.SearchResults{}, ErrBlocked
	}
	for _, n := range related {
		href, _ := attrOf(n, "href")
		if q := nodeText(n); q != "" {
			res.RelatedSearches = append(res.RelatedSearches, ports.RelatedSearch{Query: q, Link: absolute(ddgBase, href)})
		}
	}
	return res, nil
}

// ddgParts are the first of each part of a result, in document order.
type ddgParts struct {
	ad                                       bool       // .badge--ad
	title, h2Link, url, snippet, icon, image *html.Node // a.result__a, h2 a[href], .result__url, .result__snippet, img.result__icon__img, .result__image img or img.result__image
}

// ddgUnder is what a node of a result is under: an h2, .result__image
// (up to the document, as descendant selectors match).
type ddgUnder struct{ h2, image bool }

func ddgPartsOf(result *html.Node) ddgParts {
	var p ddgParts
	top := ddgUnder{h2: result.Data == "h2" || underTag(result, "h2"), image: hasClass(result, "result__image") || under(result, "result__image")}
	eachElementUnder(result, top, func(n *html.Node, u ddgUnder) ddgUnder {
		var title, icon, image bool
		class, _ := attrOf(n, "class")
		for c, rest := nextClass(class); c != ""; c, rest = nextClass(rest) {
			switch c {
			case "badge--ad":
				p.ad = true
			case "result__url":
				if p.url == nil {
					p.url = n
				}
			case "result__snippet":
				if p.snippet == nil {
					p.snippet = n
				}
			case "result__a":
				title = true
			case "result__icon__img":
				icon = true
			case "result__image":
				image = true
			}
		}
		switch n.Data {
		case "a":
			if p.title == nil && title {
				p.title = n
			}
			if p.h2Link == nil && u.h2 && hasAttr(n, "href") {
				p.h2Link = n
			}
		case "img":
			if p.icon == nil && icon {
				p.icon = n
			}
			if p.image == nil && (image || u.image) {
				p.image = n
			}
		}
		return ddgUnder{h2: u.h2 || n.Data == "h2", image: u.image || image}
	})
	return p
}

// under reports an ancestor of n (up to the document, as a descendant
// selector matches) with the class.
func under(n *html.Node, class string) bool {
	for a := n.Parent; a != nil; a = a.Parent {
		if a.Type == html.ElementNode && hasClass(a, class) {
			return true
		}
	}
	return false
}

// underTag reports an ancestor of n that is a tag element.
func underTag(n *html.Node, tag string) bool {
	for a := n.Parent; a != nil; a = a.Parent {
		if a.Type == html.ElementNode && a.Data == tag {
			return true
		}
	}
	return false
}
