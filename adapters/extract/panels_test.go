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
