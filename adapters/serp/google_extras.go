package serp

import (
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html"

	"github.com/trawlhq/trawl/ports"
)

var paaLabels = []string{"people also ask", "andra frågar även", "autres questions posées", "nutzer fragen auch", "otras preguntas de los usuarios", "altre domande"}

// paaContainer finds, in basic layouts without data-q attributes, the block
// under a "People also ask" label (the page's first, found by
// googleHeadsOf) that holds the questions.
func paaContainer(n *html.Node) *html.Node {
	if n == nil {
		return nil
	}
	for p := parentElement(n); p != nil && p.Data != "body"; p = parentElement(p) {
		if len(questionNodes(p)) >= 2 {
			return p
		}
	}
	return nil
}

// isPAALabel reports a span, div or h2 without child elements whose text
// is a "People also ask" label.
func isPAALabel(n *html.Node) bool {
	if n.Type != html.ElementNode || n.Data != "span" && n.Data != "div" && n.Data != "h2" {
		return false
	}
	size := 0
	var first byte // the text's first byte that is not ASCII white space
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode {
			return false
		}
		if c.Type == html.TextNode {
			size += len(c.Data)
			if first == 0 {
				if t := strings.TrimLeft(c.Data, " \t\n\v\f\r"); t != "" {
					first = t[0]
				}
			}
		}
	}
	// No label is shorter than 13 bytes, and collapsing white space only
	// shortens a text. Every label starts with a, n, o or p: an ASCII
	// first letter that lowercases to none of them rules a text out before
	// it is read.
	if size < len("altre domande") || first == 0 {
		return false
	}
	if first < utf8.RuneSelf && !strings.ContainsRune("anopANOP", rune(first)) {
		return false
	}
	t := strings.ToLower(nodeText(n))
	for _, l := range paaLabels {
		if t == l {
			return true
		}
	}
	return false
}

// closestID reports n or an ancestor of n with the id, as the selector
// #id finds it from n.
func closestID(n *html.Node, id string) bool {
	for ; n != nil; n = n.Parent {
		if n.Type == html.ElementNode && attrHas(n, "id", id) {
			return true
		}
	}
	return false
}

// parentElement is n's parent when it is an element, as goquery's Parent
// reads it; nil otherwise.
func parentElement(n *html.Node) *html.Node {
	if p := n.Parent; p != nil && p.Type == html.ElementNode {
		return p
	}
	return nil
}

// questionNodes are the deepest elements under n (div or span, in
// document order) whose text is a question.
func questionNodes(n *html.Node) []*html.Node {
	var out []*html.Node
	eachElement(n, func(e *html.Node) bool {
		if e.Data != "div" && e.Data != "span" {
			return true
		}
		if textSize(e) < 8 || !endsWithQuestionMark(e) { // too short before white space is collapsed, or no question
			return true
		}
		t := nodeText(e)
		if !strings.HasSuffix(t, "?") || len(t) > 200 || len(t) < 8 {
			return true
		}
		for c := e.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.ElementNode && nodeText(c) == t {
				return true // not the deepest
			}
		}
		out = append(out, e)
		return true
	})
	return out
}

// endsWithQuestionMark reports a text of n that ends with "?" once white
// space is collapsed: the last of its text nodes that is not all white
// space ends with "?" before its trailing white space. It reads no text.
func endsWithQuestionMark(n *html.Node) bool {
	if n.Type == html.TextNode {
		t := strings.TrimRightFunc(n.Data, unicode.IsSpace)
		return strings.HasSuffix(t, "?")
	}
	for c := n.LastChild; c != nil; c = c.PrevSibling {
		if c.Type == html.TextNode && strings.TrimRightFunc(c.Data, unicode.IsSpace) == "" {
			continue
		}
		if c.Type == html.TextNode || hasText(c) {
			return endsWithQuestionMark(c)
		}
	}
	return false
}

// hasText reports a text node under n that is not all white space.
func hasText(n *html.Node) bool {
	if n.Type == html.TextNode {
		return strings.TrimFunc(n.Data, unicode.IsSpace) != ""
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if hasText(c) {
			return true
		}
	}
	return false
}

