package extract_test

import (
	"strings"
	"testing"
)

// A code block inside a quote stays inside it: every line of the block
// carries the quote's "> ".
func TestMarkdownCodeInQuote(t *testing.T) {
	page := `<html><body><article>` + prose + `<blockquote><pre>if ($slow) {
    limit_rate 10k;
}</pre></blockquote>` + prose + `</article></body></html>`
	out, err := extractHTML(t, page)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.Markdown, "> ```\n> if ($slow) {\n>     limit_rate 10k;\n> }\n> ```") {
		t.Errorf("code block left the quote: %q", out.Markdown)
	}
}

// Text in a quote that starts a line with what reads as a list marker or a
// heading mark is escaped, so it stays text.
func TestMarkdownQuotedMarkersEscaped(t *testing.T) {
	page := `<html><body><article>` + prose + `<blockquote>Shortlist:<br><br>1. Do they meet your needs?<br><br>- Is support there?<br># tagged</blockquote>` +
		prose + `</article></body></html>`
	out, err := extractHTML(t, page)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"> 1\\. Do they meet", "> \\- Is support", "> \\# tagged"} {
		if !strings.Contains(out.Markdown, want) {
			t.Errorf("lacks %q: %q", want, out.Markdown)
		}
	}
}

// Tables are GFM tables with a header row: the first row when the page has
// no <th>; a cell with line breaks or paragraphs stays one cell; a cell
// spanning columns is repeated in each.
func TestMarkdownTables(t *testing.T) {
	page := `<html><body><article>` + prose + `<table>
<tr><td>Year</td><td>Physics</td><td>Chemistry</td></tr>
<tr><td>1901</td><td>Röntgen<br>(Germany)</td><td><p>van 't Hoff</p><p>(Netherlands)</p></td></tr>
<tr><td>1916</td><td colspan="2">Not awarded</td></tr>
</table>` + prose + `</article></body></html>`
	out, err := extractHTML(t, page)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| Year ", "\n|---",
		"| 1901 | Röntgen (Germany) | van 't Hoff (Netherlands) |",
		"| 1916 | Not awarded       | Not awarded               |",
	} {
		if !strings.Contains(out.Markdown, want) {
			t.Errorf("lacks %q:\n%s", want, out.Markdown)
		}
	}
	if strings.Contains(out.Markdown, "|  |") || strings.Contains(out.Markdown, "<br") {
		t.Errorf("empty header or HTML in the table:\n%s", out.Markdown)
	}
}

// A run of asterisks in the text stays text: every one is escaped.
func TestMarkdownAsteriskRuns(t *testing.T) {
	page := `<html><body><article>` + prose + `<p><strong>– Ni** My****</strong> said so.</p>` + prose + `</article></body></html>`
	out, err := extractHTML(t, page)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.Markdown, `**– Ni\*\* My\*\*\*\*** said so.`) {
		t.Errorf("asterisks: %q", out.Markdown)
	}
}

// An image's alt text is written on one line without the page's padding.
func TestMarkdownImageAlt(t *testing.T) {
	page := `<html><body><article>` + prose + `<img src="/p.jpg" alt=" A hospital
 in Beijing ">` + prose + `</article></body></html>`
	out, err := extractHTML(t, page)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.Markdown, "![A hospital in Beijing](https://") {
		t.Errorf("image: %q", out.Markdown)
	}
}
