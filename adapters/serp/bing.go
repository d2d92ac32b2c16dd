package serp

import (
	"bytes"
	"context"
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html"

	"github.com/trawlhq/trawl/ports"
)

// Bing is the Bing adapter.
type Bing struct {
	base   string
	client *engineClient
}

var _ ports.SearchEngine = (*Bing)(nil)

// NewBing builds the adapter; base "" means https://www.bing.com.
func NewBing(base string, o ClientOptions) *Bing {
	return &Bing{base: baseURL(base, "https://www.bing.com"), client: newEngineClient(o)}
}

// Name implements ports.SearchEngine.
func (b *Bing) Name() string { return "bing" }

// RequestURL builds the search URL. Bing takes a market (hl-gl), not a
// free-form location; loc is added to the query's locale hint only.
func (b *Bing) RequestURL(q ports.SearchQuery) string {
	v := url.Values{}
	v.Set("q", q.Q)
	v.Set("count", "10")
	if q.HL != "" {
		v.Set("setlang", q.HL)
	}
	if q.GL != "" {
		v.Set("cc", strings.ToUpper(q.GL))
	}
	if q.HL != "" && q.GL != "" {
		v.Set("mkt", strings.ToLower(q.HL)+"-"+strings.ToUpper(q.GL))
	}
	if q.Loc != "" {
		v.Set("location", q.Loc)
	}
	return b.base + "/search?" + v.Encode()
}

// Search implements ports.SearchEngine.
func (b *Bing) Search(ctx context.Context, q ports.SearchQuery) (ports.SearchResults, error) {
	start := time.Now()
	body, status, err := b.client.get(ctx, "bing", b.RequestURL(q), http.Header{"Cookie": {"SRCHHPGUSR=ADLT=DEMOTE&NRSLT=10; _EDGE_CD=m=en-us"}})
	if err != nil {
		return ports.SearchResults{}, err
	}
	res, perr := ParseBing(body)
	if err := outcome("bing", status, perr); err != nil {
		return ports.SearchResults{}, err
	}
	res.TimeTaken = time.Since(start)
	if res.QueryDisplayed == "" {
		res.QueryDisplayed = q.Q
	}
	return res, nil
}

var bingBase, _ = url.Parse("https://www.bing.com/")

// Bing's challenges: its own captcha, the /challengepage form and the
// Turnstile widget, on a page without a result list.
const (
	bingChallenge  = `#b_captcha, form[action*="challengepage"], iframe[src*="challenges.cloudflare.com"], .cf-turnstile`
	bingResultPage = `#b_results, li.b_no`
)

// bingTarget decodes Bing's click-tracking links (/ck/a?...&u=a1<base64url>)
// and refuses links back into Bing.
func bingTarget(href string) string {
	u, err := bingBase.Parse(strings.TrimSpace(href))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return ""
	}
	host := strings.ToLower(u.Hostname())
	if strings.HasSuffix(host, "bing.com") {
		if strings.HasPrefix(u.Path, "/ck/a") {
			enc := strings.TrimPrefix(u.Query().Get("u"), "a1")
			raw, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(enc, "="))
			if err != nil {
				raw, err = base64.StdEncoding.DecodeString(enc)
			}
			if err == nil && (bytes.HasPrefix(raw, []byte("http://")) || bytes.HasPrefix(raw, []byte("https://"))) {
				return string(raw)
			}
			return ""
		}
		for _, p := range []string{"/search", "/images/search", "/videos/search", "/news/search", "/maps", "/aclick", "/aclk", "/fd/", "/shop"} {
			if strings.HasPrefix(u.Path, p) {
				return ""
			}
		}
	}
	if strings.HasSuffix(host, "microsofttranslator.com") {
		return ""
	}
	return u.String()
}

// ParseBing reads a Bing result page: li.b_algo results (classic and the
// current layout with its site-name header), "People also ask" items
// (data-query), related searches and the result count.
func ParseBing(page []byte) (ports.SearchResults, error) {
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(page))
	if err != nil {
		return ports.SearchResults{}, err
	}
	return readBing(doc)
}

