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

// Google is the Google adapter.
type Google struct {
	base   string
	client *engineClient
	// renderer, when set, fetches result pages in a browser: Google serves
	// its results only to clients that run JavaScript.
	renderer ports.Renderer
}

var _ ports.SearchEngine = (*Google)(nil)

// NewGoogle builds the adapter; base "" means https://www.google.com.
func NewGoogle(base string, o ClientOptions) *Google {
	return &Google{base: baseURL(base, "https://www.google.com"), client: newEngineClient(o)}
}

// NewRenderedGoogle is NewGoogle fetching its result pages through r, a
// browser; the parser is the same.
func NewRenderedGoogle(base string, o ClientOptions, r ports.Renderer) *Google {
	g := NewGoogle(base, o)
	g.renderer = r
	return g
}

// Name implements ports.SearchEngine.
func (g *Google) Name() string { return "google" }

// googleConsent pre-answers the EU consent interstitial so results come back.
const googleConsent = "CONSENT=YES+cb.20240101-00-p0.en+FX+000; SOCS=CAESEwgDEgk0ODE3Nzk3MjQaAmVuIAEaBgiA_LyaBg"

// RequestURL builds the search URL.
func (g *Google) RequestURL(q ports.SearchQuery) string {
	v := url.Values{}
	v.Set("q", q.Q)
	v.Set("num", "10")
	v.Set("ie", "UTF-8")
	v.Set("oe", "UTF-8")
	if q.HL != "" {
		v.Set("hl", q.HL)
	}
	if q.GL != "" {
		v.Set("gl", q.GL)
	}
	if q.Loc != "" {
		v.Set("uule", UULE(q.Loc))
	}
	return g.base + "/search?" + v.Encode()
}

// UULE encodes a free-form location the way Google's uule parameter wants it.
func UULE(loc string) string {
	const key = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	b := []byte(loc)
	if len(b) >= len(key) {
		b = b[:len(key)-1]
	}
	return "w+CAIQICI" + string(key[len(b)]) + base64.StdEncoding.EncodeToString(b)
}

// Search implements ports.SearchEngine.
func (g *Google) Search(ctx context.Context, q ports.SearchQuery) (ports.SearchResults, error) {
	start := time.Now()
	var body []byte
	var status int
	var err error
	if g.renderer != nil {
		var r ports.RenderResponse
		var u *url.URL
		if u, err = url.Parse(g.RequestURL(q)); err == nil {
			r, err = g.renderer.Render(ctx, ports.RenderRequest{URL: u})
		}
		body, status = r.HTML, r.StatusCode
	} else {
		body, status, err = g.client.get(ctx, "google", g.RequestURL(q), http.Header{"Cookie": {googleConsent}})
	}
	if err != nil {
		return ports.SearchResults{}, err
	}
	res, perr := ParseGoogle(body)
	if err := outcome("google", status, perr); err != nil {
		return ports.SearchResults{}, err
	}
	res.TimeTaken = time.Since(start)
	if res.QueryDisplayed == "" {
		res.QueryDisplayed = q.Q
	}
	return res, nil
}

var googleBase, _ = url.Parse("https://www.google.com/")

// A block verdict needs the page to be the challenge itself: Google's
// /sorry/ captcha or its consent wall, whose form is the whole page. A
// result page (with results or saying there are none) is never one, even
// when it embeds a captcha widget or echoes the words of one in the query.
const (
	googleChallenge  = `#captcha-form, form[action*="/sorry/"], .g-recaptcha, form[action*="consent.google."]`
	googleResultPage = `#search, #res, #rso, #main, #topstuff`
)

// isChallenge reports a page that holds a challenge and none of the
// regions a result page has.
func isChallenge(doc *goquery.Document, challenge, resultPage string) bool {
	return doc.FindMatcher(match(resultPage)).Length() == 0 && doc.FindMatcher(match(challenge)).Length() > 0
}

// ParseGoogle reads a Google result page: the desktop JavaScript layout, the
// basic (no-JS, gbv=1) layouts and the mobile layout. Results are found by
// structure, not by generated class names: a link holding a heading (<h3>
// or role="heading") whose target leaves Google is an organic result; the
// block around it, up to where the next result starts, holds its snippet,
// displayed link, favicon, thumbnail and sitelinks.
func ParseGoogle(page []byte) (ports.SearchResults, error) {
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(page))
	if err != nil {
		return ports.SearchResults{}, err
	}
	return readGoogle(doc)
}

