package extract

import (
	"regexp"
	"strings"
	"unicode"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Words in class and id attributes. They are generic web vocabulary, not
// names of particular sites.
var (
	unlikelyWords = []string{
		"-ad-", "ad-break", "agegate", "ai2html", "banner", "breadcrumb", "combx", "comment", "community", "consent",
		"cookie", "cover-wrap", "disqus", "extra", "footer", "gdpr", "header", "legends", "masthead", "menu", "navbar",
		"newsletter", "outbrain", "pager", "pagination", "popular", "popup", "promo", "recommend", "related", "remark",
		"replies", "rss", "share", "sharing", "shoutbox", "sidebar", "signup", "skyscraper", "social", "sponsor",
		"subscribe", "supplemental", "taboola", "toolbar", "trending", "nav-", "-nav", "navigation", "paywall", "modal",
	}
	maybeWords    = []string{"article", "body", "column", "content", "main", "shadow", "story", "entry", "post", "text", "blog", "prose"}
	positiveWords = []string{"article", "body", "content", "entry", "hentry", "h-entry", "main", "page", "post", "text", "blog", "story", "prose"}
	negativeWords = []string{
		"-ad-", "hidden", "banner", "combx", "comment", "com-", "contact", "foot", "footnote", "gdpr", "masthead", "media",
		"meta", "outbrain", "promo", "related", "scroll", "share", "shoutbox", "sidebar", "skyscraper", "sponsor",
		"shopping", "tags", "tool", "widget", "byline", "author", "dateline", "subscribe", "newsletter", "social",
		"caption", "credit", "recirc", "signup", "popular", "trending", "recommend",
	}
	boilerRoles = map[string]bool{
		"navigation": true, "complementary": true, "contentinfo": true, "banner": true, "menu": true, "menubar": true,
		"search": true, "dialog": true, "alertdialog": true, "toolbar": true,
	}
)

func containsAny(s string, words []string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// classWeight is readability's signal: +25 for content-like names, -25 for
// boilerplate-like ones, for the class and the id separately.
func classWeight(n *html.Node) int {
	w := 0
	for i, v := range []string{attr(n, "class"), attr(n, "id")} {
		if v == "" {
			continue
		}
		v = strings.ToLower(v)
		if containsAny(v, negativeWords) && (i == 0 || !titledBy(n, v)) {
			w -= 25
		}
		if containsAny(v, positiveWords) {
			w += 25
		}
	}
	return w
}

var droppedTags = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Template: true, atom.Svg: true, atom.Math: false,
	atom.Iframe: true, atom.Object: true, atom.Embed: true, atom.Canvas: true, atom.Button: true, atom.Input: true,
	atom.Select: true, atom.Textarea: true, atom.Link: true, atom.Meta: true, atom.Dialog: true, atom.Head: true,
	atom.Title: true, atom.Base: true, atom.Audio: true, atom.Video: true, atom.Source: true, atom.Track: true,
	atom.Map: true, atom.Area: true, atom.Label: true, atom.Option: true, atom.Datalist: true, atom.Output: true,
	atom.Progress: true, atom.Meter: true,
}

// streamedSegment matches the id React gives a server-streamed Suspense
// segment: the content arrives in <div hidden id="S:0"> at the end of the
// body and the page's script moves it in place of its loading fallback, so
// it is what a reader sees, not hidden.
var streamedSegment = regexp.MustCompile(`^S:[0-9a-z]{1,8}$`)

func isHidden(n *html.Node) bool {
	if hasAttr(n, "hidden") && n.DataAtom == atom.Div && streamedSegment.MatchString(attr(n, "id")) {
		return false
	}
	if hasAttr(n, "hidden") || strings.EqualFold(attr(n, "aria-hidden"), "true") {
		return true
	}
	if st := attr(n, "style"); st != "" {
		st = strings.ToLower(strings.ReplaceAll(st, " ", ""))
		if strings.Contains(st, "display:none") || strings.Contains(st, "visibility:hidden") {
			return true
		}
	}
	return false
}

// veiled: hidden by visibility alone, as pages hide themselves until their
// scripts have run (collapsed menus and dialogs use display:none or the
// hidden attribute).
func veiled(n *html.Node) bool {
	if hasAttr(n, "hidden") {
		return false
	}
	st := strings.ToLower(strings.ReplaceAll(attr(n, "style"), " ", ""))
	return strings.Contains(st, "visibility:hidden") && !strings.Contains(st, "display:none")
}

// noscriptContent is the text a <noscript> must hold to be read as content
// rather than a "please enable JavaScript" notice or a tracking pixel.
const noscriptContent = 200

// noscriptKey is how much of a <noscript>'s opening text identifies it.
const noscriptKey = 120

// prepare drops what is never content: scripts, styles, forms controls,
// embedded frames, comments and hidden elements. It returns the characters
// of visible text left (whitespace runs count as one). With unhide, an
// element hidden by its style that holds at least half of the page's text
// is kept when it is only veiled: the page hidden until its scripts have
// run, not chrome.
func prepare(root *html.Node, unhide bool) int {
	visible, total := 0, 0
	var served []*html.Node
	if unhide {
		total = textChars(root)
	}
	controlled := controlledIDs(root)
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; {
			next := c.NextSibling
			switch c.Type {
			case html.TextNode:
				k, _ := countText(c.Data)
				visible += k
			case html.CommentNode, html.DoctypeNode:
				n.RemoveChild(c)
			case html.ElementNode:
				if c.DataAtom == atom.Noscript && measure(c).chars >= noscriptContent {
					walk(c) // the page's content served to readers without scripts
					served = append(served, c)
				} else if droppedTags[c.DataAtom] || (c.DataAtom != atom.Body && c.DataAtom != atom.Html && isHidden(c) &&
					!(unhide && veiled(c) && 2*textChars(c) >= total) && !collapsedPanel(c, controlled)) {
					n.RemoveChild(c)
				} else {
					walk(c)
				}
			}
			c = next
		}
	}
	walk(root)
	if len(served) > 0 {
		// Content served both to scripts and, again, inside <noscript> is
		// read once: the copy whose opening text the page shows elsewhere
		// goes.
		page := innerText(root)
		for _, ns := range served {
			t := innerText(ns)
			if r := []rune(t); len(r) > noscriptKey {
				t = string(r[:noscriptKey])
			}
			if strings.Count(page, t) >= 2 {
				visible -= measure(ns).chars
				remove(ns)
			}
		}
	}
	return visible
}

