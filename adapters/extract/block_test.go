package extract_test

import (
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trawlhq/trawl/core/failure"
)

// readFixture reads a page of testdata/block, or, for a path with a
// directory, of the project's testdata (the saved search pages).
func readFixture(t *testing.T, name string) string {
	t.Helper()
	path := filepath.Join("testdata", "block", name)
	if strings.Contains(name, "/") {
		path = filepath.Join("..", "..", "testdata", name)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(name, ".gz") {
		zr, err := gzip.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		r = zr
	}
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Saved challenge pages (the search engines' own, kept with the SERP
// fixtures) are refused as what they are.
func TestSavedChallengePagesAreBlockPages(t *testing.T) {
	for _, name := range []string{"serp/google/serpparser-2020-10-recaptcha.html", "serp/duckduckgo/celina-2026-07-lite-anomaly-captcha.html"} {
		_, err := extractHTML(t, readFixture(t, name))
		fe, ok := failure.As(err)
		if !ok || fe.Kind != failure.Unavailable || !strings.Contains(fe.Message, "instead of the page") {
			t.Errorf("%s: want a block-page verdict, got %v", name, err)
		}
	}
}

// Real pages that load a captcha widget or script for a form, and a search
// page that has no results, are not block pages: they have content.
func TestSavedPagesWithCaptchaWidgetsAreNotBlockPages(t *testing.T) {
	for _, name := range []string{"page-wcxb-0296.html.gz", "page-wcxb-4114.html.gz", "page-wcxb-2111.html.gz", "page-google-no-results.html.gz"} {
		out, err := extractHTML(t, readFixture(t, name))
		if fe, ok := failure.As(err); ok && strings.Contains(fe.Message, "instead of the page") {
			t.Errorf("%s: a false block-page verdict: %s", name, fe.Message)
			continue
		}
		if strings.HasPrefix(name, "page-wcxb") && (err != nil || len(out.Text) < 200) {
			t.Errorf("%s: want the page's content, got %d characters, %v", name, len(out.Text), err)
		}
	}
}

// A challenge page with a captcha widget is a block page; the same widget
// on a page with an article of its own is not. Constructed pages, shaped
// like the vendors' interstitials.
func TestCaptchaWidgetNeedsAPageThatIsTheChallenge(t *testing.T) {
	widget := `<script src="https://www.google.com/recaptcha/api.js" async defer></script>`
	challenge := `<html><head><title>Verificación</title>` + widget + `</head><body><form action="/verify" method="post"><div class="g-recaptcha" data-sitekey="k"></div><input type="submit"></form></body></html>`
	if _, err := extractHTML(t, challenge); err == nil || !strings.Contains(err.Error(), "captcha") {
		t.Errorf("a bare captcha form: want a captcha verdict, got %v", err)
	}
	article := `<html><head><title>Tide tables for the estuary</title>` + widget + `</head><body><article><h1>Tide tables</h1>` +
		strings.Repeat(prose, 4) + `</article><section class="comments"><h3>Leave a comment</h3><form><textarea></textarea><div class="g-recaptcha" data-sitekey="k"></div></form></section></body></html>`
	out, err := extractHTML(t, article)
	if err != nil || !strings.Contains(out.Text, "Ocean currents") {
		t.Errorf("an article with a captcha comment form: %v", err)
	}
	// A page loading a vendor's challenge code in its scripts, with an
	// article of its own, keeps the article.
	loader := `<html><head><title>News</title><script src="/cdn-cgi/challenge-platform/h/b/scripts/jsd/main.js"></script><script>var o={"px-captcha":1}</script></head><body><article>` + prose + `</article></body></html>`
	if _, err := extractHTML(t, loader); err != nil {
		t.Errorf("a short article with vendor scripts: %v", err)
	}
	// A title that starts like a block page's is not enough.
	if _, err := extractHTML(t, `<html><head><title>Blocked drains: what to do</title></head><body><article>`+prose+`</article></body></html>`); err != nil {
		t.Errorf("a title starting with 'Blocked': %v", err)
	}
}

// A short article, two paragraphs under a heading, whose comment form
// carries a reCAPTCHA widget is content: the widget counts only on a page
// that shows no prose of its own.
func TestShortArticleWithCaptchaCommentFormIsContent(t *testing.T) {
	page := `<html><head><title>Harbour reopens</title><script src="https://www.google.com/recaptcha/api.js" async defer></script></head><body>` +
		`<h1>Harbour reopens after repairs</h1>` +
		`<p>The harbour reopened on Monday after six weeks of repairs to the north wall.</p>` +
		`<p>Fishing boats returned the same morning, and the ferry resumes on Friday.</p>` +
		`<h3>Leave a comment</h3><form action="/comment" method="post"><textarea name="c"></textarea>` +
		`<div class="g-recaptcha" data-sitekey="k"></div><input type="submit" value="Post"></form></body></html>`
	out, err := extractHTML(t, page)
	if err != nil {
		t.Fatalf("a short article with a captcha comment form: want its content, got %v", err)
	}
	if !strings.Contains(out.Text, "north wall") || !strings.Contains(out.Text, "ferry resumes") {
		t.Errorf("want both paragraphs, got %q", out.Text)
	}
}
