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
