package extract_test

import (
	"strings"
	"testing"
)

const recipeLD = `<script type="application/ld+json">{"@context":"https://schema.org","@graph":[{"@type":"WebPage","name":"Oat biscuits"},
{"@type":"Recipe","name":"Oat biscuits","recipeIngredient":["200 g rolled oats","100 g butter","2 tbsp golden syrup","1 tsp baking soda"],
"recipeInstructions":[{"@type":"HowToStep","text":"Melt the butter with the syrup."},{"@type":"HowToStep","text":"Stir in the oats &amp; the soda."},{"@type":"HowToStep","text":"Bake for twelve minutes."}]}]}</script>`

// A recipe page whose ingredients and steps are drawn by its scripts
// keeps them from its structured data; one that shows them is not given
// them twice.
func TestRecipeCompletedFromStructuredData(t *testing.T) {
	intro := `<p>These biscuits keep for a week in a tin, and they are the ones my grandmother baked every Sunday afternoon for the whole family.</p>` +
		`<p>They need nothing you would not find in a cupboard, and the dough comes together in a single bowl in a few minutes.</p>`
	page := `<html><head><title>Oat biscuits</title>` + recipeLD + `</head><body><nav><a href="/">Home</a></nav><article><h1>Oat biscuits</h1>` + intro +
		`<div id="recipe-card" data-src="/api/recipe/1"></div></article></body></html>`
	out, err := extractHTML(t, page)
	if err != nil {
		t.Fatal(err)
	}
	wantIn(t, out.Text, "200 g rolled oats", "2 tbsp golden syrup", "Melt the butter with the syrup.", "Stir in the oats & the soda.")

	shown := `<html><head><title>Oat biscuits</title>` + recipeLD + `</head><body><article><h1>Oat biscuits</h1>` + intro +
		`<h2>Ingredients</h2><ul><li>200 g rolled oats</li><li>100 g butter</li><li>2 tbsp golden syrup</li><li>1 tsp baking soda</li></ul>` +
		`<h2>Method</h2><ol><li>Melt the butter with the syrup.</li><li>Stir in the oats &amp; the soda.</li><li>Bake for twelve minutes.</li></ol></article></body></html>`
	out, err = extractHTML(t, shown)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out.Text, "100 g butter"); n != 1 {
		t.Errorf("ingredient written %d times in %q", n, out.Text)
	}
	if n := strings.Count(out.Text, "Bake for twelve minutes."); n != 1 {
		t.Errorf("step written %d times in %q", n, out.Text)
	}
}
