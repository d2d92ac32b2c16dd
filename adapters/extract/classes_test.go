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

// A standfirst set in the article's header, above the body's wrapper, is
// read with the body; the byline and date beside it are not.
func TestStandfirstAboveBodyKept(t *testing.T) {
	lead := `Harbour pilots will read the new tide tables from March, after a winter of surveys showed the old ones running late.`
	for i, head := range []string{
		`<header><h1>New tide tables</h1><p class="standfirst">` + lead + `</p><div class="byline">By Ann Reed</div><time>3 March</time></header>`,
		`<h1>New tide tables</h1><p class="intro">` + lead + `</p><span>3 March</span>`,
		`<header><h2>New tide tables</h2><p>` + lead + `</p><figure><img src="/harbour.jpg"></figure></header>`,
	} {
		page := `<html><head><title>New tide tables</title></head><body><nav><a href="/">Home</a></nav><main><article>` + head +
			`<div class="article-body">` + para("Spring tide") + para("Neap tide") + para("Storm surge") + `</div></article></main></body></html>`
		out, err := extractHTML(t, page)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(out.Text, lead) {
			t.Errorf("standfirst missing: %q", out.Text)
		}
		if i == 0 && (strings.Contains(out.Text, "Ann Reed") || strings.Contains(out.Text, "3 March")) {
			t.Errorf("byline read: %q", out.Text)
		}
	}
}

// A page that draws its content with scripts from the structured data it
// declares is read from that data: the product's description, as HTML.
func TestStructuredDataContent(t *testing.T) {
	ld := `{"@context":"https://schema.org","@graph":[{"@type":"Organization","description":"A coffee roaster since 2012, with shops in four towns and a van at the market."},` +
		`{"@type":"Product","name":"Dark roast","description":"\u003ch4\u003eDarker roast for bolder days.\u003c/h4\u003e\u003cp\u003eA bold dark roast with notes of chocolate and black cherry, roasted in small batches and never bitter.\u003c/p\u003e"}]}`
	page := `<html><head><title>Dark roast</title><script type="application/ld+json">` + ld + `</script></head><body><nav><a href="/">Shop</a> <a href="/cart">Cart</a></nav><div id="app"></div><footer>Roasted with care in Leeds. Questions? Write to us any day of the week.</footer></body></html>`
	out, err := extractHTML(t, page)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.Text, "Darker roast for bolder days.") || !strings.Contains(out.Text, "A bold dark roast with notes") || strings.Contains(out.Text, "coffee roaster since") {
		t.Errorf("text %q", out.Text)
	}
	// Structured data describing only the site is not content.
	site := `<html><head><title>Roaster</title><script type="application/ld+json">{"@type":"Organization","description":"A coffee roaster since 2012, with shops in four towns and a van at the market on Saturdays."}</script></head><body><div id="app"></div></body></html>`
	if out, err := extractHTML(t, site); err == nil {
		t.Errorf("site description read as content: %q", out.Text)
	}
}

// A caption set below its photo above the body is not a standfirst.
func TestCaptionAboveBodyIsNotALead(t *testing.T) {
	caption := `The harbour office at dawn, where the pilots read the tide tables before every crossing of the bar.`
	page := `<html><head><title>Tides</title></head><body><main><article><h1>Tides</h1><div class="image"><img src="/office.jpg"><p>` + caption +
		`</p></div><div class="article-body">` + para("Spring tide") + para("Neap tide") + para("Storm surge") + para("Ebb") + para("Flood") + para("Slack water") + `</div></article></main></body></html>`
	out, err := extractHTML(t, page)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.Text, "The harbour office at dawn") {
		t.Errorf("caption read as a lead: %q", out.Text)
	}
}
