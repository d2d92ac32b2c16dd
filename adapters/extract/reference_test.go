package extract_test

import (
	"strings"
	"testing"
)

// referencePage is a page of documentation: an introduction, then
// sections whose headings the generator names and links to themselves,
// with definition lists of linked terms and their descriptions.
func referencePage(headingClass, permalink string, terms string) string {
	heading := func(id, text string) string {
		inner := text
		if permalink != "" {
			inner = `<a class="` + permalink + `" href="#` + id + `">` + text + `</a>`
		}
		return `<h2 id="` + id + `" class="` + headingClass + `">` + inner + `</h2>`
	}
	return `<html><head><title>Kettle</title></head><body><nav><a href="/">Home</a><a href="/docs">Docs</a><a href="/api">API</a></nav>` +
		`<main><h1>Kettle</h1><p>The Kettle interface boils water for the page that asks for it, and tells the page, through events, when the water is ready to pour.</p>` +
		`<p>A page makes one kettle per pot; each kettle keeps its own temperature, its own timer, and the list of listeners it calls once the water boils.</p>` +
		`<section>` + heading("instance_properties", "Instance properties") + terms + `</section>` +
		`<section>` + heading("instance_methods", "Instance methods") +
		`<dl><dt><a href="/api/kettle/boil"><code>Kettle.boil()</code></a></dt><dd><p>Starts heating.</p></dd>` +
		`<dt><a href="/api/kettle/stop"><code>Kettle.stop()</code></a></dt><dd><p>Stops the heating at once.</p></dd></dl></section>` +
		`</main><footer><p>Docs licence.</p></footer></body></html>`
}

const kettleTerms = `<dl><dt><a href="/api/kettle/temperature"><code>Kettle.temperature</code></a></dt><dd><p>The water's temperature.</p></dd>` +
	`<dt><a href="/api/kettle/level"><code>Kettle.level</code></a></dt><dd><p>How full the kettle is.</p></dd></dl>`

// A definition list of linked terms, each described by text of its own (an
// API reference's methods), is the page's content however short its
// descriptions; a list of bare links is still dropped.
func TestDescribedTermsKept(t *testing.T) {
	cases := []struct {
		name, terms string
		want        []string
		notWant     string
	}{
		{"described terms", kettleTerms, []string{"The water's temperature.", "How full the kettle is.", "Starts heating.", "Stops the heating at once."}, ""},
		{"terms without descriptions", `<dl><dt><a href="/api/kettle/temperature">Kettle temperature reference</a></dt><dd><a href="/t">see the page</a></dd>` +
			`<dt><a href="/api/kettle/level">Kettle level reference</a></dt><dd><a href="/l">see the page</a></dd></dl>`,
			[]string{"Starts heating."}, "Kettle level reference"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := extractHTML(t, referencePage("heading", "", c.terms))
			if err != nil {
				t.Fatal(err)
			}
			wantIn(t, out.Text, c.want...)
			if c.notWant != "" && strings.Contains(out.Text, c.notWant) {
				t.Errorf("link list kept: %q", out.Text)
			}
		})
	}
}

// A heading whose text is a link to itself (its permalink) is not a link
// to elsewhere: the section it titles is not judged a list of links, and
// the heading stays.
func TestHeadingPermalinkIsNoLink(t *testing.T) {
	out, err := extractHTML(t, referencePage("heading", "heading-anchor", kettleTerms))
	if err != nil {
		t.Fatal(err)
	}
	wantIn(t, out.Markdown, "## Instance methods", "Stops the heating at once.")
}

