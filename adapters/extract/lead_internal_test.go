package extract

import (
	"strings"
	"testing"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// leadsOf parses page and returns the texts of the leads found above the
// element with id "first".
func leadsOf(t *testing.T, page string) []string {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	var first *html.Node
	elements(doc, func(n *html.Node) bool {
		if attr(n, "id") == "first" {
			first = n
		}
		return first == nil
	})
	var out []string
	for _, l := range leadsBefore(first, findFirst(doc, atom.Body)) {
		out = append(out, innerText(l))
	}
	return out
}

// A long standfirst (two paragraphs, together over a thousand characters)
// in the article's header is the article's lead, as a short one is; a
// header as large holding a row of teaser paragraphs is not.
func TestLongStandfirstIsLead(t *testing.T) {
	one := strings.Repeat("The estuary has changed more in the last ten years than in the century before, and pilots have had to learn it again. ", 4)
	two := strings.Repeat("Charts are redrawn twice a year now, where once a decade was enough for every harbour on the coast. ", 5)
	body := `<div class="story"><div class="story-body"><p id="first">Spring tides rise highest at the full moon, and the tide tables are printed each spring.</p></div></div>`
	page := `<html><body><article><div class="hdr"><h1>The changing estuary</h1><p>` + one + `</p><p>` + two + `</p><span>12 March</span></div>` + body + `</article></body></html>`
	if got := leadsOf(t, page); len(got) != 2 || !strings.HasPrefix(got[0], "The estuary") || !strings.HasPrefix(got[1], "Charts") {
		t.Errorf("leads = %q", got)
	}
	teasers := ""
	for _, w := range []string{"The lighthouse keeper", "The ferry timetable", "The lifeboat crew", "The fish market", "The shipyard", "The sailing school", "The coastguard", "The marina"} {
		teasers += `<p>` + w + ` is a story from another part of the coast that the harbour office keeps in its archive.</p>`
	}
	page = `<html><body><article><div class="hdr"><h1>The changing estuary</h1>` + teasers + `</div>` + body + `</article></body></html>`
	if got := leadsOf(t, page); len(got) != 0 {
		t.Errorf("teasers taken as leads: %q", got)
	}
}
