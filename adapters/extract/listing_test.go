package extract_test

import (
	"fmt"
	"strings"
	"testing"
)

// listingPage is a category page: a paragraph of introduction, filters,
// sorting and pagination, and a grid of products, each a linked title, a
// price and a line of summary.
func listingPage(items int) string {
	var b strings.Builder
	b.WriteString(`<html><head><title>Garden pots</title></head><body><header><a href="/">Home</a></header>
<section class="hero"><div class="wrap"><div class="intro"><h1>Garden pots</h1><p>Our pots are thrown by hand in a small workshop, fired twice, and sealed inside so that they stand a hard winter outdoors without cracking.</p>
<p>Each one is signed by the potter who made it, and every glaze is mixed on site from clays dug within a day's drive, which is why no two pots are quite alike.</p></div></div></section>
<div class="products"><div class="filters"><ul><li><a href="?c=red">Red (4)</a></li><li><a href="?c=blue">Blue (7)</a></li><li><a href="?c=grey">Grey (2)</a></li></ul>
<select><option>Sort by price</option></select></div><div class="grid">`)
	for i := range items {
		fmt.Fprintf(&b, `<div class="tile"><a href="/p/%d"><img src="/i/%d.jpg" alt=""></a><a class="name" href="/p/%d">Terracotta planter number %d</a><span class="price">$%d.00</span><span class="note">Frost-proof, with a saucer</span></div>`, i, i, i, i, 20+i)
	}
	b.WriteString(`</div></div><ul class="pages"><li><a href="?p=1">1</a></li><li><a href="?p=2">2</a></li><li><a href="?p=3">3</a></li><li><a href="?p=4">Next</a></li></ul>
<footer><p>Copyright Garden Pots Ltd.</p></footer></body></html>`)
	return b.String()
}

// A board of stories whose rows are linked titles with a line of details
// keeps the titles: the cleaning of an article's body drops link-dense
// rows, the items of a listing are links.
func TestListingRowsKeepTheirLinkedTitles(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<html><head><title>New stories</title></head><body><table><tbody>`)
	for i := range 20 {
		fmt.Fprintf(&b, `<tr class="story"><td>%d.</td><td><span class="title"><a href="https://news.example/%d">Engineers rebuild the old lighthouse lens, part %d</a></span></td></tr>`+
			`<tr><td></td><td class="sub">%d points | <a href="/item/%d">%d comments</a></td></tr>`, i+1, i, i, i+3, i, i)
	}
	b.WriteString(`</tbody></table></body></html>`)
	out, err := extractHTML(t, b.String())
	if err != nil {
		t.Fatal(err)
	}
	wantIn(t, out.Text, "Engineers rebuild the old lighthouse lens, part 0", "part 19")
}

// A cookie-consent panel, however much prose it holds about purposes and
// partners, is not the content of the page beside it.
func TestConsentPanelIsNotContent(t *testing.T) {
	purpose := `<p>These cookies allow us to count visits and traffic sources so we can measure and improve the performance of our site, and they help us to know which pages are the most and least popular.</p>`
	page := `<html><head><title>Dinner recipes</title></head><body><h1>Dinner recipes</h1><p>Quick dinners for every night of the week.</p>` +
		listingPage(5)[strings.Index(listingPage(5), `<div class="grid">`):strings.Index(listingPage(5), `<ul class="pages">`)] +
		`<div id="privacy-consent-sdk"><div class="consent-banner"><h2>Your privacy</h2>` + strings.Repeat(purpose, 8) + `</div></div></body></html>`
	out, err := extractHTML(t, page)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.Text, "traffic sources") {
		t.Errorf("the consent panel was taken for the content: %q", out.Text)
	}
	wantIn(t, out.Text, "Terracotta planter number 4")
}

// A link wrapping a whole card (a heading over a summary) is written as a
// heading that links, followed by the summary: Markdown's links cannot
// hold headings.
func TestCardLinkKeepsItsHeading(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<html><head><title>Harbour news</title></head><body><main><h1>Harbour news</h1>`)
	for i := range 4 {
		fmt.Fprintf(&b, `<div class="card"><a href="/story/%d"><h2>The north wall is rebuilt, stage %d</h2><p>Masons replaced the old stones one by one, and the wall now stands a metre higher than before the storm.</p></a></div>`, i, i)
	}
	b.WriteString(`</main></body></html>`)
	out, err := extractHTML(t, b.String())
	if err != nil {
		t.Fatal(err)
	}
	wantIn(t, out.Markdown, "## [The north wall is rebuilt, stage 0](https://site.example/story/0)", "## [The north wall is rebuilt, stage 3](https://site.example/story/3)")
	if strings.Contains(out.Markdown, "**The north wall") {
		t.Errorf("a card's heading written as bold text in a link: %q", out.Markdown)
	}
}

// A grid of items above a block of the site's own prose (who the shop is,
// set at the foot of every page) is the page's content, though it holds
// less than twice that prose; the same grid below a blurb must hold twice
// its text to be taken (a story above a run of other stories).
func TestItemsAboveClosingBlurb(t *testing.T) {
	blurb := `<div class="about"><p>Harbour Pottery is a family workshop on the north quay, where we have thrown, fired and glazed pots by hand since 1950 for gardens, kitchens and windowsills across the country.</p>` +
		`<p>We send our catalogue each spring, and invite you to visit the workshop on any weekday to see the kilns at work and to choose a pot straight from the shelves.</p></div>`
	grid := func(items int) string {
		var b strings.Builder
		b.WriteString(`<div class="grid">`)
		for i := range items {
			fmt.Fprintf(&b, `<div class="tile"><a class="name" href="/p/%d"><span>Terracotta planter number %d</span></a><div class="sku">SKU: S59%d</div><div class="price">$%d.00</div></div>`, i, i, i, 20+i)
		}
		b.WriteString(`</div>`)
		return b.String()
	}
	cases := []struct {
		name, body string
		items      bool
	}{
		{"items above the blurb", grid(15) + blurb, true},
		{"items below the blurb", blurb + grid(15), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			page := `<html><head><title>Indoor pots</title></head><body><h1>Indoor pots</h1>` + c.body + `</body></html>`
			out, err := extractHTML(t, page)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(out.Text, "Terracotta planter number 14"); got != c.items {
				t.Errorf("items taken %v, want %v: %q", got, c.items, out.Text)
			}
		})
	}
}

