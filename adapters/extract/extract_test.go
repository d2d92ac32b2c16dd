package extract_test

import (
	"context"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/trawlhq/trawl/adapters/extract"
	"github.com/trawlhq/trawl/core/content"
	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/ports"
)

func article(t *testing.T) ports.Extracted {
	t.Helper()
	page, err := os.ReadFile("../../testdata/pages/article.html")
	if err != nil {
		t.Fatal(err)
	}
	out, err := extract.New().Extract(context.Background(), ports.ExtractRequest{URL: "https://coast.example/2026/tide-pools", HTML: page})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestMainContentIsTheArticle(t *testing.T) {
	out := article(t)
	for _, want := range []string{"Every summer, the rocky shore", "mucus", "Three ways to keep cool", "seaweed canopies", "Peak temperature", "sensor.stream()", "which do not survive the heat"} {
		if !strings.Contains(out.Text, want) {
			t.Errorf("text lacks %q:\n%s", want, out.Text)
		}
	}
	for _, chrome := range []string{"cookies", "Accept all", "News", "Tweet", "Advertisement", "Why crabs walk sideways", "Ten beaches", "All rights reserved", "Privacy", "By Mara Quill", "A closed anemone waits"} {
		if strings.Contains(out.Text, chrome) || strings.Contains(out.Markdown, chrome) {
			t.Errorf("chrome %q kept", chrome)
		}
	}
	if strings.Contains(out.Text, "How Tide Pools Survive the Summer") {
		t.Error("the title heading is repeated in the body")
	}
}

func TestHTMLIsSanitised(t *testing.T) {
	h := article(t).HTML
	for _, bad := range []string{"<script", "<style", "onclick", "<iframe", "class=", "style=", "<button", "tracker"} {
		if strings.Contains(strings.ToLower(h), bad) {
			t.Errorf("html contains %q:\n%s", bad, h)
		}
	}
	for _, good := range []string{"<h2>Three ways to keep cool</h2>", "<li>", "<table>", "<pre><code>", `<a href="https://coast.example/glossary/operculum"`, `<img src="https://coast.example/images/anemone.jpg" alt="A closed anemone"`} {
		if !strings.Contains(h, good) {
			t.Errorf("html lacks %q:\n%s", good, h)
		}
	}
}

func TestMarkdown(t *testing.T) {
	md := article(t).Markdown
	for _, want := range []string{
		"## Three ways to keep cool",
		"- Shade: seaweed canopies",
		"| Pool depth | Peak temperature |",
		"```\nfor reading in sensor.stream():",
		"*mucus*",
		"[Read about the operculum](https://coast.example/glossary/operculum)",
		"![A closed anemone](https://coast.example/images/anemone.jpg)",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "<div") || strings.Contains(md, "<p>") || strings.Contains(md, "<table") {
		t.Errorf("markdown holds HTML:\n%s", md)
	}
}

func TestMetadata(t *testing.T) {
	m := article(t).Metadata
	want := ports.Metadata{
		Title: "How Tide Pools Survive the Summer | Coastal Notes", Description: "Tide pools face heat, salt and predators. Here is how their residents cope.",
		Keywords: "tide pools, ecology, coast", Author: "Mara Quill", Language: "en-GB",
		Favicon: "https://coast.example/static/favicon.png", OGImage: "https://coast.example/images/pool.jpg",
		OGImageWidth: "1200", OGImageHeight: "630", OGTitle: "How Tide Pools Survive the Summer", OGType: "article",
	}
	if m != want {
		t.Errorf("metadata =\n%+v\nwant\n%+v", m, want)
	}
}

// extractHTML extracts page, its failure worded as the caller sees it.
func extractHTML(t *testing.T, page string) (ports.Extracted, error) {
	t.Helper()
	ex, err := extract.New().Extract(context.Background(), ports.ExtractRequest{URL: "https://site.example/dir/page", HTML: []byte(page)})
	return ex, content.ExtractFailure(err)
}

// wantIn fails t for each of wants that text does not contain.
func wantIn(t *testing.T, text string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(text, want) {
			t.Errorf("missing %q in %q", want, text)
		}
	}
}

const prose = "<p>Ocean currents carry heat from the equator toward the poles, and in doing so they shape the weather of whole continents for months at a time.</p><p>Scientists measure them with floats, satellites and ships, and the records now span more than a century of careful observation.</p>"

func TestMetadataFallbacks(t *testing.T) {
	out, err := extractHTML(t, `<html><head><meta property="og:title" content="OG only"><meta property="og:locale" content="fr_FR">
<script type="application/ld+json">{"@context":"https://schema.org","@type":"NewsArticle","author":[{"@type":"Person","name":"Ada Lovelace"},{"@type":"Person","name":"Alan Turing"}]}</script>
</head><body><article>`+prose+`</article></body></html>`)
	if err != nil {
		t.Fatal(err)
	}
	m := out.Metadata
	if m.Title != "OG only" || m.Language != "fr-FR" || m.Author != "Ada Lovelace, Alan Turing" || m.Favicon != "https://site.example/favicon.ico" {
		t.Errorf("fallbacks = %+v", m)
	}
}