// textChars counts the characters of text below n that a page could show:
// not scripts, styles or templates.
func textChars(n *html.Node) int {
	k := 0
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		switch {
		case c.Type == html.TextNode:
			t, _ := countText(c.Data)
			k += t
		case c.Type == html.ElementNode && !(droppedTags[c.DataAtom] && c.DataAtom != atom.Noscript):
			k += textChars(c)
		}
	}
	return k
}

// proseChars maps every element to the unlinked characters of the prose
// below it: text of <p>-like blocks when the page writes in paragraphs, all
// unlinked text when it does not (div-and-br pages). Boilerplate removal
// refuses to drop a block holding much of it, whatever the block's name says.
func proseChars(root *html.Node) map[*html.Node]int {
	para := map[*html.Node]int{}
	plain := map[*html.Node]int{}
	var walk func(*html.Node) (int, int)
	walk = func(n *html.Node) (int, int) {
		pt, tt := 0, 0
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			switch c.Type {
			case html.TextNode:
				if n.DataAtom != atom.A {
					k, _ := countText(c.Data)
					tt += k
				}
			case html.ElementNode:
				if c.DataAtom == atom.A {
					continue
				}
				if c.DataAtom == atom.P || c.DataAtom == atom.Pre || c.DataAtom == atom.Blockquote {
					st := measure(c)
					pt += st.chars - st.linkChars
					tt += st.chars - st.linkChars
					continue
				}
				a, b := walk(c)
				pt, tt = pt+a, tt+b
			}
		}
		para[n], plain[n] = pt, tt
		return pt, tt
	}
	walk(root)
	if para[root] >= 500 {
		return para
	}
	return plain
}

