package extract

import (
	"strings"
	"unicode"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// faqMinQuestions: a page declares at least this many questions before
// its FAQ stands in for a part missing from the content.
const faqMinQuestions = 2

// faqEntry is one question of a page's FAQ and its answer, as HTML.
type faqEntry struct{ question, answer string }

// faqEntries are the questions and answers a page declares in its
// JSON-LD (schema.org Question with an acceptedAnswer) that it also
// shows as text: a declared FAQ the page does not show (or shows less
// than half of) is not content.
func faqEntries(doc *html.Node) []faqEntry {
	var out []faqEntry
	eachJSONLDObject(doc, "acceptedAnswer", func(x map[string]any) bool {
		if t, _ := x["@type"].(string); t != "Question" {
			return true
		}
		q, _ := x["name"].(string)
		a := ""
		if ans, ok := x["acceptedAnswer"].(map[string]any); ok {
			a, _ = ans["text"].(string)
		}
		if strings.TrimSpace(q) != "" && strings.TrimSpace(a) != "" {
			out = append(out, faqEntry{question: strings.Join(strings.Fields(html.UnescapeString(q)), " "), answer: a})
		}
		return false
	})
	if len(out) < faqMinQuestions {
		return nil
	}
	var shown strings.Builder
	var texts func(*html.Node)
	texts = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			switch {
			case c.Type == html.TextNode:
				shown.WriteString(c.Data)
				shown.WriteByte(' ')
			case c.Type == html.ElementNode && (c.DataAtom == atom.Script || c.DataAtom == atom.Style || c.DataAtom == atom.Template || c.DataAtom == atom.Head):
			default:
				texts(c)
			}
		}
	}
	texts(doc)
	page := wordsOf(shown.String())
	declared := len(out)
	visible := out[:0]
	for _, e := range out {
		if strings.Contains(page, wordsOf(e.question)) {
			visible = append(visible, e)
		}
	}
	if 2*len(visible) < declared {
		return nil // the page shows a few of the questions, not its FAQ
	}
	return visible
}

// wordsOf is s lowercased, its words (letters and digits) separated by
// single spaces, for matching text across markup and punctuation.
func wordsOf(s string) string {
	return " " + strings.Join(strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsNumber(r)
	}), " ") + " "
}

// completeFAQ adds to the content the FAQ the page shows and declares
// when the content lacks most of its questions (an accordion of
// questions, or a list of them, judged furniture): each missing question
// as a heading, with its answer unless the content holds it already. It
// reports whether it added any.
func completeFAQ(content *html.Node, text string, faq []faqEntry) bool {
	if len(faq) < faqMinQuestions {
		return false
	}
	have := wordsOf(text)
	found := 0
	for _, e := range faq {
		if strings.Contains(have, wordsOf(e.question)) {
			found++
		}
	}
	if 2*found >= len(faq) {
		return false
	}
	for _, e := range faq {
		if strings.Contains(have, wordsOf(e.question)) {
			continue
		}
		h := &html.Node{Type: html.ElementNode, Data: "h3", DataAtom: atom.H3}
		h.AppendChild(&html.Node{Type: html.TextNode, Data: e.question})
		content.AppendChild(h)
		a := &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div}
		nodes, err := html.ParseFragment(strings.NewReader(e.answer), a)
		if err != nil {
			continue
		}
		for _, n := range nodes {
			a.AppendChild(n)
		}
		paragraphize(a)
		if at := renderText(a); at != "" && !strings.Contains(have, wordsOf(at)) {
			content.AppendChild(a)
		}
	}
	return true
}
