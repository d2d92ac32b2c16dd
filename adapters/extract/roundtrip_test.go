package extract_test

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/trawlhq/trawl/adapters/extract"
	"github.com/trawlhq/trawl/bench/extractbench"
	"github.com/trawlhq/trawl/ports"
)

// structure is what a reader of the Markdown must find again: the heading
// hierarchy, list items, table cells, code blocks, links, images and text.
type structure struct {
	headings []string // "h2 Title"
	items    int      // list items
	tables   int      // tables written as tables
	cells    map[string]bool
	code     []string // code block contents, whitespace kept
	links    map[string]bool
	images   map[string]bool // "src alt"
	quotes   int
	words    []string
}

// markdownTable reports whether a table can be written as a GFM table: its
// cells hold no block that Markdown cannot put in a cell (a nested table, a
// list, a heading, a quote, a rule, a code block). Tables that cannot are
// written as paragraphs, which is the documented tolerance: their cells are
// not counted as cells on either side, their text still is.
func markdownTable(t *html.Node) bool {
	ok := true
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil && ok; c = c.NextSibling {
			if c.Type == html.ElementNode {
				switch c.DataAtom {
				case atom.Table, atom.Ul, atom.Ol, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6,
					atom.Blockquote, atom.Hr, atom.Pre:
					ok = false
					return
				}
			}
			walk(c)
		}
	}
	walk(t)
	return ok
}

func squash(s string) string { return strings.Join(strings.Fields(s), " ") }

func textOf(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		if n.Type == html.ElementNode && (n.DataAtom == atom.Br || n.DataAtom == atom.P || n.DataAtom == atom.Div ||
			n.DataAtom == atom.Li || n.DataAtom == atom.Td || n.DataAtom == atom.Th || n.DataAtom == atom.Tr) {
			b.WriteString(" ")
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
		if n.Type == html.ElementNode && n.DataAtom != atom.A && n.DataAtom != atom.Span && isBlockish(n) {
			b.WriteString(" ")
		}
	}
	walk(n)
	return b.String()
}

func isBlockish(n *html.Node) bool {
	switch n.DataAtom {
	case atom.P, atom.Div, atom.Li, atom.Td, atom.Th, atom.Tr, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6,
		atom.Pre, atom.Blockquote, atom.Ul, atom.Ol, atom.Table, atom.Dt, atom.Dd, atom.Figure, atom.Figcaption,
		atom.Section, atom.Caption:
		return true
	}
	return false
}

// within reports whether n has an ancestor of one of the kinds. A heading
// inside a link is written as the link's text, a list inside a heading as
// the heading's text: Markdown cannot nest them so.
func within(n *html.Node, kinds ...atom.Atom) bool {
	for p := n.Parent; p != nil; p = p.Parent {
		for _, k := range kinds {
			if p.DataAtom == k {
				return true
			}
		}
	}
	return false
}

func findImg(n *html.Node) bool {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.DataAtom == atom.Img && attrOf(c, "src") != "" || findImg(c) {
			return true
		}
	}
	return false
}

// strayRuns counts the runs of content placed directly in a list, outside
// any item (invalid HTML the parser keeps): each is written as an item.
func strayRuns(list *html.Node) int {
	runs, in := 0, false
	for c := list.FirstChild; c != nil; c = c.NextSibling {
		stray := c.Type == html.ElementNode && c.DataAtom != atom.Li ||
			c.Type == html.TextNode && strings.TrimSpace(c.Data) != ""
		if stray && !in {
			runs++
		}
		if c.Type == html.ElementNode || stray {
			in = stray
		}
	}
	return runs
}

func span(n *html.Node, k string) int {
	v, err := strconv.Atoi(attrOf(n, k))
	if err != nil || v < 1 {
		return 1
	}
	return min(v, 1000)
}

