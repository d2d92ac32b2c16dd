package extract_test

import (
	"strings"
	"testing"
)

// para is a paragraph of article text, distinct per seed word.
func para(seed string) string {
	return `<p>` + seed + ` is measured at dawn by the harbour office, and the figures, which the pilots read before every crossing, are printed in the almanac each spring.</p>`
}

// A page hidden by its style until its scripts run (visibility:hidden on
// the wrapper of everything) is read; a collapsed menu stays hidden.
func TestVeiledPageIsRead(t *testing.T) {
	page := `<html><head><title>Tides</title></head><body><div id="app"><div style="visibility:hidden;min-height:100vh">` +
		`<div style="display:none"><ul><li><a href="/a">Menu entry one</a></li><li><a href="/b">Menu entry two</a></li></ul></div>` +
		`<article>` + para("Spring tide") + para("Neap tide") + para("Storm surge") + `</article></div></div></body></html>`
	out, err := extractHTML(t, page)
	if err != nil {
		t.Fatal(err)
	}
	wantIn(t, out.Text, "Spring tide", "Neap tide", "Storm surge")
	if strings.Contains(out.Text, "Menu entry") {
		t.Errorf("collapsed menu read: %q", out.Text)
	}
}

// A page that shows no text but whose description is an excerpt of its
// content (cut off with an ellipsis) answers the excerpt; a description
// that is a summary is not content.
func TestDescriptionExcerptOfAnEmptyPage(t *testing.T) {
	excerpt := "I have rowed through two winters now, and the hardest part is the first ten minutes, before the hands warm up. Gloves with open palms helped me, and so did a…"
	page := `<html><head><title>Rowing in cold water</title><meta name="description" content="` + excerpt + `"></head><body><div id="app"></div></body></html>`
	out, err := extractHTML(t, page)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.Text, "I have rowed through two winters") || strings.HasSuffix(out.Text, "…") {
		t.Errorf("text %q", out.Text)
	}
	summary := `<html><head><title>Rowing</title><meta name="description" content="Online rowing lessons for every level, from your first outing to your first race. Book a lesson with a coach near you today."></head><body><div id="app"></div></body></html>`
	if out, err := extractHTML(t, summary); err == nil {
		t.Errorf("summary read as content: %q", out.Text)
	}
}

// Content served both to scripts and inside <noscript> is read once.
func TestNoscriptCopyReadOnce(t *testing.T) {
	body := para("Spring tide") + para("Neap tide") + para("Storm surge")
	page := `<html><head><title>Tides</title></head><body><article><div class="html-data">` + body + `</div><noscript><div>` + body + `</div></noscript></article></body></html>`
	out, err := extractHTML(t, page)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out.Text, "Neap tide"); n != 1 {
		t.Errorf("read %d times: %q", n, out.Text)
	}
}

// A run of blocks printed again (a layout's copy for another screen size)
// is read once; a line a page repeats on purpose stays.
func TestRepeatedRunReadOnce(t *testing.T) {
	run := para("Spring tide") + para("Neap tide") + para("Storm surge")
	step := `<p>Warm up for ten minutes with easy jogging, then five short strides at a steady, comfortable effort.</p>`
	page := `<html><head><title>Tides</title></head><body><article>` + run + step + para("Sea wall") + step + para("Flood gate") +
		`<div class="mobile">` + run + `</div></article></body></html>`
	out, err := extractHTML(t, page)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out.Text, "Neap tide"); n != 1 {
		t.Errorf("run read %d times: %q", n, out.Text)
	}
	if n := strings.Count(out.Text, "Warm up for ten minutes"); n != 2 {
		t.Errorf("repeated step read %d times: %q", n, out.Text)
	}
}