// removeBoilerplate drops navigation, asides, footers and (byName) blocks
// whose names say they are chrome, unless they hold a large share of the
// prose.
func removeBoilerplate(body *html.Node, byName bool) {
	pc := proseChars(body)
	total := pc[body]
	guardAt := func(n *html.Node, share float64) bool { return total > 0 && float64(pc[n]) >= share*float64(total) }
	guard := func(n *html.Node) bool { return guardAt(n, 0.3) }
	elements(body, func(n *html.Node) bool {
		switch n.DataAtom {
		case atom.Nav, atom.Aside, atom.Footer, atom.Menu:
			// Semantic chrome: kept only when it holds most of the prose.
			if !guardAt(n, 0.5) {
				remove(n)
				return false
			}
			return true
		case atom.Header:
			if !guard(n) {
				keepLeadsOnly(n)
				return false
			}
			return true
		case atom.Article, atom.Main, atom.Body, atom.Html, atom.Table, atom.Tbody, atom.Tr, atom.Td, atom.Th:
			return true
		case atom.Pre, atom.Code:
			// Code is not chrome, whatever its highlighter names its
			// tokens ("comment", "meta", "tag").
			return false
		}
		if isConsentPanel(n) {
			remove(n)
			return false
		}
		if role := strings.ToLower(attr(n, "role")); boilerRoles[role] && !guard(n) {
			remove(n)
			return false
		}
		if ci := classID(n); byName && ci != "" && namedChrome(n, ci) && !guard(n) && !holdsQuote(n) {
			remove(n)
			return false
		}
		return true
	})
}

// namedChrome: the class or id names the element as chrome. A heading
// named a "header" is the header of its section (documentation generators
// name their headings "section-header", "code-header"), not the page's,
// when what follows it is text rather than a list of links ("More
// topics" above teasers).
func namedChrome(n *html.Node, ci string) bool {
	if containsAny(ci, maybeWords) {
		return false
	}
	if id := attr(n, "id"); id != "" && titledBy(n, id) {
		// The id is its heading's text ("respond-to-review-comments"), as
		// documentation generators name sections: a title, not a role.
		ci = strings.ToLower(attr(n, "class"))
	}
	if (isHeading(n.DataAtom) || titleBox(n)) && headsText(n) {
		ci = strings.ReplaceAll(ci, "header", "")
	}
	return containsAny(ci, unlikelyWords)
}

// titleBoxMaxChars: a longer block is more than the title of an item.
const titleBoxMaxChars = 200

// titleBox: a short block, unlinked, whose text is mostly a heading (an
// item's "card header": its title and a date). A page's header holds
// links (a logo, a menu).
func titleBox(n *html.Node) bool {
	if !strings.Contains(classID(n), "header") {
		return false
	}
	h := firstHeading(n)
	if h == nil {
		return false
	}
	st := measure(n)
	return st.chars < titleBoxMaxChars && st.linkDensity() < 0.5 && 2*measure(h).chars >= st.chars
}

// titledBy: id is the slug of the element's first heading (its text in
// lower case, words joined by hyphens or underscores).
func titledBy(n *html.Node, id string) bool {
	h := firstHeading(n)
	if h == nil {
		return false
	}
	return slug(innerText(h)) == slug(id)
}

// slug is s in lower case, its runs of other characters than letters and
// digits made one hyphen, without hyphens at its ends.
func slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
		} else {
			dash = true
		}
	}
	return b.String()
}

// headsText: the element that follows a heading (or, when it is the last
// of its wrappers, the nearest of them) holds text, mostly unlinked.
func headsText(h *html.Node) bool {
	var next *html.Node
	for a, level := h, 0; next == nil && a != nil && level < 3; a, level = a.Parent, level+1 {
		next = siblingElement(a, 1)
	}
	if next == nil {
		return false
	}
	st := measure(next)
	return st.chars > 0 && st.linkDensity() < 0.5
}

