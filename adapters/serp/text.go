package serp

import (
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/PuerkitoBio/goquery"
	"github.com/andybalholm/cascadia"
	"golang.org/x/net/html"

	"github.com/trawlhq/trawl/core/weburl"
)

// text is the whitespace-collapsed text of a selection: its text nodes in
// document order, runs of white space (unicode.IsSpace) made one space,
// none at either end. It is strings.Join(strings.Fields(s.Text()), " ")
// written in one pass over the nodes, without the text in between.
func text(s *goquery.Selection) string {
	size := 0
	for _, n := range s.Nodes {
		size += textSize(n)
	}
	var c collapser
	c.b.Grow(size)
	for _, n := range s.Nodes {
		c.node(n)
	}
	return c.b.String()
}

// nodeText is text of one node; "" for none.
func nodeText(n *html.Node) string {
	if n == nil {
		return ""
	}
	// The common case, one text already collapsed, is the text itself.
	t := n
	if t.Type != html.TextNode && t.FirstChild != nil && t.FirstChild == t.LastChild {
		t = t.FirstChild
	}
	if t.Type == html.TextNode && collapsed(t.Data) {
		return t.Data
	}
	var c collapser
	c.b.Grow(textSize(n))
	c.node(n)
	return c.b.String()
}

// collapsed reports an ASCII text that collapsing white space leaves as
// it is: no white space at either end, none but single spaces inside.
func collapsed(s string) bool {
	if s == "" {
		return true
	}
	if s[0] == ' ' || s[len(s)-1] == ' ' {
		return false
	}
	for i := 0; i < len(s); i++ {
		b := s[i]
		if b >= utf8.RuneSelf || b != ' ' && asciiSpace[b] || b == ' ' && s[i+1] == ' ' {
			return false
		}
	}
	return true
}

// textSize is the length of n's text before white space is collapsed: the
// most its text can need.
func textSize(n *html.Node) int {
	if n.Type == html.TextNode {
		return len(n.Data)
	}
	size := 0
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		size += textSize(c)
	}
	return size
}

type collapser struct {
	b     strings.Builder
	space bool // white space seen since the last word
}

func (c *collapser) node(n *html.Node) {
	if n.Type == html.TextNode {
		c.write(n.Data)
		return
	}
	for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
		c.node(ch)
	}
}

// nodeWithout is node, leaving out the descendants skip says (n itself is
// always read).
func (c *collapser) nodeWithout(n *html.Node, skip func(*html.Node) bool) {
	if n.Type == html.TextNode {
		c.write(n.Data)
		return
	}
	for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
		if !skip(ch) {
			c.nodeWithout(ch, skip)
		}
	}
}

func (c *collapser) write(s string) {
	for i := 0; i < len(s); {
		// White space, then words up to the next white space that is not
		// a single space, written whole.
		size := spaceAt(s, i)
		if size > 0 {
			c.space = true
			i += size
			continue
		}
		j := i
		for j < len(s) {
			if b := s[j]; b < utf8.RuneSelf {
				if asciiSpace[b] {
					// One space between words is what collapsing leaves:
					// the words on both sides are written as one run.
					if b == ' ' && j+1 < len(s) && spaceAt(s, j+1) == 0 {
						j++
						continue
					}
					break
				}
				j++
				continue
			}
			r, n := utf8.DecodeRuneInString(s[j:])
			if unicode.IsSpace(r) {
				break
			}
			j += n
		}
		c.word(s[i:j])
		i = j
	}
}

// spaceAt is the size of the white-space rune at s[i], 0 when it is none.
func spaceAt(s string, i int) int {
	if b := s[i]; b < utf8.RuneSelf {
		if asciiSpace[b] {
			return 1
		}
		return 0
	}
	r, n := utf8.DecodeRuneInString(s[i:])
	if unicode.IsSpace(r) {
		return n
	}
	return 0
}

func (c *collapser) word(w string) {
	if c.space && c.b.Len() > 0 {
		c.b.WriteByte(' ')
	}
	c.space = false
	c.b.WriteString(w)
}

// matchers caches the compiled selectors (every selector of the parsers is
// a constant): goquery's Find(string) compiles its selector on each call.
var matchers sync.Map

// match is the compiled selector sel, as goquery's Find(sel) compiles it.
func match(sel string) goquery.Matcher {
	if m, ok := matchers.Load(sel); ok {
		return m.(goquery.Matcher)
	}
	m, err := cascadia.Compile(sel)
	if err != nil {
		panic("serp: selector " + sel + ": " + err.Error())
	}
	matchers.Store(sel, m)
	return m
}

// asciiSpace is unicode.IsSpace over ASCII.
var asciiSpace = [utf8.RuneSelf]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}

// textShort is need less textSize(n), counted only until it reaches 0: it
// is above 0 when n's text before white space is collapsed is shorter than
// need, and reads no more of n than it takes to tell.
func textShort(n *html.Node, need int) int {
	if n.Type == html.TextNode {
		return need - len(n.Data)
	}
	for c := n.FirstChild; c != nil && need > 0; c = c.NextSibling {
		need = textShort(c, need)
	}
	return need
}

// countRE finds a number written with locale separators: 1,234,567 /
// 1.234.567 / 1 234 567 (thin and no-break spaces too) / 1'234'567.
var countRE = regexp.MustCompile(`\d{1,3}(?:[,.'\x{00A0}\x{202F}\x{2009} ]\d{3})+|\d+`)

// parseCount reads the first number of a "About 1,230,000 results" text.
func parseCount(s string) int64 {
	m := countRE.FindString(s)
	if m == "" {
		return 0
	}
	digits := strings.Map(func(r rune) rune {
		if unicode.IsDigit(r) {
			return r
		}
		return -1
	}, m)
	n, _ := strconv.ParseInt(digits, 10, 64)
	return n
}

// absolute resolves href against base; "" for anything but http(s).
func absolute(base *url.URL, href string) string { return weburl.Absolute(base, href) }

func hostOf(link string) string {
	u, err := url.Parse(link)
	if err != nil {
		return ""
	}
	return strings.TrimPrefix(strings.ToLower(u.Hostname()), "www.")
}

// displayFromLink renders a link as engines display it: host › path › parts.
func displayFromLink(link string) string {
	u, err := url.Parse(link)
	if err != nil {
		return link
	}
	parts := []string{u.Scheme + "://" + u.Host}
	for _, p := range strings.Split(strings.Trim(u.Path, "/"), "/") {
		if p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, " › ")
}

// imgSrc is the usable source of an image: src, or a lazy attribute.
func imgSrc(base *url.URL, img *goquery.Selection) string {
	if img.Length() == 0 {
		return ""
	}
	return imgNodeSrc(base, img.Get(0))
}

// imgNodeSrc is imgSrc of one image.
func imgNodeSrc(base *url.URL, img *html.Node) string {
	for _, a := range []string{"src", "data-src", "data-lazy-src"} {
		if v, ok := attrOf(img, a); ok && v != "" {
			if strings.HasPrefix(v, "data:image") {
				if len(v) > 64 {
					return v
				}
				continue
			}
			if abs := absolute(base, v); abs != "" {
				return abs
			}
		}
	}
	return ""
}