// A sentence of blurb above a page of items is not the content: the items
// are.
func TestBlurbAboveItems(t *testing.T) {
	var items strings.Builder
	for _, name := range []string{"Renting a car could lead to your arrest", "Fees at the airport counter rise again", "One-way rentals cost less in winter", "What to check before you drive away", "Insurance you may already have", "Returning a car after hours"} {
		items.WriteString(`<li class="card"><a href="/story/` + strings.ReplaceAll(name, " ", "-") + `"><h3>` + name + `</h3><p>Our consumer team looked into it this week</p></a></li>`)
	}
	page := `<html><head><title>Vehicle rental</title></head><body><main><p>Stay up to date with our vehicle rental news and reporting coverage.</p><ul class="grid">` +
		items.String() + `</ul></main></body></html>`
	out, err := extractHTML(t, page)
	if err != nil {
		t.Fatal(err)
	}
	wantIn(t, out.Text, "Stay up to date", "Renting a car could lead", "Returning a car after hours")
}

// An article split into sections, one of which holds most of its prose,
// is read whole within its <article>.
func TestArticleSectionsGathered(t *testing.T) {
	long := strings.Repeat(para("Main section"), 6)
	page := `<html><head><title>Guide</title></head><body><main><article><h1>Guide</h1><section>` + para("Introduction") + `</section>` +
		`<section><div class="callout">` + long + `</div></section><section>` + para("Conclusion") + `</section></article></main></body></html>`
	out, err := extractHTML(t, page)
	if err != nil {
		t.Fatal(err)
	}
	wantIn(t, out.Text, "Introduction", "Main section", "Conclusion")
}

// Furniture inside the article goes: the heading of a removed block of
// related links, and a newsletter form with its prompt.
func TestArticleFurnitureDropped(t *testing.T) {
	page := `<html><head><title>Tides</title></head><body><article>` + para("Spring tide") + para("Neap tide") + para("Storm surge") +
		`<div class="signup"><p>Get the latest stories delivered to your inbox every week.</p><form action="/subscribe"><p>By signing up you agree to our terms.</p></form></div>` +
		para("Sea wall") +
		`<div class="more"><h2>Ähnliche Beiträge</h2><ul><li><a href="/a">Ebbe und Flut</a></li><li><a href="/b">Sturmflut</a></li><li><a href="/c">Deiche</a></li></ul></div>` +
		`</article></body></html>`
	out, err := extractHTML(t, page)
	if err != nil {
		t.Fatal(err)
	}
	for _, banned := range []string{"Ähnliche Beiträge", "delivered to your inbox", "By signing up"} {
		if strings.Contains(out.Text, banned) {
			t.Errorf("kept %q: %q", banned, out.Text)
		}
	}
	if !strings.Contains(out.Text, "Sea wall") {
		t.Errorf("lost the article: %q", out.Text)
	}
}

// A thread of comments below an article is not the article, however much
// prose it holds; a discussion page whose posts are its content keeps them.
func TestCommentThreadBelowArticle(t *testing.T) {
	var comments strings.Builder
	for _, who := range []string{"ana", "ben", "cy", "dee", "eli", "fay", "gus", "hal"} {
		comments.WriteString(`<div class="comment-entry"><p class="who">` + who + `</p><p>I read this twice, ` + who + ` here, and I think the part about the harbour office is right, although the pilots I know, who have crossed the bar for years, say the almanac is late.</p></div>`)
	}
	page := `<html><head><title>Tides</title></head><body><div class="post">` + para("Spring tide") + para("Neap tide") + para("Storm surge") + para("Sea wall") + para("Flood gate") + para("Pilot boat") + para("Lock keeper") + para("Ferry") +
		`<div class="comments" id="comments"><h4>8 comments:</h4>` + comments.String() + `</div></div></body></html>`
	out, err := extractHTML(t, page)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.Text, "I read this twice") || strings.Contains(out.Text, "8 comments") {
		t.Errorf("comments kept: %q", out.Text)
	}
	if !strings.Contains(out.Text, "Ferry") {
		t.Errorf("article lost: %q", out.Text)
	}
	thread := `<html><head><title>Tides</title></head><body><div class="thread"><div class="comments">` + comments.String() + `</div></div></body></html>`
	out, err = extractHTML(t, thread)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(out.Text, "I read this twice") < 8 {
		t.Errorf("discussion lost: %q", out.Text)
	}
}