// closedDialog: a dialog the page shows only when it is opened: hidden
// from assistive technology, or a "modal" (the class CSS frameworks hide
// until a script opens it).
func closedDialog(n *html.Node) bool {
	if strings.EqualFold(attr(n, "aria-hidden"), "true") {
		return true
	}
	for _, c := range strings.Fields(strings.ToLower(attr(n, "class"))) {
		if c == "modal" {
			return true
		}
	}
	return false
}

// consentWords name a cookie-consent panel in a class or id, and are what
// its text speaks of.
var consentWords = []string{"consent", "cookie", "gdpr"}

// isConsentPanel: a modal dialog, or a block named for cookie consent whose
// text speaks of cookies or consent. Its paragraphs of prose about purposes
// and partners can outweigh a listing's text, so no share of the prose
// keeps it.
func isConsentPanel(n *html.Node) bool {
	if strings.EqualFold(attr(n, "aria-modal"), "true") {
		return true
	}
	if role := strings.ToLower(attr(n, "role")); (role == "dialog" || role == "alertdialog") && closedDialog(n) {
		return true // shown only when opened, over the page
	}
	ci := classID(n)
	if ci == "" || !containsAny(ci, consentWords) || containsAny(ci, maybeWords) {
		return false
	}
	return containsAny(strings.ToLower(innerText(n)), consentWords)
}

type candidate struct {
	node  *html.Node
	score float64
}

func tagScore(a atom.Atom) float64 {
	switch a {
	case atom.Div, atom.Article, atom.Section, atom.Main:
		return 5
	case atom.Pre, atom.Td, atom.Blockquote:
		return 3
	case atom.Address, atom.Ol, atom.Ul, atom.Dl, atom.Dd, atom.Dt, atom.Li, atom.Form:
		return -3
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.Th:
		return -5
	}
	return 0
}

// isTextBlock: an element that holds prose directly: a paragraph, or a
// div/section/td whose children are all inline.
func isTextBlock(n *html.Node) bool {
	switch n.DataAtom {
	case atom.P, atom.Pre:
		return true
	case atom.Div, atom.Section, atom.Td, atom.Blockquote, atom.Article, atom.Span:
		return !hasBlockChild(n)
	}
	return false
}

// topCandidate scores text blocks and credits their ancestors, readability
// style: the element collecting most well-punctuated, unlinked prose wins.
func topCandidate(body *html.Node, stats map[*html.Node]textStats) (*html.Node, map[*html.Node]*candidate) {
	cands := map[*html.Node]*candidate{}
	var order []*candidate
	elements(body, func(n *html.Node) bool {
		if !isTextBlock(n) {
			return true
		}
		st := stats[n]
		if st.chars < 25 {
			return false
		}
		score := 1 + float64(st.commas) + min(3, float64(st.chars)/100)
		level := 0
		for a := n.Parent; a != nil && a.Type == html.ElementNode && level < 5; a = a.Parent {
			c, ok := cands[a]
			if !ok {
				c = &candidate{node: a, score: tagScore(a.DataAtom) + float64(classWeight(a))}
				cands[a] = c
				order = append(order, c)
			}
			div := 1.0
			switch {
			case level == 1:
				div = 2
			case level > 1:
				div = float64(level) * 3
			}
			c.score += score / div
			level++
		}
		return false
	})
	var best *candidate
	for _, c := range order {
		c.score *= 1 - stats[c.node].linkDensity()
		if best == nil || c.score > best.score {
			best = c
		}
	}
	if best == nil {
		return nil, cands
	}
	top := best.node
	// Climb while the parent scores nearly as well: the article is often
	// split across sibling wrappers under one parent.
	for p := top.Parent; p != nil && p.DataAtom != atom.Body && p.Type == html.ElementNode; p = p.Parent {
		pc, ok := cands[p]
		if !ok || pc.score < best.score*0.75 {
			break
		}
		top = p
	}
	return top, cands
}