func structureOf(t *testing.T, src string, mirrored bool) structure {
	t.Helper()
	doc, err := html.Parse(strings.NewReader("<body>" + src + "</body>"))
	if err != nil {
		t.Fatal(err)
	}
	s := structure{cells: map[string]bool{}, links: map[string]bool{}, images: map[string]bool{}}
	var walk func(n *html.Node, inTable bool)
	walk = func(n *html.Node, inTable bool) {
		if n.Type == html.ElementNode {
			switch n.DataAtom {
			case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
				if txt := squash(textOf(n)); txt != "" && !within(n, atom.A) {
					s.headings = append(s.headings, n.Data+" "+txt)
				}
			case atom.Ul, atom.Ol:
				s.items += strayRuns(n)
			case atom.Li:
				if !within(n, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6) {
					s.items++
				}
			case atom.Table:
				if markdownTable(n) {
					s.tables++
					inTable = true
				} else {
					inTable = false
				}
			case atom.Td, atom.Th:
				if txt := squash(textOf(n)); inTable && txt != "" {
					s.cells[txt] = true
				}
			case atom.Pre:
				s.code = append(s.code, strings.TrimRight(textOf(n), "\n "))
			case atom.A:
				if h := attrOf(n, "href"); h != "" && (squash(textOf(n)) != "" || findImg(n)) {
					s.links[sameURL(h)] = true
				}
			case atom.Img:
				if src := attrOf(n, "src"); src != "" {
					s.images[sameURL(src)+" "+squash(attrOf(n, "alt"))] = true
				}
			case atom.Blockquote:
				if squash(textOf(n)) != "" {
					s.quotes++ // an empty quote is not written
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, inTable)
		}
	}
	walk(doc, false)
	s.words = strings.Fields(textOf(doc))
	// A cell spanning columns or rows is written once in each cell it
	// covers (tables in the Markdown are grids).
	var spans func(*html.Node)
	spans = func(n *html.Node) {
		if n.Type == html.ElementNode && (n.DataAtom == atom.Td || n.DataAtom == atom.Th) {
			k := span(n, "colspan")*span(n, "rowspan") - 1
			for i := 0; i < k; i++ {
				s.words = append(s.words, strings.Fields(textOf(n))...)
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			spans(c)
		}
	}
	if src != "" && mirrored {
		spans(doc)
	}
	return s
}

// sameURL undoes percent-encoding, so that "(" and "%28", "-" and "%2d"
// compare equal: the Markdown writer encodes characters that would end a
// link destination, and a renderer may encode others ("+" and "%20" in a
// query both read as a space).
func sameURL(u string) string {
	if v, err := url.QueryUnescape(u); err == nil {
		return v
	}
	return u
}

func attrOf(n *html.Node, k string) string {
	for _, a := range n.Attr {
		if a.Key == k {
			return a.Val
		}
	}
	return ""
}

// wordF1 is the bag-of-words F1 of two texts.
func wordF1(a, b []string) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 1
	}
	bag := map[string]int{}
	for _, w := range a {
		bag[w]++
	}
	common := 0
	for _, w := range b {
		if bag[w] > 0 {
			bag[w]--
			common++
		}
	}
	if common == 0 {
		return 0
	}
	p, r := float64(common)/float64(len(b)), float64(common)/float64(len(a))
	return 2 * p * r / (p + r)
}

