package extract

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// mainContentOf finds the main content of a parsed document (which it
// changes) and returns it detached in a new <div>, or nil, with the
// characters of visible text of the whole page.
//
// A lenient pass is the rescue of a page where the strict one found
// nothing: a wrapper hidden until the page's scripts run is read when it
// holds most of the page's text, and only semantic chrome (navigation,
// asides, footers, their roles) is removed, not blocks named like chrome.
func mainContentOf(doc *html.Node, pageTitle string, lenient bool) (*html.Node, int) {
	body := findFirst(doc, atom.Body)
	if body == nil {
		body = doc
	}
	title := strings.ToLower(pageTitle)
	placeStreamedSegments(body)
	visible := prepare(body, lenient)
	paragraphize(body)
	removeBoilerplate(body, true)
	stats := statsOf(body)
	pc := proseChars(body)
	top, cands := topCandidate(body, stats)
	var parts []*html.Node
	if top == nil {
		// No block of prose at all: a page of items or links. What is left
		// of the page's main element, or of its body, is the candidate.
		top = findMainMarked(body)
		if top == nil || top == body {
			parts = childElements(body)
		} else {
			parts = []*html.Node{top}
		}
	} else {
		top = widen(body, wholeTable(top), stats, pc)
		parts = gatherSiblings(top, cands)
	}
	if len(parts) == 0 {
		return nil, visible
	}
	// A page of several parts (a service page's sections, a product's
	// description and specifications, a listing's rows) has its content
	// spread over the main element: when the chosen block holds less than
	// half of it, and the rest is not a list of links to elsewhere (related
	// stories) or the chosen block is not an article's prose, the main
	// element (or the body) is the content.
	broad := false
	if whole := broadRoot(body, top); whole != nil {
		prose := 0
		var chosen textStats
		for _, p := range parts {
			prose += pc[p]
			st := stats[p]
			chosen.chars += st.chars
			chosen.linkChars += st.linkChars
		}
		all := stats[whole]
		extra := textStats{chars: all.chars - chosen.chars, linkChars: all.linkChars - chosen.linkChars}
		if float64(chosen.chars) < broadShare*float64(all.chars) &&
			(extra.linkDensity() < broadExtraLinks || float64(prose) < broadProse*float64(chosen.chars) ||
				chosen.chars < blurbMaxChars && float64(all.chars) >= blurbRatio*float64(chosen.chars)) {
			parts, broad = childElements(whole), true
		}
		if !broad {
			parts, broad = withItems(whole, parts, stats, pc)
		}
	}
	content := &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div}
	if !broad {
		// The standfirst above the body's wrapper is the article's too.
		for _, l := range leadsBefore(parts[0], body) {
			l.Parent.RemoveChild(l)
			content.AppendChild(l)
		}
	}
	for _, p := range parts {
		p.Parent.RemoveChild(p)
		content.AppendChild(p)
	}
	dropTitleHeading(content, title)
	if broad {
		cleanGently(content)
		dropPullQuotes(content)
		return content, visible
	}
	before := measure(content).chars
	spare := cloneTree(content)
	dropCommentThreads(content)
	cleanConditionally(content)
	dropBylines(content)
	dropPullQuotes(content)
	dropRepeats(content)
	dropEndMatter(content)
	dropOrphanHeadings(content)
	if after := measure(content).chars; before >= itemsMinChars && after < before/4 {
		// The cleaning took most of the content away: it is made of links
		// (a listing, a collection, a catalogue), which prose rules drop.
		// Keep the items; drop only what is chrome on any page.
		cleanGently(spare)
		if measure(spare).chars > after {
			content = spare
		}
	}
	return content, visible
}

const (
	// broadShare: a chosen block with less than this share of the main
	// element's text is one part of a page of several.
	broadShare = 0.5
	// broadExtraLinks: the rest of the main element with this link density
	// or more is links to elsewhere (related stories, teasers).
	broadExtraLinks = 0.25
	// broadProse: a chosen block whose text is this share of paragraph
	// prose or more is an article's body.
	broadProse = 0.85
	// blurbMaxChars: a chosen block shorter than this, in a main element
	// holding blurbRatio times its text, is the blurb above a page of
	// items (a category's intro over its listing), not an article.
	blurbMaxChars = 250
	blurbRatio    = 5
)

// broadRoot is the element the page marks as its main content around top,
// or the body.
func broadRoot(body, top *html.Node) *html.Node {
	for a := top; a != nil && a != body; a = a.Parent {
		if isMainMarked(a) {
			return a
		}
	}
	return body
}

// itemsMinChars is the least text a candidate must have for its items to
// be kept when the prose rules would drop most of it.
const itemsMinChars = 200

func findMainMarked(root *html.Node) *html.Node {
	var found *html.Node
	elements(root, func(n *html.Node) bool {
		if found != nil {
			return false
		}
		if isMainMarked(n) {
			found = n
			return false
		}
		return true
	})
	return found
}

func childElements(n *html.Node) []*html.Node {
	var out []*html.Node
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode {
			out = append(out, c)
		}
	}
	return out
}

