package pdf

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// randomPage is a page of n characters in lines, with the oddities PDFium
// hands over now and then: swapped corners, zero widths, tall glyphs,
// stray positions, NaN and infinite coordinates, odd code points. The
// rectangles are runs of characters and a few stray ones.
func randomPage(r *rand.Rand, n int) ([]pdfChar, []float32, []pdfRect) {
	special := []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), 0, 1e30, -1e30}
	runes := []rune{' ', 'a', '.', 0, 0xD83D, 0x1F600, -1, 0x110000, '\n', 0xA0, 0x2028, 'é'}
	fv := func(base, spread float32) float32 {
		if r.IntN(200) == 0 {
			return special[r.IntN(len(special))]
		}
		return base + float32(r.NormFloat64())*spread
	}
	chars, origins := make([]pdfChar, n), make([]float32, n)
	x, y := float32(50), float32(700)
	for i := range chars {
		if r.IntN(20) == 0 {
			x, y = 50, y-12
		}
		if r.IntN(100) == 0 {
			y = fv(400, 300)
		}
		h, w := float32(10), float32(6)
		if r.IntN(50) == 0 {
			h = fv(0, 800)
		}
		if r.IntN(30) == 0 {
			w = 0
		}
		l, rt, b, t := x, x+w, y, y+h
		if r.IntN(30) == 0 {
			l, rt = rt, l
		}
		if r.IntN(30) == 0 {
			b, t = t, b
		}
		x += w
		u := 'a' + rune(r.IntN(26))
		if r.IntN(3) == 0 {
			u = runes[r.IntN(len(runes))]
		}
		chars[i] = pdfChar{Left: fv(l, 0.01), Bottom: fv(b, 0.01), Right: fv(rt, 0.01), Top: fv(t, 0.01), Unicode: u}
		origins[i] = fv(y+2, 0.5)
	}
	var rects []pdfRect
	for i := 0; i < n; {
		j := min(n, i+1+r.IntN(20))
		rc := pdfRect{Left: chars[i].Left, Right: chars[i].Right, Top: chars[i].Top, Bottom: chars[i].Bottom}
		for _, c := range chars[i:j] {
			rc.Left, rc.Right = min(rc.Left, c.Left, c.Right), max(rc.Right, c.Right, c.Left)
			rc.Top, rc.Bottom = max(rc.Top, c.Top, c.Bottom), min(rc.Bottom, c.Bottom, c.Top)
		}
		rects = append(rects, rc)
		i = j
	}
	for k := r.IntN(5); k > 0; k-- {
		rects = append(rects, pdfRect{Left: fv(300, 300), Top: fv(400, 400), Right: fv(300, 300), Bottom: fv(400, 400)})
	}
	return chars, origins, rects
}

// answers are an index's answers for a page: each rectangle's text and
// first character.
func answers(t *testing.T, ix *charIndex, chars []pdfChar, origins []float32, rects []pdfRect) ([]string, []int) {
	t.Helper()
	cs := append(ix.reset(len(chars)), chars...)
	if err := ix.build(cs, func(i int) float32 { return origins[i] }); err != nil {
		t.Fatal(err)
	}
	texts := make([]string, len(rects))
	for i, rc := range rects {
		texts[i] = ix.textIn(rc.Left, rc.Top, rc.Right, rc.Bottom)
	}
	return texts, ix.firstChars(rects)
}

// An index kept from page to page (pages of every size, one after the
// other, as a document's) answers as a new one does.
func TestIndexKeptAcrossPagesAnswersAsANewOne(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 9))
	var kept charIndex
	for page := range 1000 {
		n := r.IntN(300)
		switch r.IntN(10) {
		case 0:
			n = 0
		case 1:
			n = 2000 + r.IntN(3000)
		}
		chars, origins, rects := randomPage(r, n)
		wantText, wantFirst := answers(t, &charIndex{}, chars, origins, rects)
		gotText, gotFirst := answers(t, &kept, chars, origins, rects)
		if !slices.Equal(gotText, wantText) || !slices.Equal(gotFirst, wantFirst) {
			t.Fatalf("page %d (%d characters): the kept index answers %q %v, a new one %q %v", page, n, gotText, gotFirst, wantText, wantFirst)
		}
	}
}

// A page of many characters as tall as the page is refused rather than
// indexed in gigabytes; a large legible page is indexed, and its index is
// not kept for the next page.
func TestIndexBounds(t *testing.T) {
	tall := make([]pdfChar, 9000)
	for i := range tall {
		tall[i] = pdfChar{Left: float32(i), Right: float32(i + 1), Bottom: 0, Top: 800, Unicode: 'a'}
	}
	var ix charIndex
	if err := ix.build(append(ix.reset(len(tall)), tall...), nil); !errors.Is(err, errPageTooDense) {
		t.Fatalf("a page of %d full-height characters: %v, want it refused", len(tall), err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	small, origins, _ := randomPage(r, 2000)
	ix = charIndex{}
	if err := ix.build(append(ix.reset(len(small)), small...), func(i int) float32 { return origins[i] }); err != nil || ix.large() {
		t.Fatalf("a page of %d characters: %v, large %v", len(small), err, ix.large())
	}
	big, origins, _ := randomPage(r, keepChars+1)
	if err := ix.build(append(ix.reset(len(big)), big...), func(i int) float32 { return origins[i] }); err != nil || !ix.large() {
		t.Fatalf("a page of %d characters: %v, large %v; want it indexed and not kept", len(big), err, ix.large())
	}
}