func setDiff(a, b map[string]bool) []string {
	var out []string
	for k := range a {
		if !b[k] {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

func firstDiff(a, b []string) string {
	for i := range a {
		if i >= len(b) {
			return fmt.Sprintf("%d != %d blocks", len(a), len(b))
		}
		if a[i] != b[i] {
			return fmt.Sprintf("block %d: %q != %q", i, a[i], b[i])
		}
	}
	return fmt.Sprintf("%d != %d blocks", len(a), len(b))
}

// compare lists what the Markdown lost or changed of the clean HTML.
func compare(want, got structure) map[string]string {
	m := map[string]string{}
	if strings.Join(want.headings, "|") != strings.Join(got.headings, "|") {
		m["headings"] = fmt.Sprintf("%q != %q", want.headings, got.headings)
	}
	if want.items != got.items {
		m["list items"] = fmt.Sprintf("%d != %d", want.items, got.items)
	}
	if want.tables != got.tables {
		m["tables"] = fmt.Sprintf("%d != %d", want.tables, got.tables)
	} else if d := setDiff(want.cells, got.cells); len(d) > 0 || len(want.cells) != len(got.cells) {
		m["table cells"] = fmt.Sprintf("%d != %d, missing %q", len(want.cells), len(got.cells), d)
	}
	if strings.Join(want.code, "\x00") != strings.Join(got.code, "\x00") {
		m["code blocks"] = firstDiff(want.code, got.code)
	}
	if d := setDiff(want.links, got.links); len(d) > 0 {
		m["links"] = fmt.Sprintf("missing %q", d)
	}
	if d := setDiff(want.images, got.images); len(d) > 0 {
		m["images"] = fmt.Sprintf("missing %q", d)
	}
	if want.quotes != got.quotes {
		m["blockquotes"] = fmt.Sprintf("%d != %d", want.quotes, got.quotes)
	}
	if f := wordF1(want.words, got.words); f < 0.99 {
		m["text"] = fmt.Sprintf("word F1 %.3f", f)
	}
	return m
}

// TestMarkdownRoundTrip renders the Markdown of every page of the committed
// development subsets (the pages the quality tests use) back to HTML with
// goldmark (CommonMark with the GFM extensions) and compares its structure
// and text with the clean HTML: headings in order, list items, tables and
// their cell texts, code blocks whitespace for whitespace, links, images
// with their alt text, block quotes, and no HTML left in the Markdown.
// Tolerances, each for what Markdown cannot write or writes another way:
//   - a table whose cells hold a list, nested table, heading, quote, rule
//     or code block is written as paragraphs, not compared as a table;
//   - a cell spanning columns or rows is repeated in each cell it covers;
//   - a heading inside a link is the link's text, a list inside a heading
//     the heading's text; content placed directly in a list is an item;
//   - an empty quote, or a link with neither text nor image, is not written;
//   - URLs compare after percent-decoding; a code block's trailing newline
//     and the text's entities and escapes aside, the text matches to a word
//     F1 of 0.99.
func TestMarkdownRoundTrip(t *testing.T) {
	gm := goldmark.New(goldmark.WithExtensions(extension.GFM))
	x := extract.New()
	counts := map[string]int{}
	pagesN := 0
	for _, dir := range []string{benchDir, "../../testdata/extraction-wcxb", "../../testdata/extraction-trafilatura"} {
		pages, err := extractbench.Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range pages {
			out, err := x.Extract(context.Background(), ports.ExtractRequest{URL: "https://fake-url.com/a/page", HTML: p.HTML})
			if err != nil {
				continue
			}
			pagesN++
			var buf bytes.Buffer
			if err := gm.Convert([]byte(out.Markdown), &buf); err != nil {
				t.Fatal(err)
			}
			want, got := structureOf(t, out.HTML, true), structureOf(t, buf.String(), false)
			diffs := compare(want, got)
			if n := strings.Count(buf.String(), "<!-- raw HTML omitted -->"); n > 0 {
				diffs["raw HTML"] = fmt.Sprintf("%d HTML tags in the Markdown", n)
			}
			for k, v := range diffs {
				counts[k]++
				if os.Getenv("ROUNDTRIP_VERBOSE") != "" {
					t.Logf("%s %s: %s", p.ID, k, v)
				}
			}
		}
	}
	total := 0
	for k, n := range counts {
		t.Logf("%-12s %d pages", k, n)
		total += n
	}
	t.Logf("%d pages, %d mismatches", pagesN, total)
	if pagesN < 170 {
		t.Errorf("only %d pages extracted", pagesN)
	}
	if total > 0 {
		t.Errorf("%d mismatches between the Markdown and the clean HTML (ROUNDTRIP_VERBOSE=1 lists them)", total)
	}
}
