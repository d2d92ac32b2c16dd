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
