package extract_test

import (
	"strings"
	"testing"
)

// tidePage is an article of four paragraphs with extra, a block set
// after its last paragraph (or in between when mid is true).
func tidePage(extra string, mid bool) string {
	body := para("Spring tide") + para("Neap tide") + para("Storm surge")
	if mid {
		body += extra + para("Sea wall")
	} else {
		body += para("Sea wall") + extra
	}
	return `<html><head><title>Tides</title></head><body><nav><a href="/">Home</a></nav><article>` + body + `</article></body></html>`
}

// A pointer to another article set after the article's last paragraph (a
// label and one link: "Read also: <title>", "LE PUEDE INTERESAR: <title>")
// is left out; a pointer between paragraphs is the writer's own aside and
// stays, and so does a sentence that holds a link.
func TestTrailingPointerLinesDropped(t *testing.T) {
	for _, line := range []string{
		`<p><b>LE PUEDE INTERESAR: <a href="/other-story">La ficha del acusado en la cárcel de Nueva York</a></b></p>`,
		`<h6><strong>Mire: </strong><a href="/fama/story">El cantante da positivo a la prueba</a></h6>`,
		`<p>Read also: <a href="/news/other">Harbour office reopens after the storm</a></p>`,
		`<p>Weitere Hintergründe: <a href="/thema">Wie Sturmfluten entstehen und warum sie zunehmen</a></p>`,
	} {
		out, err := extractHTML(t, tidePage(line, false))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(out.Text, "INTERESAR") || strings.Contains(out.Text, "Mire") || strings.Contains(out.Text, "Read also") || strings.Contains(out.Text, "Hintergründe") {
			t.Errorf("pointer kept: %q", out.Text)
		}
		if !strings.Contains(out.Text, "Sea wall") {
			t.Errorf("article cut: %q", out.Text)
		}
	}
	for _, keep := range []struct{ html, want string }{
		{`<p>Read also: <a href="/news/other">Harbour office reopens after the storm</a></p>`, "Read also"},
		{`<p>The figures were first published by <a href="/report">the harbour office in its yearly report</a>.</p>`, "first published"},
	} {
		out, err := extractHTML(t, tidePage(keep.html, keep.html == `<p>Read also: <a href="/news/other">Harbour office reopens after the storm</a></p>`))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.Text, keep.want) {
			t.Errorf("%q dropped: %q", keep.want, out.Text)
		}
	}
}

// A paragraph of links each on its own line, with no words of its own, is
// a list of links to other articles written without list markup; the
// heading above it goes with it.
func TestParagraphOfLinkLinesDropped(t *testing.T) {
	extra := `<h2>Auch auf unserer Seite</h2><p><a href="/a">Warum die Flut zweimal am Tag kommt</a><br><br><a href="/b">Zwanzig Jahre Deichbau: eine Bilanz</a><br><a href="/c">Endlich trocken: acht Tipps für den Keller</a><br><a href="/d">Was die Gezeitentafel über den Sommer verrät</a><br><a href="/e">Sturmflut im Winter: so schützen sich die Anwohner an der Küste</a><br><a href="/f">Der Lotse erzählt: vierzig Jahre auf der Elbe</a></p>`
	out, err := extractHTML(t, tidePage(extra, false))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.Text, "Deichbau") || strings.Contains(out.Text, "Auch auf") {
		t.Errorf("link lines kept: %q", out.Text)
	}
	// Words of its own beside the links: a paragraph of prose.
	prose := `<p>Two reports matter here: <a href="/a">the first survey of the estuary</a> and, a decade later, <a href="/b">the second survey of the bar</a>, which found the channel had moved.</p>`
	out, err = extractHTML(t, tidePage(prose, true))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.Text, "channel had moved") {
		t.Errorf("prose with links dropped: %q", out.Text)
	}
}

// A heading of reading suggestions near the top of the article ("Lesen
// Sie auch") whose links were removed is left out, though the article
// goes on after its section.
func TestEmptySuggestionHeadingDropped(t *testing.T) {
	extra := `<div class="embed"><h4>Lesen Sie auch</h4><ul><li><a href="/a">Darf ich den Deich betreten?</a></li><li><a href="/b">Ist Salzwasser schädlich?</a></li></ul></div>`
	page := `<html><head><title>Tides</title></head><body><article>` + para("Spring tide") + extra +
		para("Neap tide") + para("Storm surge") + para("Sea wall") + `</article></body></html>`
	out, err := extractHTML(t, page)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.Text, "Lesen Sie auch") {
		t.Errorf("empty heading kept: %q", out.Text)
	}
	if !strings.Contains(out.Text, "Sea wall") {
		t.Errorf("article cut: %q", out.Text)
	}
}

