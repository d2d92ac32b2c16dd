package extract_test

import (
	"strings"
	"testing"
)

const faqLD = `<script type="application/ld+json">{"@context":"https://schema.org","@type":"FAQPage","mainEntity":[
{"@type":"Question","name":"When is the bar safe to cross?","acceptedAnswer":{"@type":"Answer","text":"<p>Two hours either side of high water, in settled weather.</p>"}},
{"@type":"Question","name":"Do I need a pilot?","acceptedAnswer":{"@type":"Answer","text":"Vessels over twenty metres must take one."}},
{"@type":"Question","name":"Where can I moor overnight?","acceptedAnswer":{"@type":"Answer","text":"At the visitors' pontoon below the harbour office."}}]}</script>`

// An FAQ the page shows, and declares in its structured data, is kept
// when the extraction judged its block furniture; an FAQ the page only
// declares is not content.
func TestFAQCompletedFromStructuredData(t *testing.T) {
	body := ""
	for _, w := range []string{"Spring tides rise highest at the full moon", "Neap tides follow the quarter moons", "Storm surges add to both", "Sea walls were raised in the last decade"} {
		body += `<p>` + w + `, and the tide tables for the estuary are printed each spring by the harbour office, which sends them to every pilot.</p>`
	}
	shown := `<div class="faq-widget"><h3><button>When is the bar safe to cross?</button></h3><div hidden>Two hours either side of high water, in settled weather.</div>` +
		`<h3><button>Do I need a pilot?</button></h3><div hidden>Vessels over twenty metres must take one.</div>` +
		`<h3><button>Where can I moor overnight?</button></h3><div hidden>At the visitors' pontoon below the harbour office.</div></div>`
	page := `<html><head><title>Crossing the bar</title>` + faqLD + `</head><body><nav><a href="/">Home</a></nav><article><h1>Crossing the bar</h1>` + body + shown + `</article></body></html>`
	out, err := extractHTML(t, page)
	if err != nil {
		t.Fatal(err)
	}
	wantIn(t, out.Text, "When is the bar safe to cross?", "Two hours either side of high water", "Where can I moor overnight?", "visitors' pontoon")

	page = `<html><head><title>Crossing the bar</title>` + faqLD + `</head><body><article><h1>Crossing the bar</h1>` + body + `</article></body></html>`
	out, err = extractHTML(t, page)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.Text, "Do I need a pilot?") {
		t.Errorf("FAQ the page does not show was added: %q", out.Text)
	}
}
