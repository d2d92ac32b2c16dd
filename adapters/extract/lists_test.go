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
	wantIn(t, out.Text, "warm up on land first", "carry a spare layer", "never row alone after dusk", "spring races")
	if strings.Contains(out.Text, "Summer regatta results") {
		t.Errorf("related links kept: %q", out.Text)
	}
}

// A list of linked titles that a sentence of the article announces,
// ending with a colon, is what the sentence goes on to say; the same list
// under a label ("Related:") is still navigation.
func TestAnnouncedLinkListKept(t *testing.T) {
	para := func(words string) string {
		return `<p>` + words + `, which the maintainers described at length in their monthly report to the project's users.</p>`
	}
	list := func(prefix string) string {
		return `<div class="ulist"><ul><li><p><a href="/pr/1">` + prefix + `: support floating point types</a></p></li>` +
			`<li><p><a href="/pr/2">` + prefix + `: allow casts between integers and pointers</a></p></li>` +
			`<li><p><a href="/pr/3">` + prefix + `: add the weak variable attribute</a></p></li></ul></div>`
	}
	page := `<html><head><title>Compiler progress</title></head><body><nav><a href="/">Home</a><a href="/blog">Blog</a></nav><article><h1>Compiler progress</h1>` +
		para("There has been good progress on the backend these past months") + `<div class="paragraph"><p>Many patches were sent for review:</p></div>` + list("jit") +
		para("Most of them were merged within a week") + para("The next release will carry all of them") +
		`<p>Related:</p>` + list("older") + `</article></body></html>`
	out, err := extractHTML(t, page)
	if err != nil {
		t.Fatal(err)
	}
	wantIn(t, out.Text, "jit: support floating point types", "jit: add the weak variable attribute", "next release")
	if strings.Contains(out.Text, "older: support") {
		t.Errorf("list under a label kept: %q", out.Text)
	}
}