// gatherSiblings adds to the top candidate its siblings that look like
// more of the same article.
func gatherSiblings(top *html.Node, cands map[*html.Node]*candidate) []*html.Node {
	if top.Parent == nil {
		return []*html.Node{top}
	}
	topScore := 0.0
	if c, ok := cands[top]; ok {
		topScore = c.score
	}
	threshold := max(10, topScore*0.2)
	topClass := attr(top, "class")
	var out []*html.Node
	for s := top.Parent.FirstChild; s != nil; s = s.NextSibling {
		if s.Type != html.ElementNode {
			continue
		}
		if s == top {
			out = append(out, s)
			continue
		}
		bonus := 0.0
		if topClass != "" && attr(s, "class") == topClass {
			bonus = topScore * 0.2
		}
		if c, ok := cands[s]; ok && c.score+bonus >= threshold {
			out = append(out, s)
			continue
		}
		if s.DataAtom == atom.P {
			st := measure(s)
			text := innerText(s)
			ld := st.linkDensity()
			if (st.chars > 80 && ld < 0.25) || (st.chars > 0 && st.chars <= 80 && ld == 0 && strings.ContainsAny(text, ".!?")) {
				out = append(out, s)
			}
		}
	}
	return out
}

// paragraphize wraps each run of inline content (text, links, emphasis,
// <br>) that sits directly in a block container beside other blocks into a
// <p>, so prose written without paragraphs is scored and kept like prose
// written with them.
func paragraphize(root *html.Node) {
	elements(root, func(n *html.Node) bool {
		switch n.DataAtom {
		case atom.Div, atom.Section, atom.Article, atom.Main, atom.Td, atom.Blockquote, atom.Body, atom.Form:
		default:
			return !(n.DataAtom == atom.P || isHeading(n.DataAtom) || n.DataAtom == atom.Pre)
		}
		if !hasBlockChild(n) {
			return true
		}
		var run []*html.Node
		flush := func(before *html.Node) {
			if len(run) == 0 {
				return
			}
			hasText := false
			for _, r := range run {
				if r.Type == html.TextNode && strings.TrimSpace(r.Data) != "" || r.Type == html.ElementNode && r.DataAtom != atom.Br {
					hasText = true
					break
				}
			}
			if hasText {
				p := &html.Node{Type: html.ElementNode, Data: "p", DataAtom: atom.P}
				n.InsertBefore(p, before)
				for _, r := range run {
					n.RemoveChild(r)
					p.AppendChild(r)
				}
			}
			run = run[:0]
		}
		for c := n.FirstChild; c != nil; {
			next := c.NextSibling
			if isBlock(c) {
				flush(c)
			} else if c.Type == html.TextNode || c.Type == html.ElementNode {
				run = append(run, c)
			}
			c = next
		}
		flush(nil)
		return true
	})
}

// holdsQuote: an embedded quotation (a post or a tweet quoted in the story)
// is part of the story even when its wrapper is named like a social widget.
func holdsQuote(n *html.Node) bool {
	q := n
	if n.DataAtom != atom.Blockquote {
		q = findFirst(n, atom.Blockquote)
	}
	if q == nil {
		return false
	}
	st := measure(q)
	return st.chars >= 40 && float64(st.chars) >= 0.5*float64(measure(n).chars)
}

