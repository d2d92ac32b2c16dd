package extract

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// renderText writes the content as plain text: one block per line group,
// blocks separated by a blank line, inline whitespace collapsed.
func renderText(root *html.Node) string {
	var blocks []string
	var cur strings.Builder
	flush := func() {
		t := strings.Join(strings.Fields(cur.String()), " ")
		if t != "" {
			blocks = append(blocks, t)
		}
		cur.Reset()
	}
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		switch n.Type {
		case html.TextNode:
			cur.WriteString(n.Data)
			return
		case html.ElementNode:
			if n.DataAtom == atom.Br {
				cur.WriteByte('\n')
				flush()
				return
			}
			block := isBlock(n)
			if block {
				flush()
			}
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				walk(c)
			}
			if block {
				flush()
			} else if n.DataAtom == atom.Td || n.DataAtom == atom.Th {
				cur.WriteByte(' ')
			}
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(root)
	flush()
	return strings.Join(blocks, "\n\n")
}
