// Package docmodel is the structure the document converters (PDF, DOCX)
// recover: headings, paragraphs, list items and tables, in reading order;
// and its rendering to the Content object's clean HTML, Markdown and text.
// The HTML is built from escaped text and a fixed set of bare tags, so it is
// sanitised by construction.
package docmodel

import (
	"html"
	"regexp"
	"strings"
)

// Kind is the kind of a block.
type Kind int

const (
	Paragraph Kind = iota
	Heading
	ListItem
	Table
)

// Block is one block of a document.
type Block struct {
	Kind    Kind
	Level   int    // heading level 1..6
	Ordered bool   // list item of a numbered list
	Text    string // heading, paragraph or list item text, one line
	Rows    [][]string
}

// Rendered is a document rendered three ways.
type Rendered struct {
	HTML, Markdown, Text string
}

// Render renders blocks; empty blocks are left out.
func Render(blocks []Block) Rendered {
	var h, md, tx strings.Builder
	// Room for the text in each rendering and its markup: the builders
	// then rarely copy what they hold.
	size := 0
	for _, b := range blocks {
		size += len(b.Text) + 16
		for _, r := range b.Rows {
			for _, c := range r {
				size += len(c) + 16
			}
		}
	}
	h.Grow(size + size/8)
	md.Grow(size + size/16)
	tx.Grow(size)
	var list string // "ul", "ol" or ""
	closeList := func() {
		if list != "" {
			h.WriteString("</" + list + ">\n")
			md.WriteString("\n")
			list = ""
		}
	}
	n := 0 // ordinal of the item in a numbered list
	for _, b := range blocks {
		if b.Kind == Table {
			rows := cleanRows(b.Rows)
			if len(rows) == 0 {
				continue
			}
			closeList()
			renderTable(&h, &md, &tx, rows)
			continue
		}
		text := strings.TrimSpace(collapse(b.Text))
		if text == "" {
			continue
		}
		switch b.Kind {
		case Heading:
			closeList()
			lv := min(max(b.Level, 1), 6)
			tag := "h" + string(rune('0'+lv))
			h.WriteString("<" + tag + ">")
			h.WriteString(html.EscapeString(text))
			h.WriteString("</" + tag + ">\n")
			md.WriteString(strings.Repeat("#", lv) + " ")
			md.WriteString(escapeMarkdown(text))
			md.WriteString("\n\n")
		case ListItem:
			want := "ul"
			if b.Ordered {
				want = "ol"
			}
			if list != want {
				closeList()
				list, n = want, 0
				h.WriteString("<" + list + ">\n")
			}
			n++
			h.WriteString("<li>")
			h.WriteString(html.EscapeString(text))
			h.WriteString("</li>\n")
			if b.Ordered {
				md.WriteString(itoa(n) + ". ")
			} else {
				md.WriteString("- ")
			}
			md.WriteString(escapeMarkdown(text))
			md.WriteString("\n")
			tx.WriteString(text)
			tx.WriteString("\n\n")
			continue
		default:
			closeList()
			h.WriteString("<p>")
			h.WriteString(html.EscapeString(text))
			h.WriteString("</p>\n")
			md.WriteString(escapeMarkdown(text))
			md.WriteString("\n\n")
		}
		tx.WriteString(text)
		tx.WriteString("\n\n")
	}
	closeList()
	return Rendered{HTML: strings.TrimSpace(h.String()), Markdown: strings.TrimSpace(md.String()), Text: strings.TrimSpace(tx.String())}
}

func renderTable(h, md, tx *strings.Builder, rows [][]string) {
	cols := 0
	for _, r := range rows {
		cols = max(cols, len(r))
	}
	h.WriteString("<table>\n")
	for i, r := range rows {
		cell := "td"
		if i == 0 {
			cell = "th"
		}
		h.WriteString("<tr>")
		for j := 0; j < cols; j++ {
			c := ""
			if j < len(r) {
				c = r[j]
			}
			h.WriteString("<" + cell + ">" + html.EscapeString(c) + "</" + cell + ">")
		}
		h.WriteString("</tr>\n")
		md.WriteString("|")
		for j := 0; j < cols; j++ {
			c := ""
			if j < len(r) {
				c = r[j]
			}
			md.WriteString(" " + strings.ReplaceAll(escapeMarkdown(c), "|", `\|`) + " |")
		}
		md.WriteString("\n")
		if i == 0 {
			md.WriteString("|" + strings.Repeat(" --- |", cols) + "\n")
		}
		tx.WriteString(strings.Join(r, " ") + "\n")
	}
	h.WriteString("</table>\n")
	md.WriteString("\n")
	tx.WriteString("\n")
}

func cleanRows(rows [][]string) [][]string {
	var out [][]string
	for _, r := range rows {
		var row []string
		empty := true
		for _, c := range r {
			c = strings.TrimSpace(collapse(c))
			if c != "" {
				empty = false
			}
			row = append(row, c)
		}
		if !empty {
			out = append(out, row)
		}
	}
	return out
}

// collapse turns runs of white space (newlines included) into one space:
// runs of \t \n \f \r, space and the no-break space U+00A0.
func collapse(s string) string {
	i := 0
	for i < len(s) && spaceAt(s, i) == 0 {
		i++
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	b.WriteString(s[:i])
	for i < len(s) {
		if w := spaceAt(s, i); w > 0 {
			for w > 0 {
				i += w
				w = spaceAt(s, i)
			}
			b.WriteByte(' ')
			continue
		}
		b.WriteByte(s[i])
		i++
	}
	return b.String()
}

// spaceAt is the length in bytes of the white space at s[i] (\t \n \f \r,
// space, U+00A0), 0 for none. U+00A0's first byte never continues another
// character, so a byte-wise look is exact whatever precedes it.
func spaceAt(s string, i int) int {
	if i >= len(s) {
		return 0
	}
	switch s[i] {
	case '\t', '\n', '\f', '\r', ' ':
		return 1
	case 0xc2:
		if i+1 < len(s) && s[i+1] == 0xa0 {
			return 2
		}
	}
	return 0
}

var (
	mdInline = strings.NewReplacer(`\`, `\\`, "*", `\*`, "`", "\\`", "[", `\[`, "]", `\]`, "<", `\<`, "_", `\_`)
	mdStart  = regexp.MustCompile(`^(#{1,6}\s|[-+>]\s|\d{1,9}[.)]\s)`)
)

// escapeMarkdown keeps text from turning into Markdown markup: inline marks
// are escaped, and so is a line start that would open a block.
func escapeMarkdown(s string) string {
	s = mdInline.Replace(s)
	if mdStart.MatchString(s) {
		if s[0] >= '0' && s[0] <= '9' {
			i := strings.IndexAny(s, ".)")
			return s[:i] + `\` + s[i:]
		}
		return `\` + s
	}
	return s
}

func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}