// A heading named a "header" (documentation generators' "section-header")
// is its section's heading when text follows it; one above a list of links
// is chrome as any block so named.
func TestHeadingNamedHeader(t *testing.T) {
	out, err := extractHTML(t, referencePage("section-header", "", kettleTerms))
	if err != nil {
		t.Fatal(err)
	}
	wantIn(t, out.Markdown, "## Instance properties", "## Instance methods")

	page := `<html><head><title>Ferry</title></head><body><main><article><h1>Ferry</h1>` +
		strings.Repeat(`<p>The morning ferry leaves the harbour at seven, and the crossing takes an hour in fair weather, longer when the wind turns.</p>`, 4) +
		`<h3 class="block-header">More topics</h3><ul><li><a href="/a">Harbour works begin</a></li><li><a href="/b">New timetable</a></li><li><a href="/c">Fares rise</a></li></ul>` +
		`</article></main></body></html>`
	out, err = extractHTML(t, page)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.Text, "More topics") {
		t.Errorf("heading of links kept: %q", out.Text)
	}
}

// A section whose id is its heading's text made a slug is named by its
// title, whatever words the title holds ("Respond to review comments"):
// the name rules judge its class, not that id.
func TestSectionIDFromItsHeading(t *testing.T) {
	section := func(id, title, text string) string {
		return `<section id="` + id + `"><h2>` + title + `<a class="headerlink" href="#` + id + `">¶</a></h2><p>` + text + `</p></section>`
	}
	prose := "Send the patch as plain text in the body of the mail, so that reviewers can quote it line by line in their replies"
	page := `<html><head><title>Sending patches</title></head><body><div class="body" role="main"><h1>Sending patches</h1>` +
		section("describe-your-changes", "Describe your changes", prose+", and describe the problem first.") +
		section("respond-to-review-comments", "Respond to review comments", "Answer every reviewer, thank them for their time, and say what the next version changes.") +
		section("style-check", "Style check", prose+", after running the style checker.") +
		`</div><div id="comments"><h3>Leave a comment</h3><p>Comments are moderated and may take a day to appear on this page.</p></div></body></html>`
	out, err := extractHTML(t, page)
	if err != nil {
		t.Fatal(err)
	}
	wantIn(t, out.Markdown, "## Respond to review comments", "thank them for their time")
	if strings.Contains(out.Text, "Comments are moderated") {
		t.Errorf("comment block kept: %q", out.Text)
	}
}

// A list after a paragraph or a heading whose items say in words of their
// own what they link to is the page's guide to further reading; a list of
// bare linked titles in the same places is still dropped.
func TestDescribedLinksKept(t *testing.T) {
	intro := `<p>The warehouse stores data in columns, replicated across several places so that it stays available when one of them fails.</p>`
	next := `<ul><li>To learn how tables are stored, see <a href="/docs/storage">Storage of tables and their columns</a>.</li>` +
		`<li>To learn how queries are billed, see <a href="/docs/pricing">Pricing of queries and storage</a>.</li></ul>`
	bareNext := `<ul><li><a href="/docs/storage">Storage of tables and their columns</a></li><li><a href="/docs/pricing">Pricing of queries and storage</a></li></ul>`
	cases := []struct {
		name, list, next string
		kept             bool
	}{
		{"described", `<ul><li><a href="/docs/datasets">Datasets, the top-level container</a> of tables and views.</li>` +
			`<li><a href="/docs/transfer">Learn how the transfer service works</a> to load data nightly.</li>` +
			`<li><a href="/docs/stream">Stream data with the write interface</a> as the rows arrive.</li></ul>`, next, true},
		{"bare titles", `<ul><li><a href="/docs/datasets">Datasets, the top-level container</a></li>` +
			`<li><a href="/docs/transfer">Transfer service automates the loading</a></li>` +
			`<li><a href="/docs/stream">Streaming writes rows as they arrive</a></li></ul>`, bareNext, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			page := `<html><head><title>Warehouse</title></head><body><nav><a href="/">Home</a><a href="/docs">Docs</a></nav><main><h1>Warehouse</h1>` +
				`<p>The warehouse answers questions over large tables in seconds, and charges for the data each question reads.</p>` +
				`<h2>Storage</h2>` + intro + c.list + `<h2>What to read next</h2>` + c.next +
				`<h2>Queries</h2><p>Queries are written in SQL, and the warehouse plans them across many machines, which read the columns they need.</p>` +
				`</main></body></html>`
			out, err := extractHTML(t, page)
			if err != nil {
				t.Fatal(err)
			}
			wantIn(t, out.Text, "replicated across several places", "Queries are written in SQL")
			if got := strings.Contains(out.Text, "Datasets, the top-level container"); got != c.kept {
				t.Errorf("list kept %v, want %v: %q", got, c.kept, out.Text)
			}
			if got := strings.Contains(out.Text, "Pricing of queries and storage"); got != c.kept {
				t.Errorf("list under a heading kept %v, want %v: %q", got, c.kept, out.Text)
			}
		})
	}
}