// readGoogle is ParseGoogle after the page is parsed.
func readGoogle(doc *goquery.Document) (ports.SearchResults, error) {
	heads := googleHeadsOf(doc.Get(0))
	res := ports.SearchResults{QueryDisplayed: heads.query()}
	res.TotalResults = parseCount(nodeText(heads.stats))
	paaBox := paaContainer(heads.paaLabel)
	paa := googlePAAScope(heads, paaBox)
	anchors, targets := googleResultAnchors(selectionOf(doc, heads.links), paa)
	if len(anchors) == 0 && isChallenge(doc, googleChallenge, googleResultPage) {
		return ports.SearchResults{}, ErrBlocked
	}
	res.Organic = resultBlocks(anchors, targets, googleBase, googleTarget)
	res.RelatedQuestions = googleQuestions(selectionOf(doc, heads.dataQ), selectionOf(doc, heads.qPairs), paaBox)
	res.RelatedSearches = googleRelated(selectionOf(doc, heads.links), anchors, paa, res.QueryDisplayed)
	return res, nil
}

// googleHeads are the single elements a Google page is read for, found in
// one walk: the first of each, in document order.
type googleHeads struct {
	textareaQ, inputQ *html.Node // textarea[name="q"], input[name="q"]
	title             *html.Node
	stats             *html.Node // #result-stats, #resultStats
	paaLabel          *html.Node // see isPAALabel
	// Every one, in document order: a[href], [data-q],
	// .related-question-pair, and the last two together.
	links, dataQ, qPairs, paaBlocks []*html.Node
}

func googleHeadsOf(root *html.Node) googleHeads {
	var h googleHeads
	eachDescendant(root, func(n *html.Node) {
		if n.Type != html.ElementNode {
			return
		}
		// The attributes read, in one pass: the first of each, as attrOf
		// reads them.
		var name, id, class string
		var hasName, hasID, hasClassAttr, href, dq bool
		for _, a := range n.Attr {
			switch a.Key {
			case "name":
				if !hasName {
					name, hasName = a.Val, true
				}
			case "id":
				if !hasID {
					id, hasID = a.Val, true
				}
			case "class":
				if !hasClassAttr {
					class, hasClassAttr = a.Val, true
				}
			case "href":
				href = true
			case "data-q":
				dq = true
			}
		}
		switch {
		case n.Data == "textarea" && h.textareaQ == nil && name == "q" && hasName:
			h.textareaQ = n
		case n.Data == "input" && h.inputQ == nil && name == "q" && hasName:
			h.inputQ = n
		case n.Data == "title" && h.title == nil:
			h.title = n
		}
		if h.stats == nil && hasID && (id == "result-stats" || id == "resultStats") {
			h.stats = n
		}
		if h.paaLabel == nil && isPAALabel(n) {
			h.paaLabel = n
		}
		if n.Data == "a" && href {
			h.links = append(h.links, n)
		}
		pair := hasClassAttr && classListHas(class, "related-question-pair")
		if dq {
			h.dataQ = append(h.dataQ, n)
		}
		if pair {
			h.qPairs = append(h.qPairs, n)
		}
		if dq || pair {
			h.paaBlocks = append(h.paaBlocks, n)
		}
	})
	return h
}

// query is the query the page shows: the search box's, else the title's.
func (h googleHeads) query() string {
	for _, n := range []*html.Node{h.textareaQ, h.inputQ} {
		if n == nil {
			continue
		}
		if v, ok := attrOf(n, "value"); ok && strings.TrimSpace(v) != "" {
			return strings.TrimSpace(v)
		}
		if t := nodeText(n); t != "" {
			return t
		}
	}
	title := nodeText(h.title)
	if i := strings.LastIndex(title, " - "); i > 0 {
		return strings.TrimSpace(title[:i])
	}
	return ""
}

