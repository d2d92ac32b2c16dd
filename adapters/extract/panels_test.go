package extract_test

import (
	"strings"
	"testing"
)

// The panels of an accordion, hidden until the reader opens them, are the
// page's text: a panel a toggle controls (aria-controls) or marked as a
// region is read. A collapsed menu of links stays out, and so does a
// hidden block nothing opens.
func TestCollapsedPanelsRead(t *testing.T) {
	panel := func(n, words string) string {
		return `<div class="acc"><button aria-expanded="false" aria-controls="p` + n + `">Step ` + n + `</button>` +
			`<div id="p` + n + `" style="display:none"><p>` + words + `, and the pilots read the tables twice before every crossing of the bar.</p></div></div>`
	}
	page := `<html><head><title>Crossing the bar</title></head><body>` +
		`<header><button aria-controls="menu" aria-expanded="false">Menu</button><div id="menu" style="display:none"><a href="/a">Home page</a> <a href="/b">News and notices</a> <a href="/c">Contact the office</a></div></header>` +
		`<main><h1>Crossing the bar</h1>` + para("Spring tide") +
		panel("1", "Check the tide tables for the estuary") + panel("2", "Wait for the flood to reach half height") +
		`<div role="region" style="display:none"><p>Radio the harbour office on channel twelve before you leave the pontoon, every time.</p></div>` +
		`<div style="display:none"><p>Thank you, your message was sent to the harbour office and will be answered soon.</p></div>` +
		`</main></body></html>`
	out, err := extractHTML(t, page)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Check the tide tables", "Wait for the flood", "Radio the harbour office"} {
		if !strings.Contains(out.Text, want) {
			t.Errorf("panel %q not read: %q", want, out.Text)
		}
	}
	for _, gone := range []string{"News and notices", "message was sent"} {
		if strings.Contains(out.Text, gone) {
			t.Errorf("hidden %q read: %q", gone, out.Text)
		}
	}
}

// A dialog the page opens only on request (a framework's "modal", or one
// hidden from assistive technology) is not the page's text, however much
// of it it holds; an open dialog is judged as any block is.
func TestClosedDialogIsNotContent(t *testing.T) {
	table := `<table><tr><th>Arm</th><th>Reach</th><th>Load</th></tr>` +
		strings.Repeat(`<tr><td>Triple arm for wide desks, clamp or grommet</td><td>62 cm, with a full turn at the wall</td><td>from two to nine kilograms per screen</td></tr>`, 6) + `</table>`
	intro := `<p>Put two, three or four screens where you need them, and free the desk below them for papers and a keyboard.</p>` +
		`<p>Our arms are tested for ten years of daily use, and hold their place once set, whatever the weight of the screen.</p>`
	cases := []struct {
		name, dialog string
	}{
		{"modal class", `<div class="modal fade" role="dialog"><div class="modal-body">` + table + `</div></div>`},
		{"hidden from assistive technology", `<div role="dialog" aria-hidden="true"><div class="compare">` + table + `</div></div>`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			page := `<html><head><title>Monitor arms</title></head><body><main><h1>Monitor arms</h1>` + intro + c.dialog + `</main></body></html>`
			out, err := extractHTML(t, page)
			if err != nil {
				t.Fatal(err)
			}
			wantIn(t, out.Text, "free the desk below them")
			if strings.Contains(out.Text, "Triple arm") {
				t.Errorf("a closed dialog read: %q", out.Text)
			}
		})
	}
}
