package extract

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// A listing page (a category of products, a page of search results, a
// board of jobs or stories) has its main content in a run of like items:
// sibling elements of one tag and class, each with a title (a heading or a
// link of some words) and more than a bare link (a summary, a price, a
// date). Filters, sorting controls and pagination are runs too, but of
// short labels and single links, which do not count as items.
const (
	// itemMinChars is the least text of an item: a filter's label or a
	// page number is shorter.
	itemMinChars = 25
	// itemTitleChars is the least text of a link that titles an item.
	itemTitleChars = 12
	// itemOwnChars is the least text an item has beside its links (a
	// summary, a price, a date) when it has no heading and its link is
	// short: a menu's entries are bare links.
	itemOwnChars = 15
	// itemLongTitle: a link this long titles an item on its own (a board
	// of stories whose rows are their titles).
	itemLongTitle = 40
	// runMinItems is the fewest items of a run.
	runMinItems = 3
	// listingRatio: a run holding this many times the text of the chosen
	// block is the page's content, not something beside it.
	listingRatio = 2
	// listingBelowRatio: the same, for a run above the chosen block.
	listingBelowRatio = 1.25
	// listingMaxProse is the most prose of a chosen block that a run of
	// items can take over: more is an article's body, whose related
	// stories are a run too.
	listingMaxProse = 1200
)

// itemRun is the element whose children hold the largest run of items
// under root, with the text of the run; nil when there is none.
func itemRun(root *html.Node, stats map[*html.Node]textStats) (*html.Node, int) {
	var best *html.Node
	bestChars := 0
	type group struct {
		key          string
		atom         atom.Atom
		all, n, text int
	}
	elements(root, func(n *html.Node) bool {
		var groups []group
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			key := attr(c, "class")
			i := 0
			for i < len(groups) && (groups[i].atom != c.DataAtom || groups[i].key != key) {
				i++
			}
			if i == len(groups) {
				groups = append(groups, group{key: key, atom: c.DataAtom})
			}
			groups[i].all++
			if isItem(c, stats) {
				groups[i].n++
				groups[i].text += stats[c].chars
			}
		}
		for _, g := range groups {
			if g.n >= runMinItems && 2*g.n >= g.all && g.text > bestChars {
				best, bestChars = n, g.text
			}
		}
		return true
	})
	return best, bestChars
}

// isItem: an element with a title and more than a bare link.
func isItem(n *html.Node, stats map[*html.Node]textStats) bool {
	st := stats[n]
	if st.chars < itemMinChars {
		return false
	}
	heading, title := false, 0
	elements(n, func(e *html.Node) bool {
		switch {
		case isHeading(e.DataAtom) && stats[e].chars > 0:
			heading = true
		case e.DataAtom == atom.A:
			title = max(title, stats[e].chars)
			return false
		}
		return !heading
	})
	own := st.chars - st.linkChars
	return heading || title >= itemLongTitle || title >= itemTitleChars && own >= itemOwnChars
}

// withItems adds to the chosen parts the run of items of a listing page
// when the run holds much more text than they do and they are not an
// article's body; the run replaces them when they are no prose at all (a
// comparison table, a filter panel). It says whether the parts are a
// listing, to be cleaned as items are.
func withItems(root *html.Node, parts []*html.Node, stats map[*html.Node]textStats, pc map[*html.Node]int) ([]*html.Node, bool) {
	if marksArticle(root) {
		return parts, false
	}
	run, runChars := itemRun(root, stats)
	if run == nil {
		return parts, false
	}
	chars, prose, inside := 0, 0, false
	for _, p := range parts {
		inside = inside || contains(p, run)
		chars += stats[p].chars
		prose += pc[p]
	}
	if inside {
		// The chosen block is the listing when the run is most of it and
		// it holds little prose: its items' titles are links, which the
		// cleaning of an article's body would drop.
		return parts, 2*runChars >= chars && 3*prose < chars
	}
	ratio := float64(listingRatio)
	if precedes(run, parts[0]) {
		// Above the chosen block: the blurb is below the items (a
		// category's closing words, the site's own), where an article's
		// run of other stories follows its body.
		ratio = listingBelowRatio
	}
	if prose >= listingMaxProse || float64(runChars) < ratio*float64(chars) {
		return parts, false
	}
	if 2*prose < chars {
		return []*html.Node{run}, true
	}
	var others []*html.Node
	for _, p := range parts {
		if !contains(run, p) {
			others = append(others, p)
		}
	}
	// In the page's order: the blurb above the items, or below them.
	for i, p := range others {
		if precedes(run, p) {
			return append(others[:i:i], append([]*html.Node{run}, others[i:]...)...), true
		}
	}
	return append(others, run), true
}