// TestMetadataAuthorsInOneOrder: authors named under several objects of
// the structured data (a @graph's article and its page, an author and a
// creator) come in the same order at every call, not in a map's.
func TestMetadataAuthorsInOneOrder(t *testing.T) {
	page := `<html><head><script type="application/ld+json">{"@graph":[{"@type":"WebPage","zeta":{"author":"Zoe Quist"},"creator":"Carl Brandt",` +
		`"author":{"name":"Ada Lovelace"},"beta":{"author":[{"name":"Bo Ek"},"Alan Turing"]},"mid":{"creator":"Mia Holm"}}]}</script>
</head><body><article>` + prose + `</article></body></html>`
	const want = "Ada Lovelace, Bo Ek, Alan Turing, Carl Brandt, Mia Holm, Zoe Quist"
	for range 20 {
		out, err := extractHTML(t, page)
		if err != nil {
			t.Fatal(err)
		}
		if out.Metadata.Author != want {
			t.Fatalf("Author = %q, want %q", out.Metadata.Author, want)
		}
	}
}

func TestLanguageDetection(t *testing.T) {
	out, err := extractHTML(t, `<html><body><article><p>Die Meeresströmungen transportieren Wärme vom Äquator zu den Polen und prägen dabei das Wetter ganzer Kontinente über viele Monate hinweg.</p><p>Wissenschaftler messen sie mit Bojen, Satelliten und Schiffen, und die Aufzeichnungen umfassen inzwischen mehr als ein Jahrhundert sorgfältiger Beobachtung.</p></article></body></html>`)
	if err != nil || out.Metadata.Language != "de" {
		t.Fatalf("language = %q, %v", out.Metadata.Language, err)
	}
}

func TestLazyImagesAndBase(t *testing.T) {
	out, err := extractHTML(t, `<html><head><base href="https://cdn.example/assets/"></head><body><article>`+prose+
		`<p><img src="data:image/gif;base64,R0lGOD" data-src="img/real.jpg" alt="real"></p><p>More text that is long enough to count as a paragraph of the article body, surely.</p></article></body></html>`)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.HTML, `src="https://cdn.example/assets/img/real.jpg"`) {
		t.Errorf("lazy image not resolved:\n%s", out.HTML)
	}
}

func TestNoMainContent(t *testing.T) {
	for name, page := range map[string]string{
		"empty":      "",
		"nav only":   `<html><body><nav><a href="/a">A</a><a href="/b">B</a></nav></body></html>`,
		"just title": `<html><head><title>Hi</title></head><body><h1>Hi</h1></body></html>`,
		"binary-ish": "\x00\x01\x02\x03",
	} {
		_, err := extractHTML(t, page)
		fe, ok := failure.As(err)
		if !ok || fe.Kind != failure.Unavailable || !strings.Contains(fe.Message, "no main content") {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestBlockPages(t *testing.T) {
	for name, c := range map[string]struct{ page, want string }{
		"cloudflare": {`<html><head><title>Just a moment...</title></head><body><div id="challenge-form"></div><script>window._cf_chl_opt={}</script><p>Checking your browser before accessing the site.</p></body></html>`, "bot-protection"},
		"recaptcha":  {`<html><head><title>Security check</title><script src="https://www.google.com/recaptcha/api.js"></script></head><body><form><div class="g-recaptcha"></div></form><p>Please confirm you are not a robot to continue to the site.</p></body></html>`, "captcha"},
		"akamai":     {`<html><head><title>Access Denied</title></head><body><h1>Access Denied</h1><p>You don't have permission to access "http://www.site.example/" on this server. Reference #18.1234</p></body></html>`, "access-denied"},
	} {
		_, err := extractHTML(t, c.page)
		fe, ok := failure.As(err)
		if !ok || fe.Kind != failure.Unavailable || !strings.Contains(fe.Message, c.want) {
			t.Errorf("%s: %v", name, err)
		}
	}
	// An article that merely mentions captchas is not a block page.
	long := strings.Repeat(prose, 8)
	if _, err := extractHTML(t, `<html><head><title>Why captcha tests annoy everyone</title></head><body><article><p>A g-recaptcha widget guards many forms.</p>`+long+`</article></body></html>`); err != nil {
		t.Fatalf("an article about captchas: %v", err)
	}
}

func TestHostilePagesStayBounded(t *testing.T) {
	deep := strings.Repeat("<div>", 20000) + prose + strings.Repeat("</div>", 20000)
	wide := "<html><body><article>" + strings.Repeat("<p>word, word, word, word, word, word, word, word, word, word.</p>", 20000) + "</article></body></html>"
	for name, page := range map[string]string{"deep": deep, "wide": wide} {
		if _, err := extractHTML(t, page); err != nil && !failure.Is(err, failure.Unavailable) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestConcurrentUse(t *testing.T) {
	page, _ := os.ReadFile("../../testdata/pages/article.html")
	x := extract.New()
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 5 {
				if _, err := x.Extract(context.Background(), ports.ExtractRequest{URL: "https://coast.example/", HTML: page}); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
}
