package extractbench

import (
	"bytes"
	"regexp"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Structure counts, for one page or many, the structures of a page's main
// content and how many of them the Markdown keeps as such. An element is in
// the main content when its text is in the truth; it is kept when the
// Markdown writes it as the same structure:
//   - a heading (h1-h6) as an ATX heading of its level ("## Text" for h2);
//   - a list item as a line of a Markdown list ("- Text", "1. Text");
//   - a cell of a data table (two rows and two columns or more) inside a
//     Markdown table row ("| ... | Text | ... |");
//   - a code block (pre) as a fenced block holding its first line, with the
//     language the page names (class "language-x" or "lang-x" on the pre or
//     its code) as the fence's info string.
//
// Shown counts the elements whose text is in the Markdown at all, so that
// Kept/Shown is the structure kept of what was extracted, apart from what
// the extraction missed. Links counts the Markdown's links and Relative
// those whose target is not absolute.
type Structure struct {
	Headings, Items, Cells, Code, CodeLang Kind
	Links, Relative                        int
}

// Kind is the count of one structure: in the main content, shown (its text
// in the Markdown) and kept (as the same structure).
type Kind struct{ Main, Shown, Kept int }

// Add sums two counts.
func (s Structure) Add(o Structure) Structure {
	add := func(a, b Kind) Kind { return Kind{a.Main + b.Main, a.Shown + b.Shown, a.Kept + b.Kept} }
	return Structure{
		Headings: add(s.Headings, o.Headings), Items: add(s.Items, o.Items), Cells: add(s.Cells, o.Cells),
		Code: add(s.Code, o.Code), CodeLang: add(s.CodeLang, o.CodeLang),
		Links: s.Links + o.Links, Relative: s.Relative + o.Relative,
	}
}

// Kinds are the structures by name, in a fixed order.
func (s Structure) Kinds() ([]string, []Kind) {
	return []string{"headings", "list items", "table cells", "code blocks", "code languages"},
		[]Kind{s.Headings, s.Items, s.Cells, s.Code, s.CodeLang}
}

// structureMinWords is the fewest words of an element's text for it to be
// matched against the truth: shorter texts ("Home", "1") are found
// anywhere.
const structureMinWords = 2

var (
	mdLink     = regexp.MustCompile(`\]\(([^)\s]*)`)
	mdFence    = regexp.MustCompile("^\\s*(```+|~~~+)\\s*([^\\s`]*)")
	mdHeading  = regexp.MustCompile(`^(#{1,6})\s+(.*)$`)
	mdListItem = regexp.MustCompile(`^\s*(?:[-*+]|\d{1,9}[.)])\s+(.*)$`)
	langClass  = regexp.MustCompile(`(?:^|\s)(?:language|lang)-([A-Za-z0-9_+#-]+)`)
)

// words is the text as lower-cased word tokens joined by single spaces,
// padded with a space each side for whole-word matching.
func words(s string) string {
	return " " + strings.Join(token.FindAllString(strings.ToLower(s), -1), " ") + " "
}

// CheckStructure counts the structures of a page (its HTML) that are in the
// main content (truth) and kept in the Markdown.
func CheckStructure(page []byte, truth, markdown string) Structure {
	var s Structure
	doc, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		return s
	}
	md := parseMarkdown(markdown)
	tw := words(truth)
	main := func(n *html.Node) (string, bool) {
		w := words(ownText(n))
		if strings.Count(strings.TrimSpace(w), " ")+1 < structureMinWords {
			return "", false
		}
		return w, strings.Contains(tw, w)
	}
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type != html.ElementNode {
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				walk(c)
			}
			return
		}
		switch n.DataAtom {
		case atom.Script, atom.Style, atom.Noscript, atom.Template, atom.Head:
			return
		case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
			if w, ok := main(n); ok {
				level := int(n.Data[1] - '0')
				count(&s.Headings, strings.Contains(md.all, w), md.has(md.headings[level], w))
			}
		case atom.Li:
			if w, ok := main(n); ok {
				count(&s.Items, strings.Contains(md.all, w), md.has(md.items, w))
			}
		case atom.Table:
			if dataTable(n) {
				for _, c := range cellsOf(n) {
					if w, ok := main(c); ok {
						count(&s.Cells, strings.Contains(md.all, w), md.has(md.cells, w))
					}
				}
			}
		case atom.Pre:
			first := firstLine(innerText(n))
			w := words(first)
			if strings.TrimSpace(w) != "" && strings.Contains(tw, w) {
				shown := strings.Contains(md.all, w)
				count(&s.Code, shown, md.hasAny(md.code, w))
				if lang := codeLanguage(n); lang != "" {
					count(&s.CodeLang, shown, md.has(md.code[strings.ToLower(lang)], w))
				}
			}
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	for _, m := range mdLink.FindAllStringSubmatch(markdown, -1) {
		s.Links++
		t := strings.ToLower(m[1])
		if !(strings.HasPrefix(t, "http://") || strings.HasPrefix(t, "https://") || strings.HasPrefix(t, "mailto:")) {
			s.Relative++
		}
	}
	return s
}