// cloneTree deep-copies a subtree.
func cloneTree(n *html.Node) *html.Node {
	c := &html.Node{Type: n.Type, DataAtom: n.DataAtom, Data: n.Data, Namespace: n.Namespace, Attr: append([]html.Attribute(nil), n.Attr...)}
	for k := n.FirstChild; k != nil; k = k.NextSibling {
		c.AppendChild(cloneTree(k))
	}
	return c
}

// dropTitleHeading removes a leading h1 (the page title shown again above
// the article): the content is the article's body.
func dropTitleHeading(content *html.Node, title string) {
	elements(content, func(n *html.Node) bool {
		if n.DataAtom == atom.H1 {
			t := strings.ToLower(innerText(n))
			if t != "" && (title == "" || strings.Contains(title, t) || strings.Contains(t, title)) {
				remove(n)
			}
			return false
		}
		return true
	})
}

// widenRatio: an ancestor holding this many times the prose of the chosen
// block holds more of the same content, split across sibling wrappers.
const widenRatio = 1.6

// widenArticleRatio: the element the page marks as an article needs only
// to hold this much more prose than the chosen block, its other sections.
const widenArticleRatio = 1.15

// widen climbs from the best-scoring block to the ancestor that holds the
// page's prose when the block holds only part of it: an article split into
// one wrapper per section or paragraph, a lead apart from the rest, a forum
// thread of posts, a listing of items. It never climbs out of the element
// the page marks as its main content, nor to a link-dense ancestor.
func widen(body, top *html.Node, stats map[*html.Node]textStats, pc map[*html.Node]int) *html.Node {
	inMain := false
	for a := top; a != nil && a != body; a = a.Parent {
		if isMainMarked(a) {
			inMain = true
		}
	}
	cur := top
	for {
		if inMain && isMainMarked(cur) {
			return cur
		}
		var next *html.Node
		for a := cur.Parent; a != nil && a != body && a.Type == html.ElementNode; a = a.Parent {
			ratio := widenRatio
			if a.DataAtom == atom.Article {
				ratio = widenArticleRatio
			}
			if float64(pc[a]) >= ratio*float64(max(pc[cur], 1)) {
				next = a
				break
			}
			if inMain && isMainMarked(a) {
				break
			}
		}
		if next != nil && stats[next].linkDensity() <= 0.5 {
			cur = next
			continue
		}
		// One item among its like: the content is the run of items
		// (product tiles, listing rows, posts), links though they are.
		if items := itemsParent(cur, body, inMain, stats); items != nil && pc[cur] < itemsMaxProse {
			cur = items
			continue
		}
		return cur
	}
}

// wholeTable is the table of n when n is a part of its rows (a body,
// head or row), else n: a table's rows are written as a table only with it.
func wholeTable(n *html.Node) *html.Node {
	t := n
	for t.Parent != nil && (t.DataAtom == atom.Tbody || t.DataAtom == atom.Thead || t.DataAtom == atom.Tfoot || t.DataAtom == atom.Tr) {
		t = t.Parent
	}
	if t.DataAtom == atom.Table {
		return t
	}
	return n
}

// itemsMaxProse: a block with this much prose is an article's body, not an
// item in a list.
const itemsMaxProse = 300

// itemsParent: when n or one of its near ancestors is one of at least
// three like siblings (same tag and class) that together hold much more
// text than n, their parent; else nil.
func itemsParent(n, body *html.Node, inMain bool, stats map[*html.Node]textStats) *html.Node {
	own := stats[n].chars
	a := n
	for level := 0; level < 4 && a.Parent != nil && a.Parent != body; level++ {
		if inMain && isMainMarked(a) {
			return nil
		}
		like := 0
		for s := a.Parent.FirstChild; s != nil; s = s.NextSibling {
			if s.Type == html.ElementNode && s.DataAtom == a.DataAtom && a.DataAtom != atom.P && attr(s, "class") == attr(a, "class") {
				like++
			}
		}
		if like >= 3 && float64(stats[a.Parent].chars) >= widenRatio*float64(max(own, 1)) {
			return a.Parent
		}
		a = a.Parent
	}
	return nil
}

// isMainMarked: the page says this element is its main content.
func isMainMarked(n *html.Node) bool {
	return n.DataAtom == atom.Main || strings.EqualFold(attr(n, "role"), "main")
}

// wholePage is the last resort for a page where no block reads as main
// content: its body (or main element) without chrome, cleaned gently;
// lenient as mainContentOf.
func wholePage(doc *html.Node, lenient bool) *html.Node {
	body := findFirst(doc, atom.Body)
	if body == nil {
		return nil
	}
	prepare(body, lenient)
	paragraphize(body)
	removeBoilerplate(body, true)
	root := findMainMarked(body)
	if root == nil {
		root = body
	}
	content := &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div}
	for _, c := range childElements(root) {
		root.RemoveChild(c)
		content.AppendChild(c)
	}
	cleanGently(content)
	return content
}