// googleQuestions reads "People also ask" from the page's [data-q] blocks,
// else its .related-question-pair blocks, else the box under the label.
func googleQuestions(dataQ, qPairs *goquery.Selection, paaBox *html.Node) []ports.RelatedQuestion {
	var out []ports.RelatedQuestion
	seen := map[string]bool{}
	add := func(q, a string) {
		q = strings.TrimSpace(q)
		if q == "" || seen[strings.ToLower(q)] {
			return
		}
		seen[strings.ToLower(q)] = true
		a = strings.TrimSpace(a)
		if len(a) < 20 {
			a = ""
		}
		out = append(out, ports.RelatedQuestion{Question: q, Answer: a})
	}
	// Desktop and mobile: the question is an attribute of its block.
	dataQ.Each(func(_ int, s *goquery.Selection) {
		q, _ := s.Attr("data-q")
		add(q, answerOf(s.Get(0), q))
	})
	if len(out) > 0 {
		return out
	}
	// Older desktop pages: a related-question-pair block per question.
	qPairs.Each(func(_ int, s *goquery.Selection) {
		if qs := questionNodes(s.Get(0)); len(qs) > 0 {
			q := nodeText(qs[0])
			add(q, answerOf(s.Get(0), q))
		}
	})
	if len(out) > 0 {
		return out
	}
	// Basic layouts: questions under the label, each followed by its answer.
	if c := paaBox; c != nil {
		qs := questionNodes(c)
		for _, q := range qs {
			item := q
			for p := parentElement(q); p != nil && p != c && len(questionNodes(p)) == 1; p = parentElement(p) {
				item = p
			}
			qt := nodeText(q)
			add(qt, answerOf(item, qt))
		}
	}
	return out
}

// answerOf is the block's text without the question, when the page carries
// an answer at all.
func answerOf(block *html.Node, question string) string {
	t := nodeText(block)
	if strings.HasPrefix(t, question) {
		for strings.HasPrefix(t, question) { // headers repeat the question above the answer
			t = strings.TrimSpace(strings.TrimPrefix(t, question))
		}
	} else {
		t = strings.TrimSpace(strings.Replace(t, question, "", 1))
	}
	if len(t) > 2000 {
		t = t[:2000]
	}
	return t
}

// googleRelated reads the suggested searches: links back to Google search
// with a query, below the first result, that are not tabs, filters, pages or
// spelling fixes.
func googleRelated(links *goquery.Selection, anchors []*html.Node, paa map[*html.Node]bool, query string) []ports.RelatedSearch {
	var first *html.Node
	if len(anchors) > 0 {
		first = anchors[0]
	}
	passed := first == nil
	var out []ports.RelatedSearch
	seen := map[string]bool{strings.ToLower(strings.TrimSpace(query)): true}
	links.Each(func(_ int, s *goquery.Selection) {
		n := s.Get(0)
		if !passed {
			if n == first {
				passed = true
			}
			return
		}
		href, _ := s.Attr("href")
		// A path of /search is spelled in the link, plainly or escaped:
		// a link with neither is not parsed.
		if !strings.Contains(href, "search") && !strings.Contains(href, "%") {
			return
		}
		u, err := googleBase.Parse(href)
		if err != nil || u.Path != "/search" || !strings.HasSuffix(strings.ToLower(u.Hostname()), "google.com") && !strings.Contains(u.Hostname(), "google.") {
			return
		}
		if insideScope(n, paa) || closestID(n, "rhs") { // the knowledge panel's entities are not searches
			return
		}
		v := u.Query()
		if v.Get("q") == "" || v.Get("tbm") != "" || v.Get("tbs") != "" || v.Get("udm") != "" || v.Get("start") != "" || v.Get("spell") != "" || v.Get("stick") != "" {
			return
		}
		q := text(s)
		if q == "" || len([]rune(q)) > 120 {
			q = v.Get("q")
		}
		key := strings.ToLower(q)
		if seen[key] {
			return
		}
		seen[key] = true
		rs := ports.RelatedSearch{Query: q, Link: "https://www.google.com/search?" + url.Values{"q": {v.Get("q")}}.Encode()}
		if img := s.FindMatcher(match("img")).First(); img.Length() > 0 {
			rs.Image = imgSrc(googleBase, img)
		}
		out = append(out, rs)
	})
	return out
}
