package extract

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func hasAttr(n *html.Node, key string) bool {
	for _, a := range n.Attr {
		if a.Key == key {
			return true
		}
	}
	return false
}

func setAttr(n *html.Node, key, val string) {
	for i, a := range n.Attr {
		if a.Key == key {
			n.Attr[i].Val = val
			return
		}
	}
	n.Attr = append(n.Attr, html.Attribute{Key: key, Val: val})
}

// classID is the lower-cased class and id of an element, the signal most
// sites give about what a block is.
func classID(n *html.Node) string {
	c, id := attr(n, "class"), attr(n, "id")
	if c == "" && id == "" {
		return ""
	}
	return strings.ToLower(c + " " + id)
}

func remove(n *html.Node) {
	if n.Parent != nil {
		n.Parent.RemoveChild(n)
	}
}

// elements calls fn for every element below n in document order; fn returns
// false to skip the element's subtree. fn may remove the element it is given.
func elements(n *html.Node, fn func(*html.Node) bool) {
	for c := n.FirstChild; c != nil; {
		next := c.NextSibling
		if c.Type == html.ElementNode {
			if fn(c) && c.Parent != nil {
				elements(c, fn)
			}
		}
		c = next
	}
}

func findFirst(n *html.Node, a atom.Atom) *html.Node {
	var found *html.Node
	elements(n, func(e *html.Node) bool {
		if found != nil {
			return false
		}
		if e.DataAtom == a {
			found = e
			return false
		}
		return true
	})
	return found
}

// textStats measures a subtree: its visible characters (whitespace runs
// count as one), the part of them inside links, and commas.
type textStats struct {
	chars, linkChars, commas int
}

func measure(n *html.Node) textStats {
	var s textStats
	var walk func(*html.Node, bool)
	walk = func(n *html.Node, inLink bool) {
		switch n.Type {
		case html.TextNode:
			c, commas := countText(n.Data)
			s.chars += c
			s.commas += commas
			if inLink {
				s.linkChars += c
			}
		case html.ElementNode, html.DocumentNode:
			link := inLink || isLink(n)
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				walk(c, link)
			}
		}
	}
	walk(n, false)
	return s
}

// isLink: a link, whose text counts as link text, other than a heading's
// permalink (a link to the heading itself, "#its-id", wrapping or beside
// its text): a section titled so is not a list of links.
func isLink(n *html.Node) bool {
	if n.DataAtom != atom.A {
		return false
	}
	if !strings.HasPrefix(attr(n, "href"), "#") {
		return true
	}
	for a, level := n.Parent, 0; a != nil && level < 3; a, level = a.Parent, level+1 {
		if isHeading(a.DataAtom) {
			return false
		}
	}
	return true
}

// statsOf measures every element below root in one walk: what measure
// gives for each, for the passes that ask it of many nested elements.
func statsOf(root *html.Node) map[*html.Node]textStats {
	out := map[*html.Node]textStats{}
	var walk func(*html.Node) textStats
	walk = func(n *html.Node) textStats {
		var s textStats
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			switch c.Type {
			case html.TextNode:
				k, commas := countText(c.Data)
				s.chars += k
				s.commas += commas
			case html.ElementNode:
				cs := walk(c)
				s.chars += cs.chars
				s.linkChars += cs.linkChars
				s.commas += cs.commas
			}
		}
		if isLink(n) {
			s.linkChars = s.chars
		}
		out[n] = s
		return s
	}
	walk(root)
	return out
}

// asciiSpace is unicode.IsSpace for the ASCII range.
var asciiSpace = [utf8.RuneSelf]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}

func countText(s string) (chars, commas int) {
	space := true
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			i++
			if asciiSpace[b] {
				if !space {
					chars++
				}
				space = true
				continue
			}
			space = false
			chars++
			if b == ',' {
				commas++
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if unicode.IsSpace(r) {
			if !space {
				chars++
			}
			space = true
			continue
		}
		space = false
		chars++
		if r == '،' || r == '，' || r == '、' {
			commas++
		}
	}
	return
}

func (s textStats) linkDensity() float64 {
	if s.chars == 0 {
		return 0
	}
	return float64(s.linkChars) / float64(s.chars)
}

// innerText collapses the text of a subtree to single-spaced words.
func innerText(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
			b.WriteByte(' ')
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return strings.Join(strings.Fields(b.String()), " ")
}

func runeLen(s string) int { return utf8.RuneCountInString(s) }

var blockTags = map[atom.Atom]bool{
	atom.Address: true, atom.Article: true, atom.Aside: true, atom.Blockquote: true, atom.Dd: true, atom.Details: true,
	atom.Div: true, atom.Dl: true, atom.Dt: true, atom.Fieldset: true, atom.Figcaption: true, atom.Figure: true,
	atom.Footer: true, atom.Form: true, atom.H1: true, atom.H2: true, atom.H3: true, atom.H4: true, atom.H5: true,
	atom.H6: true, atom.Header: true, atom.Hr: true, atom.Li: true, atom.Main: true, atom.Nav: true, atom.Ol: true,
	atom.P: true, atom.Pre: true, atom.Section: true, atom.Table: true, atom.Tbody: true, atom.Thead: true,
	atom.Tfoot: true, atom.Tr: true, atom.Td: true, atom.Th: true, atom.Ul: true, atom.Summary: true, atom.Caption: true,
}

func isBlock(n *html.Node) bool { return n.Type == html.ElementNode && blockTags[n.DataAtom] }

func hasBlockChild(n *html.Node) bool {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if isBlock(c) {
			return true
		}
	}
	return false
}

func isHeading(a atom.Atom) bool {
	switch a {
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		return true
	}
	return false
}