// Leads: a standfirst or lead paragraph set above the article's body, in
// the article's header rather than its body wrapper.
const (
	leadMinChars = 50
	leadMaxChars = 1500
	// leadLevels: how far above the body's first block the lead is looked
	// for, when no article or main element bounds the search.
	leadLevels = 3
	// leadSkipChars: a shorter block without a sentence between the lead
	// and the body (a byline, a date, a photo) is passed over.
	leadSkipChars = 120
	// leadBoxChars: a wrapper with less text than this above the body is
	// the article's header, searched for its lead.
	leadBoxChars = 800
	// leadStandfirstBoxChars: a wrapper with less text than this, most
	// of it (leadStandfirstShare) in at most leadStandfirstParas lead
	// paragraphs, is the header of an article with a long standfirst.
	leadStandfirstBoxChars = 2000
	leadStandfirstShare    = 0.6
	leadStandfirstParas    = 3
	// leadLongWords: a paragraph this long is prose however it ends.
	leadLongWords = 20
)

// isLead: a paragraph of prose, unlinked, not named like furniture.
func isLead(n *html.Node) bool {
	if n.DataAtom != atom.P && !(n.DataAtom == atom.Div && !hasBlockChild(n)) {
		return false
	}
	st := measure(n)
	if st.chars < leadMinChars || st.chars > leadMaxChars || st.linkDensity() > 0.2 || classWeight(n) < 0 || isCaption(n) {
		return false
	}
	// A caption, a credit or a byline is set in a figure or a block named
	// like one, or below the image it describes.
	for a, level := n, 0; a != nil && a.Type == html.ElementNode && level < 4; a, level = a.Parent, level+1 {
		if a.DataAtom == atom.Figure || a.DataAtom == atom.Figcaption || isCaption(a) || classWeight(a) < 0 {
			return false
		}
	}
	if besideImage(n) {
		return false
	}
	// Prose: sentences, ending as one does.
	t := innerText(n)
	words := len(strings.Fields(t))
	return (words >= 8 && strings.ContainsAny(lastRune(t), ".!?…\"”’»)") || words >= leadLongWords) && !isBoilerLine(t)
}

func lastRune(s string) string {
	r := []rune(s)
	if len(r) == 0 {
		return ""
	}
	return string(r[len(r)-1])
}

// leadsBefore finds the lead paragraphs above the body's first block:
// walking back from it, level by level up to the article (or main)
// element, past short furniture, the paragraphs of prose it meets.
func leadsBefore(first, body *html.Node) []*html.Node {
	var leads []*html.Node
	cur := first
	for level := 0; cur != nil && cur != body && cur.Parent != nil && cur.Parent != body; level++ {
		bounded := false
		for a := cur; a != nil && a != body; a = a.Parent {
			if a.DataAtom == atom.Article || isMainMarked(a) {
				bounded = true
				break
			}
		}
		if !bounded && level >= leadLevels {
			break
		}
		if cur.DataAtom == atom.Article || isMainMarked(cur) {
			break
		}
		for s := cur.PrevSibling; s != nil; s = s.PrevSibling {
			switch s.Type {
			case html.TextNode:
				if strings.TrimSpace(s.Data) != "" {
					return leads
				}
				continue
			case html.ElementNode:
			default:
				continue
			}
			if isLead(s) {
				leads = append([]*html.Node{s}, leads...)
				continue
			}
			st := measure(s)
			if st.chars < leadSkipChars && !strings.ContainsAny(innerText(s), ".!?") || isHeading(s.DataAtom) && st.chars < 300 {
				continue
			}
			if st.chars < leadStandfirstBoxChars && (s.DataAtom == atom.Div || s.DataAtom == atom.Header || s.DataAtom == atom.Hgroup || s.DataAtom == atom.Section) {
				var inner []*html.Node
				elements(s, func(n *html.Node) bool {
					if isLead(n) {
						inner = append(inner, n)
						return false
					}
					return true
				})
				// A larger header is one only around a long standfirst
				// (a paragraph or a few), the most of its text; more
				// paragraphs are a row of teasers.
				leadChars := 0
				for _, l := range inner {
					leadChars += measure(l).chars
				}
				if len(inner) > 0 && (st.chars < leadBoxChars ||
					len(inner) <= leadStandfirstParas && float64(leadChars) >= leadStandfirstShare*float64(st.chars)) {
					leads = append(inner, leads...)
					continue
				}
			}
			return leads
		}
		cur = cur.Parent
	}
	return leads
}

// besideImage: the element before n is an image (or a wrapper of one with
// no text), as a caption sits below its photo.
func besideImage(n *html.Node) bool {
	image := func(s *html.Node) bool {
		if s == nil {
			return false
		}
		if s.DataAtom == atom.Img || s.DataAtom == atom.Picture || s.DataAtom == atom.Figure {
			return true
		}
		return (findFirst(s, atom.Img) != nil || findFirst(s, atom.Picture) != nil) && measure(s).chars == 0
	}
	prev := n.PrevSibling
	for prev != nil && prev.Type != html.ElementNode {
		prev = prev.PrevSibling
	}
	return image(prev)
}