// googleTarget unwraps Google's redirect links and refuses links that stay
// inside Google search itself.
func googleTarget(href string) string {
	href = strings.TrimSpace(href)
	if href == "" || strings.HasPrefix(href, "#") || strings.HasPrefix(href, "javascript:") {
		return ""
	}
	u, err := googleBase.Parse(href)
	if err != nil {
		return ""
	}
	host := strings.ToLower(u.Hostname())
	isGoogle := host == "google.com" || strings.HasSuffix(host, ".google.com") || strings.Contains(host, ".google.")
	if isGoogle && (u.Path == "/url" || u.Path == "/interstitial" || u.Path == "/aclk") {
		for _, k := range []string{"q", "url", "adurl"} {
			if t := u.Query().Get(k); strings.HasPrefix(t, "http://") || strings.HasPrefix(t, "https://") {
				return t
			}
		}
		return ""
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return ""
	}
	if isGoogle {
		for _, p := range []string{"/search", "/imgres", "/preferences", "/advanced_search", "/setprefs", "/webhp", "/sorry", "/httpservice", "/complete", "/travel", "/finance"} {
			if strings.HasPrefix(u.Path, p) {
				return ""
			}
		}
	}
	if host == "webcache.googleusercontent.com" || strings.HasPrefix(host, "translate.google.") {
		return ""
	}
	return u.String()
}

// googlePAAScope marks the "People also ask" blocks: links inside them are
// answer sources, not organic results.
func googlePAAScope(heads googleHeads, paaBox *html.Node) map[*html.Node]bool {
	scope := map[*html.Node]bool{}
	for _, n := range heads.paaBlocks {
		scope[n] = true
	}
	if paaBox != nil {
		scope[paaBox] = true
	}
	return scope
}

func insideScope(n *html.Node, scope map[*html.Node]bool) bool {
	for a := n; a != nil; a = a.Parent {
		if scope[a] {
			return true
		}
	}
	return false
}

func googleResultAnchors(links *goquery.Selection, paa map[*html.Node]bool) ([]*html.Node, map[*html.Node]string) {
	var anchors []*html.Node
	targets := map[*html.Node]string{}
	seen := map[string]bool{}
	links.Each(func(_ int, a *goquery.Selection) {
		if !holdsHeading(a.Get(0)) {
			return
		}
		n := a.Get(0)
		if insideScope(n, paa) || inCarousel(n) {
			return
		}
		href, _ := a.Attr("href")
		t := googleTarget(href)
		if t == "" || seen[t] {
			return
		}
		seen[t] = true
		anchors = append(anchors, n)
		targets[n] = t
	})
	return anchors, targets
}

// holdsHeading reports an element under n matching h3, [role="heading"]:
// Find's answer, without collecting the matches.
func holdsHeading(n *html.Node) bool {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode {
			continue
		}
		if c.Data == "h3" || attrIs(c, "role", "heading") || holdsHeading(c) {
			return true
		}
	}
	return false
}

// selectionOf is a selection of doc's nodes found by a walk of the page,
// as doc.FindNodes(nodes...) makes it, without checking each is in doc.
func selectionOf(doc *goquery.Document, nodes []*html.Node) *goquery.Selection {
	s := *doc.Selection
	s.Nodes = nodes
	return &s
}

// hasClass reports class among n's classes, split as selectors split them.
func hasClass(n *html.Node, class string) bool {
	v, ok := attrOf(n, "class")
	return ok && classListHas(v, class)
}

// classListHas reports class among the classes of a class attribute v.
func classListHas(v, class string) bool {
	if !strings.Contains(v, class) {
		return false
	}
	for c, rest := nextClass(v); c != ""; c, rest = nextClass(rest) {
		if c == class {
			return true
		}
	}
	return false
}

// nextClass is the first class of a class attribute v and what follows
// it; "" when v holds no more. Classes are split as selectors split them.
func nextClass(v string) (class, rest string) {
	i := 0
	for i < len(v) && isClassSpace(v[i]) {
		i++
	}
	j := i
	for j < len(v) && !isClassSpace(v[j]) {
		j++
	}
	return v[i:j], v[j:]
}

func isClassSpace(b byte) bool {
	return b == ' ' || b == '\t' || b == '\n' || b == '\r' || b == '\f'
}

func attrIs(n *html.Node, key, val string) bool {
	v, ok := attrOf(n, key)
	return ok && v == val
}

// attrOf is the value of n's attribute key, as goquery's Attr reads it.
func attrOf(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}

// inCarousel: cards of "Top stories", videos and similar carousels are not
// web results. It is a's closest match of g-scrolling-carousel,
// g-inner-card, g-section-with-header, [role="listitem"] g-inner-card,
// [data-init-vis] (the fourth is a case of the second), a itself included.
func inCarousel(a *html.Node) bool {
	for n := a; n != nil; n = n.Parent {
		if n.Type != html.ElementNode {
			continue
		}
		switch n.Data {
		case "g-scrolling-carousel", "g-inner-card", "g-section-with-header":
			return true
		}
		if hasAttr(n, "data-init-vis") {
			return true
		}
	}
	return false
}
