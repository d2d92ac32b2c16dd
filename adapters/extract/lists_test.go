package extract_test

import (
	"strings"
	"testing"
)

// A list set between two paragraphs of an article, whose items are
// sentences citing their sources through links, is the article's own;
// a list of linked titles after it (related stories) is still dropped.
func TestLinkedProseListInsideArticle(t *testing.T) {
	para := func(words string) string {
		return `<p>` + words + `, which the harbour office has noted in its yearly report on the estuary and its traffic.</p>`
	}
	item := func(link, rest string) string {
		return `<li><a href="/src/` + link + `">` + link + ` guidance on cold-water rowing</a> says ` + rest + `.</li>`
	}
	page := `<html><head><title>Winter rowing</title></head><body><nav><a href="/">Home</a><a href="/news">News</a></nav><article><h1>Winter rowing</h1>` +
		para("Rowing through winter asks more of a crew than summer does") + para("The first weeks are the hardest") +
		`<ul>` + item("National", "warm up on land first") + item("Regional", "carry a spare layer") + item("Club", "never row alone after dusk") + `</ul>` +
		para("Most crews settle into the routine by midwinter") + para("The spring races reward those who kept going") +
		`<ul><li><a href="/a">Summer regatta results</a></li><li><a href="/b">New boathouse opens</a></li><li><a href="/c">Coaching course dates</a></li></ul>` +
		`</article><footer><p>Harbour office, open daily.</p></footer></body></html>`
	out, err := extractHTML(t, page)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"warm up on land first", "carry a spare layer", "never row alone after dusk", "spring races"} {
		if !strings.Contains(out.Text, want) {
			t.Errorf("missing %q in %q", want, out.Text)
		}
	}
	if strings.Contains(out.Text, "Summer regatta results") {
		t.Errorf("related links kept: %q", out.Text)
	}
}