// marksArticle: the page marks an element as an article in its
// structured data (schema.org's Article, NewsArticle...): a short story
// above a run of other stories is still the story.
func marksArticle(root *html.Node) bool {
	found := false
	elements(root, func(n *html.Node) bool {
		found = found || strings.Contains(strings.ToLower(attr(n, "itemtype")), "article")
		return !found
	})
	return found
}

// precedes: a comes before b in the document.
func precedes(a, b *html.Node) bool {
	path := func(n *html.Node) []*html.Node {
		var p []*html.Node
		for ; n != nil; n = n.Parent {
			p = append([]*html.Node{n}, p...)
		}
		return p
	}
	pa, pb := path(a), path(b)
	i := 0
	for i < len(pa) && i < len(pb) && pa[i] == pb[i] {
		i++
	}
	if i == len(pa) || i == len(pb) || i == 0 {
		return false
	}
	for s := pa[i]; s != nil; s = s.NextSibling {
		if s == pb[i] {
			return true
		}
	}
	return false
}

// linkHeadings moves a link that wraps a whole card (a heading over a
// summary, as listings write their items) onto the card's heading: the
// Markdown of a link cannot hold a heading, so the item's title would be
// written as a line of bold text inside one long link.
//
// A card without a heading (an image, a title line and a summary set in
// blocks) has the link moved onto its first line of text, its title: a
// link holding blocks is written as one long link broken by escaped line
// ends.
func linkHeadings(root *html.Node) {
	var cards, titles []*html.Node
	elements(root, func(n *html.Node) bool {
		if n.DataAtom != atom.A {
			return true
		}
		if h := cardTitle(n); h != nil {
			cards, titles = append(cards, n), append(titles, h)
		}
		return false
	})
	for i, a := range cards {
		h := titles[i]
		link := &html.Node{Type: html.ElementNode, Data: "a", DataAtom: atom.A, Attr: append([]html.Attribute(nil), a.Attr...)}
		for c := h.FirstChild; c != nil; {
			next := c.NextSibling
			h.RemoveChild(c)
			link.AppendChild(c)
			c = next
		}
		h.AppendChild(link)
		for c := a.FirstChild; c != nil; {
			next := c.NextSibling
			a.RemoveChild(c)
			a.Parent.InsertBefore(c, a)
			c = next
		}
		remove(a)
	}
}

// cardTitle is the element of a link holding blocks that titles it: its
// first heading, else its first block of text alone (no blocks in it);
// nil for a link without blocks.
func cardTitle(a *html.Node) *html.Node {
	if h := firstHeading(a); h != nil {
		return h
	}
	if !hasBlockChild(a) {
		return nil
	}
	var t *html.Node
	elements(a, func(e *html.Node) bool {
		if t != nil {
			return false
		}
		if e != a && isBlock(e) && !hasBlockChild(e) && strings.TrimSpace(innerText(e)) != "" {
			t = e
			return false
		}
		return true
	})
	return t
}

func firstHeading(n *html.Node) *html.Node {
	var h *html.Node
	elements(n, func(e *html.Node) bool {
		if h == nil && isHeading(e.DataAtom) {
			h = e
		}
		return h == nil
	})
	return h
}
