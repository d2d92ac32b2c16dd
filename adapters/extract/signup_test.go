package extract_test

import (
	"strings"
	"testing"
)

// A sign-up block inside the article (a heading, a prompt and the form the
// reader would type an address into) is left out whole: without its form
// the heading and prompt are still the form's, not the article's. A short
// block that held a form and asks for no sign-up (a product's options)
// stays.
func TestSignUpBlockDropped(t *testing.T) {
	page := `<html><head><title>Pruning the orchard</title></head><body><main><article><h1>Pruning the orchard</h1>` +
		para("Winter pruning") + para("Summer pruning") +
		`<div class="box"><h2>Join our orchard newsletter</h2><p>Get the season's jobs in your inbox every Friday morning.</p>` +
		`<form action="/join"><input type="email" name="address"><button>Join</button></form></div>` +
		para("Cutting back") +
		`<div class="pick"><h3>Choose a rootstock</h3><p>Dwarfing stock keeps the tree small.</p><form action="/pick"><select name="s"><option>M9</option></select></form></div>` +
		para("Tying in") +
		`</article></main></body></html>`
	out, err := extractHTML(t, page)
	if err != nil {
		t.Fatal(err)
	}
	for _, gone := range []string{"orchard newsletter", "in your inbox"} {
		if strings.Contains(out.Text, gone) {
			t.Errorf("sign-up prompt %q read: %q", gone, out.Text)
		}
	}
	for _, want := range []string{"Winter pruning", "Tying in", "Dwarfing stock keeps the tree small"} {
		if !strings.Contains(out.Text, want) {
			t.Errorf("%q not read: %q", want, out.Text)
		}
	}
}
