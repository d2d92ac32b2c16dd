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
	wantIn(t, out.Text, "Spring tides", "Neap tides", "Storm surges", "Sea walls")
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
	wantIn(t, out.Text, "two winters", "open palms", "thermos")
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
	wantIn(t, out.Text, "Dunes moved", "new channels", "Oyster beds", "old pier")
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
	wantIn(t, out.Text, "Studio monitor headphones", "Open-back reference", "Foldable travel", "$349")
	for _, not := range []string{"Jobs", "Video"} {
		if strings.Contains(out.Text, not) {
			t.Errorf("chrome %q kept: %q", not, out.Text)
		}
	}
}

// A service page is several parts (an introduction, the services, the
// reasons to choose them, the area served): all of them are its content.
func TestServicePageKeepsAllItsParts(t *testing.T) {
	// Each part sits in the wrappers a page builder adds.
	wrap := func(section string) string {
		i := strings.Index(section, ">") + 1
		return section[:i] + `<div class="container"><div class="row"><div class="col"><div class="inner">` + section[i:len(section)-len("</section>")] + `</div></div></div></div></section>`
	}
	page := `<html><head><title>Harbour Roofing</title></head><body><nav><a href="/">Home</a><a href="/about">About</a><a href="/contact">Contact</a></nav><main>` +
		`` + wrap(`<section class="hero"><h1>Roof repairs in the harbour district</h1><p>Family roofers since 1982.</p></section>`) +
		`` + wrap(`<section class="services"><h2>What we do</h2><ul><li><h3>Slate roofs</h3>Replacement slates matched to the old ones, fixed with copper nails.</li>`+
		`<li><h3>Flat roofs</h3>Membranes laid in a day, with a ten-year guarantee.</li><li><h3>Gutters</h3>Cleared, mended or replaced in cast iron or aluminium.</li>`+
		`<li><h3>Chimneys</h3>Repointed, capped and flashed, with scaffolding included in the price.</li>`+
		`<li><h3>Skylights</h3>Fitted or resealed, in timber or uPVC frames, with blinds if you want them.</li>`+
		`<li><h3>Lead work</h3>Valleys, flashings and bays dressed by hand in code five lead.</li>`+
		`<li><h3>Fascias and soffits</h3>Rotten boards cut out and replaced, painted or clad.</li>`+
		`<li><h3>Storm damage</h3>Emergency cover the same day, and the insurance paperwork done for you.</li>`+
		`<li><h3>Surveys</h3>A written report with photographs of every slope, valley and chimney.</li></ul></section>`) +
		`` + wrap(`<section class="why"><h2>Why choose us</h2><p>We give a fixed price before we start, we clear up every evening, and we answer the phone.</p>`+
		`<p>Every roofer on our team is trained and insured, and the work is guaranteed in writing, whatever the size of the job, from a single slate to a whole roof, in town or on the coast.</p>`+
		`<p>We have worked on the harbour's listed buildings for forty years, and we know the old lime mortars, the local slate and the ways water finds into a roof that has stood through a hundred winters of salt wind and rain.</p></section>`) +
		`` + wrap(`<section class="area"><h2>Where we work</h2><p>The harbour, the old town and the villages along the estuary.</p></section>`) +
		`</main><footer><p>Harbour Roofing Ltd, registered in England.</p><a href="/privacy">Privacy</a></footer></body></html>`
	out, err := extractHTML(t, page)
	if err != nil {
		t.Fatal(err)
	}
	wantIn(t, out.Text, "Family roofers", "Slate roofs", "ten-year guarantee", "fixed price", "villages along the estuary")
	for _, not := range []string{"registered in England", "Privacy", "Contact"} {
		if strings.Contains(out.Text, not) {
			t.Errorf("chrome %q kept: %q", not, out.Text)
		}
	}
}

// A page where no block reads as main content but which shows text (a
// table of linked records under a one-line notice) answers that text, not
// "no main content".
func TestNoProseBlockFallsBackToThePage(t *testing.T) {
	rows := ""
	for _, r := range []string{"Harbour master's log, volume one", "Harbour master's log, volume two", "Register of pilots and their boats",
		"Tide gauge readings of the inner basin", "Accounts of the dredging company", "Letters on the new lighthouse"} {
		rows += `<tr><td><a href="/r/` + r[:4] + `">` + r + `</a></td><td>1898</td></tr>`
	}
	page := `<html><head><title>Records</title></head><body><div class="notice"><div><p>Catalogue updated on 3 May.</p></div></div>` +
		`<div class="records"><table>` + rows + `</table></div></body></html>`
	out, err := extractHTML(t, page)
	if err != nil {
		t.Fatal(err)
	}
	wantIn(t, out.Text, "volume one", "Register of pilots", "new lighthouse")
}

// A link wrapped in a <span> inside a sentence stays in the sentence,
// however much of the span is link and whatever its words are.
func TestInlineSpansInsideSentencesAreKept(t *testing.T) {
	page := `<html><head><title>Tides</title></head><body><article>` + prose +
		`<p>The readings are published by <span class="link"><a href="/office">the harbour office</a></span> every morning, and the app shows them under <span>Share</span> as a card you can send.</p>` +
		prose + `</article></body></html>`
	out, err := extractHTML(t, page)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.Text, "published by the harbour office every morning") || !strings.Contains(out.Text, "under Share as a card") {
		t.Errorf("sentence broken: %q", out.Text)
	}
}

// A code block keeps its language from the page's class in the Markdown
// fence, and its whitespace.
func TestCodeBlockLanguageInMarkdown(t *testing.T) {
	page := `<html><head><title>Docs</title></head><body><article>` + prose +
		`<pre class="highlight"><code class="hljs language-go">func main() {
	fmt.Println("tide")
}</code></pre><div class="highlight highlight-source-python"><pre>print("tide")</pre></div>` + prose + `</article></body></html>`
	out, err := extractHTML(t, page)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.Markdown, "```go\nfunc main() {\n\tfmt.Println(\"tide\")\n}\n```") {
		t.Errorf("go block: %q", out.Markdown)
	}
	if !strings.Contains(out.Markdown, "```python\nprint(\"tide\")\n```") {
		t.Errorf("python block: %q", out.Markdown)
	}
	if strings.Contains(out.HTML, "hljs") || strings.Contains(out.HTML, "highlight") {
		t.Errorf("page classes kept: %q", out.HTML)
	}
}

// Content streamed by React's server rendering arrives in a hidden
// <div id="S:0"> that the page's script shows in place of its loading
// fallback: it is read. Any other hidden block is not.
func TestStreamedSegmentRead(t *testing.T) {
	page := `<html><head><title>Guide</title></head><body><main><template id="B:0"></template><p>Loading…</p></main>` +
		`<div hidden id="S:0"><main><article>` + prose + prose + `</article></main></div>` +
		`<div hidden id="menu"><p>Secret drawer text that nobody sees on the page, long enough to count as prose, really.</p></div></body></html>`
	out, err := extractHTML(t, page)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.Text, "Ocean currents carry heat") {
		t.Errorf("streamed content lost: %q", out.Text)
	}
	if strings.Contains(out.Text, "Secret drawer") {
		t.Errorf("hidden block kept: %q", out.Text)
	}
}
