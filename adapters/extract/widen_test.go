package extract_test

import (
	"strings"
	"testing"
)

// An article whose sections each sit in their own nested wrapper, with a
// figure between them, is gathered whole, not just its best section.
func TestBodySplitAcrossSiblingWrappers(t *testing.T) {
	section := func(n int, words string) string {
		return `<section class="row"><div class="container"><div class="block-row"><div class="block-col"><div class="text-widget"><div class="text-inner"><h2>Part ` + string(rune('A'+n)) + `</h2>` +
			`<p>` + words + `, and the tide tables for the estuary are printed each spring by the harbour office.</p>` +
			`<p>` + words + ` again, because the pilots read them twice before every crossing of the bar.</p></div></div></div></div></div></section>` +
			`<div class="block-row"><div class="block-col"><figure><img src="/x.jpg"></figure></div></div>`
	}
	page := `<html><head><title>Tides</title></head><body><header><nav><a href="/">Home</a><a href="/news">News</a></nav></header><div class="site"><div class="page-builder">` +
		section(0, "Spring tides rise highest at the full moon") + section(1, "Neap tides follow the quarter moons") +
		section(2, "Storm surges add to both") + section(3, "Sea walls were raised in the last decade") +
		`</div></div><footer><p>Harbour office, open daily.</p></footer></body></html>`
	out, err := extractHTML(t, page)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Spring tides", "Neap tides", "Storm surges", "Sea walls"} {
		if !strings.Contains(out.Text, want) {
			t.Errorf("missing %q in %q", want, out.Text)
		}
	}
	if strings.Contains(out.Text, "Harbour office, open daily") {
		t.Errorf("footer kept: %q", out.Text)
	}
}

// A page that serves its content to readers without scripts inside
// <noscript> (forum software does) keeps it; a "please enable JavaScript"
// notice in <noscript> stays out.
func TestContentServedInNoscript(t *testing.T) {
	post := func(who, words string) string {
		return `<div class="crawler-post"><span class="creator">` + who + `</span><div class="post"><p>` + words + `</p></div></div>`
	}
	page := `<html><head><title>Thread</title><noscript><style>.js{display:none}</style></noscript></head><body>` +
		`<noscript><p>Please enable JavaScript.</p></noscript><div id="app"></div><noscript><div id="main-outlet"><h1>Rowing in cold water</h1>` +
		post("ana", "I have rowed through two winters now, and the hardest part is the first ten minutes, before the hands warm up.") +
		post("ben", "Gloves with open palms helped me, and so did a longer warm-up on the erg before going out on the river.") +
		post("cy", "We keep a thermos in the boathouse, because the walk back after a cold outing is longer than it looks.") +
		`</div></noscript></body></html>`
	out, err := extractHTML(t, page)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"two winters", "open palms", "thermos"} {
		if !strings.Contains(out.Text, want) {
			t.Errorf("missing %q in %q", want, out.Text)
		}
	}
	if strings.Contains(out.Text, "enable JavaScript") {
		t.Errorf("notice kept: %q", out.Text)
	}
}

// Repeated wrappers named like furniture ("widget") that hold the article's
// text are its structure and are kept; a lone one with a byline is not.
func TestRepeatedWrappersNamedLikeFurnitureAreKept(t *testing.T) {
	box := func(words string) string {
		return `<div class="widget-box"><p>` + words + `, which the survey team recorded along the whole length of the northern shore, mile by mile.</p></div>`
	}
	page := `<html><head><title>Survey</title></head><body><article><div class="entry">` +
		`<div class="author-meta">Written by Dana Reyes</div>` +
		box("Dunes moved four metres inland") + box("Two new channels opened in the marsh") + box("Oyster beds recovered near the point") +
		box("The old pier lost three pilings in the storm") + `</div></article></body></html>`
	out, err := extractHTML(t, page)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Dunes moved", "new channels", "Oyster beds", "old pier"} {
		if !strings.Contains(out.Text, want) {
			t.Errorf("missing %q in %q", want, out.Text)
		}
	}
	if strings.Contains(out.Text, "Dana Reyes") {
		t.Errorf("byline kept: %q", out.Text)
	}
}

// A collection page is its items, though every item is a link: the grid
// of products is the content, the menu and the footer are not.
func TestCollectionOfLinkedItemsIsTheContent(t *testing.T) {
	item := func(name, price string) string {
		return `<li class="product-card"><a href="/p/` + price + `"><img src="/i.jpg" alt=""><h3 class="card-title">` + name + `</h3></a><div class="card-price"><a href="/p/` + price + `">$` + price + `</a></div></li>`
	}
	page := `<html><head><title>Headphones</title></head><body><header><ul class="menu"><li><a href="/a">Audio</a></li><li><a href="/b">Video</a></li><li><a href="/c">Sale</a></li></ul></header>` +
		`<main><h1>Headphones</h1><p>24 products</p><ul class="product-grid">` +
		item("Studio monitor headphones, closed back", "199") + item("Wireless noise-cancelling headphones", "349") +
		item("Open-back reference headphones", "499") + item("In-ear monitors with three drivers", "259") +
		item("Foldable travel headphones", "89") + item("Bone-conduction sports headphones", "129") +
		item("Kids' volume-limited headphones", "39") + item("Planar magnetic headphones, open back", "899") + `</ul></main><footer><a href="/help">Help</a> <a href="/jobs">Jobs</a></footer></body></html>`
	out, err := extractHTML(t, page)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Studio monitor headphones", "Open-back reference", "Foldable travel", "$349"} {
		if !strings.Contains(out.Text, want) {
			t.Errorf("missing %q in %q", want, out.Text)
		}
	}
	for _, not := range []string{"Jobs", "Video"} {
		if strings.Contains(out.Text, not) {
			t.Errorf("chrome %q kept: %q", not, out.Text)
		}
	}
}