// A heading whose text is set in wrappers (an attribute's name and type in
// spans inside a div) keeps all of it: the cleaning judges the heading
// whole, not its short unpunctuated parts.
func TestHeadingPartsKept(t *testing.T) {
	attr := func(name, typ, desc string) string {
		return `<li><h4><div><span><span>` + name + `</span></span> <span>` + typ + `</span></div></h4><div><p>` + desc + `</p></div></li>`
	}
	page := `<html><head><title>Charge</title></head><body><main><h1>The charge object</h1>` +
		`<p>A charge is one attempt to move money into the account, made by a payment or, for older integrations, directly.</p><h3>Attributes</h3><ul>` +
		attr("amount", "integer", "Amount intended to be collected, in the smallest unit of the currency.") +
		attr("currency", "string", "Three-letter code of the currency, in lower case.") +
		attr("captured", "boolean", "Whether the charge was captured, or only authorized so far.") +
		`</ul></main></body></html>`
	out, err := extractHTML(t, page)
	if err != nil {
		t.Fatal(err)
	}
	wantIn(t, out.Markdown, "#### amount integer", "#### currency string", "in the smallest unit")
}

// The page's revision line or licence at the foot of a documentation page
// ("Last updated", "This page was last modified", "Except as otherwise
// noted, the content of this page is licensed...") and what follows it
// are not the page's text; the same words opening the page are its dateline's, kept
// with the text below them.
func TestRevisionLineEndsThePage(t *testing.T) {
	var b strings.Builder
	for _, what := range []string{"water", "milk", "soup", "tea"} {
		b.WriteString(`<p>The kettle boils ` + what + ` for the page that asks for it, and tells the page, through events, when it is ready to pour into the pot.</p>`)
	}
	body := b.String()
	cases := []struct {
		name, page string
		gone       string
	}{
		{"at the foot", `<main><h1>Kettle</h1>` + body + `<p>Last updated 2025-12-18 UTC.</p><p>Licensed under the terms of the docs licence, which the project's site sets out.</p></main>`, "Last updated"},
		{"modified", `<main><h1>Kettle</h1>` + body + `<div>This page was last modified on Sep 25, 2024 by the contributors.</div></main>`, "last modified"},
		{"licence", `<main><h1>Kettle</h1>` + body + `<p>Except as otherwise noted, the content of this page is licensed under an open licence.</p><p>Licensed under the terms of the docs licence, which the project's site sets out.</p></main>`, "otherwise noted"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := extractHTML(t, `<html><head><title>Kettle</title></head><body>`+c.page+`</body></html>`)
			if err != nil {
				t.Fatal(err)
			}
			wantIn(t, out.Text, "ready to pour")
			if strings.Contains(out.Text, c.gone) || strings.Contains(out.Text, "docs licence") {
				t.Errorf("revision line kept: %q", out.Text)
			}
		})
	}
	out, err := extractHTML(t, `<html><head><title>Kettle</title></head><body><main><h1>Kettle</h1><p>Last updated 2025-12-18 UTC.</p>`+body+`</main></body></html>`)
	if err != nil {
		t.Fatal(err)
	}
	wantIn(t, out.Text, "ready to pour")
}