func count(k *Kind, shown, kept bool) {
	k.Main++
	if shown || kept {
		k.Shown++
	}
	if kept {
		k.Kept++
	}
}

// markdownParts are the Markdown's text in words, by structure.
type markdownParts struct {
	all      string
	headings [7][]string
	items    []string
	cells    []string
	code     map[string][]string // by fence language ("" for none)
}

func (m markdownParts) has(lines []string, w string) bool {
	for _, l := range lines {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

func (m markdownParts) hasAny(code map[string][]string, w string) bool {
	for _, lines := range code {
		if m.has(lines, w) {
			return true
		}
	}
	return false
}

func parseMarkdown(md string) markdownParts {
	p := markdownParts{all: words(md), code: map[string][]string{}}
	fence, lang := "", ""
	var block strings.Builder
	for _, line := range strings.Split(md, "\n") {
		if fence != "" {
			if strings.HasPrefix(strings.TrimSpace(line), fence) {
				p.code[lang] = append(p.code[lang], words(block.String()))
				fence = ""
				block.Reset()
				continue
			}
			block.WriteString(line)
			block.WriteByte('\n')
			continue
		}
		if m := mdFence.FindStringSubmatch(line); m != nil {
			fence, lang = m[1], strings.ToLower(m[2])
			continue
		}
		text := strings.TrimLeft(line, "> ")
		switch {
		case mdHeading.MatchString(text):
			m := mdHeading.FindStringSubmatch(text)
			p.headings[len(m[1])] = append(p.headings[len(m[1])], words(m[2]))
		case strings.HasPrefix(strings.TrimSpace(text), "|"):
			for _, c := range strings.Split(text, "|") {
				p.cells = append(p.cells, words(c))
			}
		case mdListItem.MatchString(text):
			p.items = append(p.items, words(mdListItem.FindStringSubmatch(text)[1]))
		}
	}
	return p
}

// ownText is an element's text up to its first nested block after some
// text (a list item holding a sub-list is matched by its own line).
func ownText(n *html.Node) string { return textOf(n, true) }

// innerText is an element's text, a line break for each <br>.
func innerText(n *html.Node) string { return textOf(n, false) }

func textOf(n *html.Node, own bool) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		switch {
		case n.Type == html.TextNode:
			b.WriteString(n.Data)
			b.WriteByte(' ')
			return
		case n.Type != html.ElementNode:
		case n.DataAtom == atom.Br:
			b.WriteByte('\n')
		case own && b.Len() > 0:
			switch n.DataAtom {
			case atom.Ul, atom.Ol, atom.Script, atom.Style, atom.Table, atom.P, atom.Div, atom.Pre:
				return
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) != "" {
			return l
		}
	}
	return ""
}

// codeLanguage is the language a pre (or its code) names in its class.
func codeLanguage(pre *html.Node) string {
	for _, n := range []*html.Node{pre, pre.FirstChild} {
		for n != nil && n.Type != html.ElementNode {
			n = n.NextSibling
		}
		if n == nil {
			continue
		}
		for _, a := range n.Attr {
			if a.Key == "class" {
				if m := langClass.FindStringSubmatch(a.Val); m != nil {
					return m[1]
				}
			}
		}
	}
	return ""
}

// dataTable: a table of two rows and two columns or more whose cells hold
// no blocks (no lists, headings, nested tables): a table of data, not a
// layout.
func dataTable(t *html.Node) bool {
	rows, cols, ok := 0, 0, true
	var walk func(*html.Node, bool)
	walk = func(n *html.Node, inCell bool) {
		for c := n.FirstChild; c != nil && ok; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			switch c.DataAtom {
			case atom.Table:
				ok = false
				return
			case atom.Tr:
				rows++
				k := 0
				for d := c.FirstChild; d != nil; d = d.NextSibling {
					if d.DataAtom == atom.Td || d.DataAtom == atom.Th {
						k++
					}
				}
				cols = max(cols, k)
			case atom.Ul, atom.Ol, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.Pre, atom.Blockquote:
				if inCell {
					ok = false
					return
				}
			}
			walk(c, inCell || c.DataAtom == atom.Td || c.DataAtom == atom.Th)
		}
	}
	walk(t, false)
	return ok && rows >= 2 && cols >= 2
}

func cellsOf(t *html.Node) []*html.Node {
	var out []*html.Node
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.DataAtom == atom.Td || c.DataAtom == atom.Th {
				out = append(out, c)
				continue
			}
			walk(c)
		}
	}
	walk(t)
	return out
}