// A table whose cells hold a linked name wrapped in spans keeps the names:
// a span that is only a link is navigation in running text, not in a cell.
func TestTableCellLinksKept(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<html><head><title>Lighthouse keepers</title></head><body><main><h1>Lighthouse keepers</h1>` +
		strings.Repeat(`<p>The two lights of the harbour were kept by families who lived beside them, and the harbour office kept a record of every keeper, his wages and the winters he served, which is where the names below come from.</p>`, 4) +
		`<p>The keepers of the north light are listed below by year, with the keeper of the south light beside them, from the records the harbour office kept.</p>` +
		`<table><tr><th>Year</th><th>North light</th><th>South light</th><th>Served</th></tr>`)
	for i := range 8 {
		fmt.Fprintf(&b, `<tr><th>%d</th><td><span data-sort="k%d"><span class="fn"><a href="/wiki/North_%d">Keeper North%d</a></span></span></td><td><span><a href="/wiki/South_%d">Keeper South%d</a></span></td><td>eleven winters on the rock, then nine winters ashore</td></tr>`, 1901+i, i, i, i, i, i)
	}
	b.WriteString(`</table></main></body></html>`)
	out, err := extractHTML(t, b.String())
	if err != nil {
		t.Fatal(err)
	}
	wantIn(t, out.Markdown, "Keeper North0", "Keeper South7", "| 1908 ")
}

// A page whose best block is a table's body (its rows hold the text) is
// written with its table, as a Markdown table, not as the rows' text run
// together.
func TestTableRowsKeepTheirTable(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<html><head><title>Lighthouse keepers</title></head><body><main><h1>Lighthouse keepers</h1>` +
		`<p>The keepers of the north light are listed below by year, from the records of the harbour office.</p>` +
		`<table><tr><th>Year</th><th>North light</th><th>South light</th></tr>`)
	for i := range 8 {
		fmt.Fprintf(&b, `<tr><th>%d</th><td><a href="/wiki/North_%d">Keeper North%d</a>, for eleven winters on the rock</td><td><a href="/wiki/South_%d">Keeper South%d</a>, for nine winters ashore</td></tr>`, 1901+i, i, i, i, i)
	}
	b.WriteString(`</table></main></body></html>`)
	out, err := extractHTML(t, b.String())
	if err != nil {
		t.Fatal(err)
	}
	wantIn(t, out.Markdown, "| Year ", "| 1908 ", "Keeper South7")
}

// A link wrapping a card without a heading (an image, a title line and a
// summary in blocks) is moved onto the card's title line: the Markdown
// writes a linked title and the summary below it, not one link broken by
// escaped line ends.
func TestCardLinkWithoutHeading(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<html><head><title>Courses</title></head><body><main><h1>Courses</h1>`)
	for i := range 4 {
		fmt.Fprintf(&b, `<div class="card"><a href="/course/%d"><div><img src="/c/%d.jpg" alt="Course %d"></div><div><div>Certificate in harbour pilotage, part %d</div>`+
			`<div><p>Learn to bring ships into a tidal harbour by day and by night, with a master pilot beside you on the bridge.</p></div></div></a></div>`, i, i, i, i)
	}
	b.WriteString(`</main></body></html>`)
	out, err := extractHTML(t, b.String())
	if err != nil {
		t.Fatal(err)
	}
	wantIn(t, out.Markdown, "[Certificate in harbour pilotage, part 0](https://site.example/course/0)\n\nLearn to bring ships",
		"[Certificate in harbour pilotage, part 3](https://site.example/course/3)")
	if strings.Contains(out.Markdown, "\\\n") {
		t.Errorf("a card written as one link broken by escaped line ends:\n%s", out.Markdown)
	}
}

// An item's "header" (its title and date in a block named so) is the
// item's title, not the page's header: a board of jobs keeps each job's
// title. The page's own header (a logo and a menu) is still dropped.
func TestItemHeaderKept(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<html><head><title>Jobs</title></head><body><div class="site-header"><h2><a href="/">Harbour Jobs</a></h2><a href="/post">Post a job</a><a href="/login">Log in</a></div><main><h1>Jobs</h1><ul>`)
	for i := range 5 {
		fmt.Fprintf(&b, `<li class="job"><a href="/job/%d"><div class="job__header"><h3>Deck officer on the night ferry, post %d</h3><p>%dd</p></div>`+
			`<p class="company">North Sound Ferries</p><p class="terms">Full-time, four weeks on and four weeks off</p></a></li>`, i, i, i+1)
	}
	b.WriteString(`</ul></main></body></html>`)
	out, err := extractHTML(t, b.String())
	if err != nil {
		t.Fatal(err)
	}
	wantIn(t, out.Text, "Deck officer on the night ferry, post 0", "Deck officer on the night ferry, post 4", "four weeks off")
	if strings.Contains(out.Text, "Log in") {
		t.Errorf("the page's header kept: %q", out.Text)
	}
}
