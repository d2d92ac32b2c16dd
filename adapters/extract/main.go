package extract

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// mainContentOf finds the main content of a parsed document (which it
// changes) and returns it detached in a new <div>, or nil, with the
// characters of visible text of the whole page.
func mainContentOf(doc *html.Node, pageTitle string) (*html.Node, int) {
	body := findFirst(doc, atom.Body)
	if body == nil {
		body = doc
	}
	title := strings.ToLower(pageTitle)
	visible := prepare(body)
	paragraphize(body)
	removeBoilerplate(body)
	top, cands := topCandidate(body)
	if top == nil {
		return nil, visible
	}
	top = widen(body, top)
	parts := gatherSiblings(top, cands)
	content := &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div}
	for _, p := range parts {
		p.Parent.RemoveChild(p)
		content.AppendChild(p)
	}
	dropTitleHeading(content, title)
	cleanConditionally(content)
	return content, visible
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

// widen climbs from the best-scoring block to the ancestor that holds the
// page's prose when the block holds only part of it: an article split into
// one wrapper per section or paragraph, a lead apart from the rest, a forum
// thread of posts, a listing of items. It never climbs out of the element
// the page marks as its main content, nor to a link-dense ancestor.
func widen(body, top *html.Node) *html.Node {
	pc := proseChars(body)
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
			if float64(pc[a]) >= widenRatio*float64(max(pc[cur], 1)) {
				next = a
				break
			}
			if inMain && isMainMarked(a) {
				break
			}
		}
		if next == nil || measure(next).linkDensity() > 0.5 {
			return cur
		}
		cur = next
	}
}

// isMainMarked: the page says this element is its main content.
func isMainMarked(n *html.Node) bool {
	return n.DataAtom == atom.Main || strings.EqualFold(attr(n, "role"), "main")
}