// readBing is ParseBing after the page is parsed.
func readBing(doc *goquery.Document) (ports.SearchResults, error) {
	res := ports.SearchResults{}
	h := bingHeadsOf(doc.Get(0))
	if h.box != nil {
		if v, ok := attrOf(h.box, "value"); ok {
			res.QueryDisplayed = strings.TrimSpace(v)
		}
	}
	res.TotalResults = parseCount(nodeText(h.count))
	pos := 0
	seen := map[string]bool{}
	items := selectionOf(doc, h.algo)
	if items.Length() == 0 {
		items = doc.FindMatcher(match("#b_results > li")).FilterFunction(func(_ int, s *goquery.Selection) bool { return s.FindMatcher(match("h2 a[href]")).Length() > 0 })
	}
	items.Each(func(_ int, li *goquery.Selection) {
		a := li.FindMatcher(match("h2 a[href]")).First()
		href, _ := a.Attr("href")
		link := bingTarget(href)
		if link == "" || seen[link] {
			return
		}
		seen[link] = true
		pos++
		res.Organic = append(res.Organic, bingResult(pos, li, a, link))
	})
	if len(res.Organic) == 0 && isChallenge(doc, bingChallenge, bingResultPage) {
		return ports.SearchResults{}, ErrBlocked
	}
	qseen := map[string]bool{}
	selectionOf(doc, h.questions).Each(func(_ int, s *goquery.Selection) {
		q, _ := s.Attr("data-query")
		if q == "" {
			q = text(s.FindMatcher(match(".b_expansion_text")).First())
		}
		if q == "" || qseen[q] {
			return
		}
		qseen[q] = true
		ans := text(s.FindMatcher(match(".rqnaContent, .df_qntext, .b_expansion_content, [data-tag=\"RelatedQnA.Answer\"]")).First())
		ans = strings.TrimSpace(strings.TrimPrefix(ans, q))
		if ans == "" {
			ans = answerOf(s.Get(0), q)
		}
		ans = strings.TrimSpace(strings.TrimSuffix(ans, "See all results for this question"))
		if len(ans) < 20 {
			ans = ""
		}
		res.RelatedQuestions = append(res.RelatedQuestions, ports.RelatedQuestion{Question: q, Answer: ans})
	})
	rseen := map[string]bool{}
	selectionOf(doc, h.related).Each(func(_ int, s *goquery.Selection) {
		q := text(s)
		href, _ := s.Attr("href")
		link := absolute(bingBase, href)
		if q == "" || link == "" || rseen[strings.ToLower(q)] {
			return
		}
		rseen[strings.ToLower(q)] = true
		rs := ports.RelatedSearch{Query: q, Link: link}
		if img := s.FindMatcher(match("img")).First(); img.Length() > 0 {
			rs.Image = imgSrc(bingBase, img)
		}
		res.RelatedSearches = append(res.RelatedSearches, rs)
	})
	return res, nil
}

// bingHeads is what a Bing page is read for, found in one walk, in
// document order.
type bingHeads struct {
	box, count *html.Node // the first #sb_form_q or input[name="q"]; the first .sb_count
	// Every one: li.b_algo; [data-tag="RelatedQnA.Item"] or
	// .df_alsoAsk[data-query]; a[href] under .b_rs, #brsv3 or .b_rrsr.
	algo, questions, related []*html.Node
}

func bingHeadsOf(root *html.Node) bingHeads {
	var h bingHeads
	// inRelated: under .b_rs, .b_rrsr or #brsv3.
	eachElementUnder(root, false, func(n *html.Node, inRelated bool) bool {
		var count, algo, alsoAsk, relatedBox bool
		class, _ := attrOf(n, "class")
		for c, rest := nextClass(class); c != ""; c, rest = nextClass(rest) {
			switch c {
			case "sb_count":
				count = true
			case "b_algo":
				algo = true
			case "df_alsoAsk":
				alsoAsk = true
			case "b_rs", "b_rrsr":
				relatedBox = true
			}
		}
		id, _ := attrOf(n, "id")
		if h.box == nil && (id == "sb_form_q" || n.Data == "input" && attrIs(n, "name", "q")) {
			h.box = n
		}
		if h.count == nil && count {
			h.count = n
		}
		if n.Data == "li" && algo {
			h.algo = append(h.algo, n)
		}
		if attrIs(n, "data-tag", "RelatedQnA.Item") || alsoAsk && hasAttr(n, "data-query") {
			h.questions = append(h.questions, n)
		}
		if n.Data == "a" && inRelated && hasAttr(n, "href") {
			h.related = append(h.related, n)
		}
		return inRelated || relatedBox || id == "brsv3"
	})
	return h
}

// bingParts are what a result is read for, found in one walk of it, in
// document order, as the selectors in the comments find them (a
// descendant selector looks up to the document).
type bingParts struct {
	cite, header, source, tilk, favicon *html.Node // cite; .b_tpcn, .b_attribution; .tptt; a.tilk; .b_tpcn img, .wr_fav img, .b_favicon img
	// The first match of each snippet selector, in the order they are
	// tried: .b_caption p; p.b_lineclamp1 to 4; .b_algoSlug; .b_caption;
	// .b_snippet.
	snippets [5]*html.Node
	// Every img, with whether it is a favicon's or a heading's (it or an
	// ancestor matches .wr_fav, .b_favicon, h2); every a[href] under
	// .b_deep, .b_vlist2col, .b_algoSitelinks or .b_sitelinks.
	imgs      []*html.Node
	iconImg   map[*html.Node]bool
	sitelinks []*html.Node
}

// bingUnder is what a node of a result is under.
type bingUnder struct{ tpcn, favBox, h2, caption, sitelinks bool }

