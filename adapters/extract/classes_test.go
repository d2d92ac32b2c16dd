package extract_test

import (
	"strings"
	"testing"
)

// A link wrapped in spans, or in a span inside emphasis, mid-sentence is
// part of the sentence: the words around it stay joined.
func TestNestedInlineLinkKeptMidSentence(t *testing.T) {
	cases := []string{
		`<p>The almanac, which <em><span class="ref"><a href="/pilots">the harbour pilots</a></span></em> read each spring, prints the figures.</p>`,
		`<p>The almanac, which <span class="inline"><span><a href="/pilots">the harbour pilots</a></span></span> read each spring, prints the figures.</p>`,
		`<p>The almanac, which <strong><span><a href="/pilots">the harbour pilots</a></span></strong> read each spring, prints the figures.</p>`,
	}
	for _, c := range cases {
		page := `<html><head><title>Tides</title></head><body><article>` + para("Spring tide") + c + para("Neap tide") + para("Storm surge") + `</article></body></html>`
		out, err := extractHTML(t, page)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.Text, "which the harbour pilots read each spring") {
			t.Errorf("sentence broken: %q", out.Text)
		}
	}
}

// A pull quote repeats a sentence of the article in large type: it is
// read once, where the article says it.
func TestPullQuoteReadOnce(t *testing.T) {
	quote := "are printed in the almanac each spring"
	for _, pull := range []string{
		`<blockquote class="pullquote"><p>` + quote + `</p></blockquote>`,
		`<figure><blockquote>` + quote + `</blockquote></figure>`,
		`<aside><p>` + quote + `</p></aside>`,
	} {
		page := `<html><head><title>Tides</title></head><body><article>` + para("Spring tide") + pull + para("Neap tide") + para("Storm surge") + `</article></body></html>`
		out, err := extractHTML(t, page)
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(out.Text, quote); n != 3 { // once in each paragraph
			t.Errorf("quote read %d times, want 3: %q", n, out.Text)
		}
	}
	// A quotation that the article does not repeat stays.
	own := `<blockquote><p>We read the tide tables before every crossing, whatever the weather says.</p></blockquote>`
	page := `<html><head><title>Tides</title></head><body><article>` + para("Spring tide") + own + para("Neap tide") + para("Storm surge") + `</article></body></html>`
	out, err := extractHTML(t, page)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.Text, "We read the tide tables") {
		t.Errorf("quotation dropped: %q", out.Text)
	}
}