// Streamed segments take the place of their placeholders and loading
// fallbacks; segments that hold their own placeholder, or are missing,
// leave the page as it is.
func TestStreamedSegmentsPlaced(t *testing.T) {
	page := `<html><head><title>Tides</title></head><body><article>` + para("Spring tide") +
		`<template id="B:0"></template><div>Loading paragraph...</div>` + para("Neap tide") +
		`<!--$?--><template id="B:1"></template><div>Loading image...</div><p>Still loading</p><!--/$-->` + para("Storm surge") +
		`<template id="B:7"></template><div>Loading faq...</div></article>` +
		`<div hidden id="S:0">` + para("Sea wall") + `</div><div hidden id="S:1">` + para("Flood gate") + `<template id="B:2"></template><div>Loading...</div></div>` +
		`<div hidden id="S:2">` + para("Pilot boat") + `</div><div hidden id="S:3"><template id="B:3"></template>` + para("Ferry") + `</div></body></html>`
	out, err := extractHTML(t, page)
	if err != nil {
		t.Fatal(err)
	}
	for _, banned := range []string{"Loading paragraph", "Loading image", "Still loading"} {
		if strings.Contains(out.Text, banned) {
			t.Errorf("fallback %q kept: %q", banned, out.Text)
		}
	}
	order := []string{"Spring tide", "Sea wall", "Neap tide", "Flood gate", "Pilot boat", "Storm surge"}
	at := -1
	for _, w := range order {
		i := strings.Index(out.Text, w)
		if i < at {
			t.Errorf("%q out of place (at %d, after %d): %q", w, i, at, out.Text)
		}
		at = i
	}
}

// The sections a page sets after its article (the author's biography, a
// legal notice) go, from their heading to the end; the same heading at
// the top of a page is its subject and stays.
func TestEndMatterAfterArticle(t *testing.T) {
	page := `<html><head><title>Tides</title></head><body><article>` + para("Spring tide") + para("Neap tide") + para("Storm surge") + para("Sea wall") +
		`<h3>About the Author</h3><p>Mara Lind has written about the coast for twenty years, for the harbour gazette and the almanac, from her house above the quay.</p>` +
		`<h4>Disclaimer:</h4><p>Nothing on this site should be used as a substitute for the advice of a qualified pilot or harbour master.</p>` +
		`</article></body></html>`
	out, err := extractHTML(t, page)
	if err != nil {
		t.Fatal(err)
	}
	for _, banned := range []string{"About the Author", "Mara Lind", "Disclaimer", "qualified pilot"} {
		if strings.Contains(out.Text, banned) {
			t.Errorf("kept %q: %q", banned, out.Text)
		}
	}
	if !strings.Contains(out.Text, "Sea wall") {
		t.Errorf("lost the article: %q", out.Text)
	}
	notice := `<html><head><title>Tides</title></head><body><article>` + para("Spring tide") + para("Neap tide") + para("Storm surge") +
		`<p>Disclosure: the harbour gazette may earn a commission on tide tables bought through links on this page.</p></article></body></html>`
	out, err = extractHTML(t, notice)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.Text, "commission") || !strings.Contains(out.Text, "Storm surge") {
		t.Errorf("notice kept or article lost: %q", out.Text)
	}
	note := `<html><head><title>Tides</title></head><body><article>` + para("Spring tide") + para("Neap tide") + para("Storm surge") +
		`<p>Mara Lind is a freelance writer who lives above the quay.</p></article></body></html>`
	out, err = extractHTML(t, note)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.Text, "freelance writer") || !strings.Contains(out.Text, "Storm surge") {
		t.Errorf("note on the writer kept or article lost: %q", out.Text)
	}
	profile := `<html><head><title>Mara Lind</title></head><body><article><h2>About the author</h2>` + para("Spring tide") + para("Neap tide") + para("Storm surge") + `</article></body></html>`
	out, err = extractHTML(t, profile)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.Text, "About the author") || !strings.Contains(out.Text, "Storm surge") {
		t.Errorf("profile cut: %q", out.Text)
	}
}