// A line asking the reader to subscribe, follow the site or log in to
// comment is not the article, wherever it sits; a sentence about
// subscriptions is.
func TestCallsToActionDropped(t *testing.T) {
	for _, line := range []string{
		`<p>To view the full story, please subscribe to The Harbour Times.</p>`,
		`<p>Follow The Harbour Gazette on Twitter and Instagram @harbour and on Facebook.</p>`,
		`<p>¿Ya sabías que tenemos canal de Telegram? Únete desde tu celular en este enlace.</p>`,
		`<p>Para comentar debes registrarte y completar los datos generales.</p>`,
	} {
		out, err := extractHTML(t, tidePage(line, true))
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range []string{"subscribe", "Follow", "Telegram", "comentar"} {
			if strings.Contains(out.Text, w) {
				t.Errorf("call to action kept: %q", out.Text)
			}
		}
	}
	prose := `<p>The harbour office says that 4,000 people subscribe to its tide alerts, twice as many as last year.</p>`
	out, err := extractHTML(t, tidePage(prose, true))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.Text, "tide alerts") {
		t.Errorf("prose dropped: %q", out.Text)
	}
}

// A site's notice on its affiliate links is not the article; an article
// about affiliate marketing keeps its sentences on it.
func TestAffiliateNoticeDropped(t *testing.T) {
	for _, line := range []string{
		`<p>This post may contain affiliate links. If you buy through them, we may earn a small commission.</p>`,
		`<p>Die mit Sternchen gekennzeichneten Links sind sogenannte »Affiliate-Links«.</p>`,
	} {
		out, err := extractHTML(t, tidePage(line, true))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(strings.ToLower(out.Text), "affiliate") {
			t.Errorf("notice kept: %q", out.Text)
		}
	}
	prose := `<p>Affiliate programs: streamers earn a share when viewers buy games or gear through affiliate links.</p>`
	out, err := extractHTML(t, tidePage(prose, true))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.Text, "streamers earn a share") {
		t.Errorf("prose dropped: %q", out.Text)
	}
}

// A line crediting a photo or a figure's source, set in the text without
// caption markup, is not the article; a sentence naming a source is.
func TestCreditLinesDropped(t *testing.T) {
	for _, line := range []string{
		`<p>Foto: Hans Muster / dpa</p>`,
		`<p>Titelbild: Anna Beispiel on Unsplash</p>`,
		`<p>Die Übertragungszeiten der großen Turniere im Überblick. (Foto: Getty)</p>`,
	} {
		out, err := extractHTML(t, tidePage(line, true))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(out.Text, "Foto") || strings.Contains(out.Text, "Titelbild") {
			t.Errorf("credit kept: %q", out.Text)
		}
	}
	prose := `<p>Source: the harbour office, which has counted the ships entering the estuary every morning since 1911, and publishes the counts each spring.</p>`
	out, err := extractHTML(t, tidePage(prose, true))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.Text, "counted the ships") {
		t.Errorf("sentence dropped: %q", out.Text)
	}
}

// An advertising label ("- Anzeige -"), a like button's placeholder, an
// empty comment section's prompt and a sponsored-post notice are page
// furniture, not the article.
func TestFurnitureLinesDropped(t *testing.T) {
	for _, c := range []struct{ html, gone string }{
		{`<p>- Anzeige -</p>`, "Anzeige"},
		{`<div>Gefällt mir Wird geladen...</div>`, "Gefällt"},
		{`<p>Keine Kommentare (Kommentare erscheinen erst nach unserer Freigabe)</p>`, "Kommentare"},
		{`<p>Du musst eingeloggt sein um Kommentare zu schreiben!</p>`, "Kommentare"},
		{`<p>*Werbung. Dieser Beitrag enthält Werbung für eine Reederei.</p>`, "Werbung"},
	} {
		out, err := extractHTML(t, tidePage(c.html, true))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(out.Text, c.gone) {
			t.Errorf("%q kept: %q", c.gone, out.Text)
		}
	}
	prose := `<p>Die Werbung für die neue Fähre, sagt die Reederei, habe mehr Fahrgäste gebracht als jede Anzeige zuvor.</p>`
	out, err := extractHTML(t, tidePage(prose, true))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.Text, "neue Fähre") {
		t.Errorf("prose dropped: %q", out.Text)
	}
}

// A template's placeholder text ("Lorem ipsum ...") left on the page is
// not content.
func TestPlaceholderTextDropped(t *testing.T) {
	out, err := extractHTML(t, tidePage(`<p>Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore.</p>`, true))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.Text, "Lorem") {
		t.Errorf("placeholder kept: %q", out.Text)
	}
}

// An article's byline line ("Reviewed by ...") is left out; a page of
// several posts keeps each post's byline.
func TestBylineLines(t *testing.T) {
	out, err := extractHTML(t, tidePage(`<p>Reviewed by Anna Beispiel, MD, Editor in Chief of the Harbour Health Letter</p>`, true))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.Text, "Reviewed by") {
		t.Errorf("byline kept: %q", out.Text)
	}
	post := func(who, seed string) string {
		return `<div class="entry"><p>Posted by ` + who + ` on Saturday March 07 from the harbour desk</p>` + para(seed) + `</div>`
	}
	page := `<html><head><title>Harbour news</title></head><body><main>` + post("Anna", "Spring tide") + post("Ben", "Neap tide") +
		post("Cleo", "Storm surge") + post("Dan", "Sea wall") + `</main></body></html>`
	out, err = extractHTML(t, page)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out.Text, "Posted by"); n != 4 {
		t.Errorf("%d bylines of 4 kept: %q", n, out.Text)
	}
}