// placeStreamedSegments does what a streaming page's script does once
// loaded: each segment served at the end of the body (<div hidden
// id="S:x">) takes the place of its placeholder (<template id="B:x">)
// and of the loading fallback after it (up to the "/$" comment that ends
// the boundary, or the one element after the placeholder when the page
// kept no comments). Segments whose placeholder is missing stay where
// they are.
func placeStreamedSegments(root *html.Node) {
	segments := map[string]*html.Node{}
	elements(root, func(n *html.Node) bool {
		if n.DataAtom == atom.Div && hasAttr(n, "hidden") {
			if id := attr(n, "id"); streamedSegment.MatchString(id) {
				segments[id[2:]] = n
				return false
			}
		}
		return true
	})
	if len(segments) == 0 {
		return
	}
	var place func(*html.Node)
	place = func(root *html.Node) {
		var holders []*html.Node
		elements(root, func(n *html.Node) bool {
			if n.DataAtom == atom.Template {
				if id := attr(n, "id"); strings.HasPrefix(id, "B:") && segments[id[2:]] != nil {
					holders = append(holders, n)
				}
				return false
			}
			return true
		})
		for _, t := range holders {
			seg := segments[attr(t, "id")[2:]]
			if seg == nil || t.Parent == nil || seg.Parent == nil || contains(seg, t) || contains(t.Parent, seg) {
				continue
			}
			delete(segments, attr(t, "id")[2:])
			parent := t.Parent
			// The fallback: up to the boundary's closing comment, or the
			// next element.
			end := (*html.Node)(nil)
			for s := t.NextSibling; s != nil; s = s.NextSibling {
				if s.Type == html.CommentNode && strings.TrimSpace(s.Data) == "/$" {
					end = s
					break
				}
				if s.DataAtom == atom.Template {
					break
				}
			}
			for s := t.NextSibling; s != nil; {
				next := s.NextSibling
				if end == nil && s.Type == html.ElementNode {
					parent.RemoveChild(s)
					break
				}
				parent.RemoveChild(s)
				if s == end {
					break
				}
				s = next
			}
			seg.Parent.RemoveChild(seg)
			for c := seg.FirstChild; c != nil; {
				next := c.NextSibling
				seg.RemoveChild(c)
				parent.InsertBefore(c, t)
				if c.Type == html.ElementNode {
					place(c)
				}
				c = next
			}
			parent.RemoveChild(t)
		}
	}
	place(root)
}

// contains: n is a or below it.
func contains(a, n *html.Node) bool {
	for ; n != nil; n = n.Parent {
		if n == a {
			return true
		}
	}
	return false
}

// keepLeadsOnly removes a header, all but the standfirst when it heads an
// article: its paragraphs of prose (isLead) stay, the title, byline,
// dates and links go.
func keepLeadsOnly(n *html.Node) {
	inArticle := false
	for a := n.Parent; a != nil; a = a.Parent {
		if a.DataAtom == atom.Article || isMainMarked(a) {
			inArticle = true
			break
		}
	}
	var leads []*html.Node
	if inArticle {
		elements(n, func(e *html.Node) bool {
			if isLead(e) {
				leads = append(leads, e)
				return false
			}
			return true
		})
	}
	if len(leads) == 0 {
		remove(n)
		return
	}
	for _, l := range leads {
		l.Parent.RemoveChild(l)
	}
	for c := n.FirstChild; c != nil; c = n.FirstChild {
		n.RemoveChild(c)
	}
	for _, l := range leads {
		n.AppendChild(l)
	}
}

// controlledIDs are the ids of the elements another element says it
// opens and closes (aria-controls): an accordion's panels, a tab's.
func controlledIDs(root *html.Node) map[string]bool {
	ids := map[string]bool{}
	elements(root, func(n *html.Node) bool {
		for _, id := range strings.Fields(attr(n, "aria-controls")) {
			ids[id] = true
		}
		return true
	})
	return ids
}

// panelMaxLinks: a collapsed block with more of its text in links is a
// menu, not a panel of content.
const panelMaxLinks = 0.5

// collapsedPanel: a hidden block that a reader opens in place, an
// accordion's or a tab's panel (a region or tab panel, or the block a
// toggle controls), holding text rather than links. Its text is the
// page's, shown on a click.
func collapsedPanel(n *html.Node, controlled map[string]bool) bool {
	switch n.DataAtom {
	case atom.Nav, atom.Aside, atom.Footer, atom.Header, atom.Form, atom.Dialog, atom.Ul, atom.Ol:
		return false
	}
	role := strings.ToLower(attr(n, "role"))
	if role != "region" && role != "tabpanel" && !controlled[attr(n, "id")] {
		return false
	}
	st := measure(n)
	return st.chars > 0 && st.linkDensity() < panelMaxLinks
}