// bingClasses reads the classes of n that a result is read for.
type bingClasses struct {
	tpcn, attribution, tptt, tilk, favBox, caption, lineclamp, slug, snippet, sitelinks bool
}

func bingClassesOf(n *html.Node) bingClasses {
	var c bingClasses
	class, _ := attrOf(n, "class")
	for k, rest := nextClass(class); k != ""; k, rest = nextClass(rest) {
		switch k {
		case "b_tpcn":
			c.tpcn = true
		case "b_attribution":
			c.attribution = true
		case "tptt":
			c.tptt = true
		case "tilk":
			c.tilk = true
		case "wr_fav", "b_favicon":
			c.favBox = true
		case "b_caption":
			c.caption = true
		case "b_lineclamp1", "b_lineclamp2", "b_lineclamp3", "b_lineclamp4":
			c.lineclamp = true
		case "b_algoSlug":
			c.slug = true
		case "b_snippet":
			c.snippet = true
		case "b_deep", "b_vlist2col", "b_algoSitelinks", "b_sitelinks":
			c.sitelinks = true
		}
	}
	return c
}

// under is u for the children of n.
func (u bingUnder) under(n *html.Node, c bingClasses) bingUnder {
	return bingUnder{
		tpcn:      u.tpcn || c.tpcn,
		favBox:    u.favBox || c.favBox,
		h2:        u.h2 || n.Data == "h2",
		caption:   u.caption || c.caption,
		sitelinks: u.sitelinks || c.sitelinks,
	}
}

func bingPartsOf(li *html.Node) bingParts {
	p := bingParts{iconImg: map[*html.Node]bool{}}
	// What li's descendants are under, from li and its ancestors.
	var chain []*html.Node
	for a := li; a != nil; a = a.Parent {
		chain = append(chain, a)
	}
	var u bingUnder
	for i := len(chain) - 1; i >= 0; i-- {
		if chain[i].Type == html.ElementNode {
			u = u.under(chain[i], bingClassesOf(chain[i]))
		}
	}
	eachElementUnder(li, u, func(n *html.Node, u bingUnder) bingUnder {
		c := bingClassesOf(n)
		first := func(slot **html.Node, ok bool) {
			if *slot == nil && ok {
				*slot = n
			}
		}
		first(&p.cite, n.Data == "cite")
		first(&p.header, c.tpcn || c.attribution)
		first(&p.source, c.tptt)
		first(&p.tilk, n.Data == "a" && c.tilk)
		first(&p.favicon, n.Data == "img" && (u.tpcn || u.favBox))
		first(&p.snippets[0], n.Data == "p" && u.caption)
		first(&p.snippets[1], n.Data == "p" && c.lineclamp)
		first(&p.snippets[2], c.slug)
		first(&p.snippets[3], c.caption)
		first(&p.snippets[4], c.snippet)
		if n.Data == "img" {
			p.imgs = append(p.imgs, n)
			if c.favBox || u.favBox || u.h2 {
				p.iconImg[n] = true
			}
		}
		if n.Data == "a" && u.sitelinks && hasAttr(n, "href") {
			p.sitelinks = append(p.sitelinks, n)
		}
		return u.under(n, c)
	})
	return p
}

func bingResult(pos int, li, a *goquery.Selection, link string) ports.OrganicResult {
	p := bingPartsOf(li.Get(0))
	r := ports.OrganicResult{Position: pos, Title: text(a), Link: link, DisplayedLink: nodeText(p.cite)}
	if r.DisplayedLink == "" {
		r.DisplayedLink = displayFromLink(link)
	}
	r.Source = nodeText(p.source)
	if r.Source == "" && p.tilk != nil {
		if v, ok := attrOf(p.tilk, "aria-label"); ok {
			r.Source = strings.TrimSpace(v)
		}
	}
	if r.Source == "" {
		r.Source = hostOf(link)
	}
	if p.favicon != nil {
		r.Favicon = imgNodeSrc(bingBase, p.favicon)
	}
	if r.Favicon == "" {
		if u, err := url.Parse(link); err == nil {
			r.Favicon = u.Scheme + "://" + u.Host + "/favicon.ico"
		}
	}
	for _, n := range p.snippets {
		if t := nodeText(n); t != "" {
			r.Snippet = t
			break
		}
	}
	for _, img := range p.imgs {
		if p.header != nil && contains(p.header, img) || p.iconImg[img] {
			continue
		}
		if r.Thumbnail = imgNodeSrc(bingBase, img); r.Thumbnail != "" {
			break
		}
	}
	seen := map[string]bool{link: true}
	for _, n := range p.sitelinks {
		href, _ := attrOf(n, "href")
		t := bingTarget(href)
		title := nodeText(n)
		if t == "" || title == "" || seen[t] {
			continue
		}
		seen[t] = true
		r.Sitelinks = append(r.Sitelinks, ports.Sitelink{Title: title, Link: t})
	}
	return r
}
