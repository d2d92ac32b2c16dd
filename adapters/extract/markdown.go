package extract

import (
	"bytes"
	"regexp"

	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/marker"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/strikethrough"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// newMarkdown builds the HTML-to-Markdown converter: CommonMark with GFM
// tables and strikethrough, and no HTML: two lists in a row are not kept
// apart by an HTML comment (they read as one), a link to a place in the
// page (its href emptied) is written as its text, and a link with no
// text or image is not written. Tables always get a header row (the <th> row,
// else the first row); a cell spanning columns or rows is repeated in each
// cell it covers, so every row has the same number of cells and a column
// reads the same value on each row. Rows left empty are dropped. A table
// whose cells hold what a GFM cell cannot (lists, headings, rules, quotes,
// nested tables, several lines) is written as its paragraphs.
func newMarkdown() *converter.Converter {
	return converter.NewConverter(converter.WithPlugins(
		base.NewBasePlugin(),
		commonmark.NewCommonmarkPlugin(
			commonmark.WithListEndComment(false),
			commonmark.WithLinkEmptyHrefBehavior(commonmark.LinkBehaviorSkip),
			commonmark.WithLinkEmptyContentBehavior(commonmark.LinkBehaviorSkip),
		),
		table.NewTablePlugin(
			table.WithHeaderPromotion(true),
			table.WithSpanCellBehavior(table.SpanBehaviorMirror),
			table.WithSkipEmptyRows(true),
		),
		strikethrough.NewStrikethroughPlugin(),
		quotePlugin{},
	))
}

// quotePlugin fixes what the CommonMark plugin gets wrong: a run of "*" or
// "_" in the text ("Jo**", a censored word) escaped only in part, so it
// turns into emphasis; and two things inside block quotes: the lines of a code block are not prefixed with "> " (so
// the quote, and the code block, end at its first line), and text that
// reads as a list marker or a heading at the start of a quoted line ("1.
// Do they...", "- item", "# tag") is not escaped, so it turns into a list
// or a heading.
type quotePlugin struct{}

func (quotePlugin) Name() string { return "trawl-quote" }

func (quotePlugin) Init(conv *converter.Converter) error {
	conv.Register.Renderer(renderQuote, converter.PriorityEarly)
	conv.Register.Renderer(renderInCell, converter.PriorityEarly)
	conv.Register.UnEscaper(quotedLineStart, converter.PriorityEarly)
	return nil
}

var (
	manyNewlines   = regexp.MustCompile(`\n[ \t]*\n(?:[ \t]*\n)+`)
	codeNewline    = marker.BytesMarkerCodeBlockNewline
	quotedCodeLine = append(append([]byte{}, marker.BytesMarkerCodeBlockNewline...), '>', ' ')
)

func renderQuote(ctx converter.Context, w converter.Writer, n *html.Node) converter.RenderStatus {
	if n.Type != html.ElementNode || n.DataAtom != atom.Blockquote {
		return converter.RenderTryNext
	}
	var buf bytes.Buffer
	ctx.RenderChildNodes(ctx, &buf, n)
	content := bytes.TrimSpace(buf.Bytes())
	if len(content) == 0 {
		return converter.RenderSuccess
	}
	content = manyNewlines.ReplaceAll(content, []byte("\n\n"))
	for _, hard := range []string{"  \n\n", "  \n  \n", "  \n \n"} {
		content = bytes.ReplaceAll(content, []byte(hard), []byte("\n\n"))
	}
	content = bytes.ReplaceAll(content, codeNewline, quotedCodeLine)
	content = bytes.ReplaceAll(content, []byte("\n"), []byte("\n> "))
	w.WriteString("\n\n> ")
	w.Write(content)
	w.WriteString("\n\n")
	return converter.RenderSuccess
}

// literalRun: a "*" or "_" of the text next to another one ("Ni**"): each
// keeps its escape, else the run opens or closes emphasis.
func literalRun(chars []byte, index int) bool {
	c, p := chars[index], marker.BytesMarkerEscaping[0]
	if c != '*' && c != '_' {
		return false
	}
	return index >= 2 && chars[index-1] == p && chars[index-2] == c ||
		index+2 < len(chars) && chars[index+1] == p && chars[index+2] == c
}

// quotedLineStart keeps the escape of a list marker ("1.", "2)", "-", "+",
// "*") or a heading mark ("#") that begins a line inside a block quote,
// after its "> " prefixes. Lines outside quotes are left to the CommonMark
// plugin, which already escapes them.
func quotedLineStart(chars []byte, index int) int {
	if literalRun(chars, index) {
		return 1
	}
	start := index
	switch c := chars[index]; c {
	case '.', ')':
		digits := 0
		for start > 0 && (chars[start-1] >= '0' && chars[start-1] <= '9' || chars[start-1] == marker.BytesMarkerEscaping[0]) {
			start--
			if chars[start] != marker.BytesMarkerEscaping[0] {
				digits++
			}
		}
		if digits == 0 || digits > 9 {
			return -1
		}
	case '-', '+', '*', '#':
	default:
		return -1
	}
	if next := index + 1; next < len(chars) && chars[next] != ' ' && chars[next] != '\t' && chars[next] != '\n' {
		if chars[index] != '#' || chars[next] != '#' {
			return -1
		}
	}
	quoted := false
	for i := start - 1; i >= 0; i-- {
		switch chars[i] {
		case '\n':
			i = -1
		case ' ', marker.BytesMarkerEscaping[0]:
		case '>':
			quoted = true
		default:
			return -1
		}
	}
	if !quoted {
		return -1
	}
	return 1
}

// renderInCell writes a line break, paragraph or division inside a table
// cell as a space around its text, so that the table stays a GFM table
// (whose cells are one line each) rather than falling apart into
// paragraphs. Tables a GFM table cannot hold anyway are left alone.
func renderInCell(ctx converter.Context, w converter.Writer, n *html.Node) converter.RenderStatus {
	if n.Type != html.ElementNode || (n.DataAtom != atom.Br && n.DataAtom != atom.P && n.DataAtom != atom.Div) {
		return converter.RenderTryNext
	}
	table := cellTable(n)
	if table == nil || !gfmTable(table) {
		return converter.RenderTryNext
	}
	space := func() {
		if b, ok := w.(interface{ Bytes() []byte }); ok {
			if out := b.Bytes(); len(out) == 0 || out[len(out)-1] == ' ' {
				return
			}
		}
		w.WriteString(" ")
	}
	space()
	if n.DataAtom != atom.Br {
		ctx.RenderChildNodes(ctx, w, n)
		space()
	}
	return converter.RenderSuccess
}

// cellTable is the table of the cell n is in, nil when n is not in a cell.
func cellTable(n *html.Node) *html.Node {
	inCell := false
	for p := n.Parent; p != nil; p = p.Parent {
		switch p.DataAtom {
		case atom.Td, atom.Th:
			inCell = true
		case atom.Table:
			if inCell {
				return p
			}
			return nil
		}
	}
	return nil
}

// gfmTable: the table holds no block a GFM cell cannot (a nested table, a
// list, a heading, a rule, a quote, a code block).
func gfmTable(t *html.Node) bool {
	ok := true
	elements(t, func(e *html.Node) bool {
		if e == t {
			return true
		}
		switch e.DataAtom {
		case atom.Table, atom.Ul, atom.Ol, atom.Hr, atom.Blockquote, atom.Pre,
			atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
			ok = false
		}
		return ok
	})
	return ok
}
