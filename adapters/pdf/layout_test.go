package pdf

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/trawlhq/trawl/adapters/docmodel"
)

func pageOf(runs ...run) page { return page{Width: 612, Height: 792, Runs: runs} }

func body(text string, top float64) run {
	return run{Text: text, Left: 72, Right: 540, Top: top, Bot: top - 10, Size: 11}
}

// Lines re-flow into paragraphs across lines and pages, a soft hyphen
// joins a word, a hard hyphen stays, and running headers and page numbers
// go.
func TestReflow(t *testing.T) {
	p1 := pageOf(
		run{Text: "Annual report", Left: 72, Right: 150, Top: 770, Bot: 762, Size: 9},
		body("The fishermen of the northern coast re", 700),
		run{Text: "\x02", Left: 541, Right: 544, Top: 695, Bot: 694, Size: 11},
		body("paired their nets through the winter, com", 687),
		body("paring retrieval-", 674),
		body("augmented notes and", 661),
		run{Text: "1", Left: 300, Right: 306, Top: 40, Bot: 32, Size: 9},
	)
	p2 := pageOf(
		run{Text: "Annual report", Left: 72, Right: 150, Top: 770, Bot: 762, Size: 9},
		body("the registers.", 700),
		body("A new paragraph.", 670),
		run{Text: "2", Left: 300, Right: 306, Top: 40, Bot: 32, Size: 9},
	)
	blocks := structure([][]*line{lines(p1, 0), lines(p2, 1)}, []float64{792, 792})
	got := docmodel.Render(blocks).Text
	want := "The fishermen of the northern coast repaired their nets through the winter, com paring retrieval-augmented notes and the registers.\n\nA new paragraph."
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestHeadingsListsTables(t *testing.T) {
	p := pageOf(
		run{Text: "Title", Left: 72, Right: 200, Top: 760, Bot: 736, Size: 24},
		run{Text: "Section", Left: 72, Right: 200, Top: 720, Bot: 702, Size: 18},
		run{Text: "• ", Left: 80, Right: 84, Top: 690, Bot: 680, Size: 11},
		run{Text: "first item", Left: 95, Right: 200, Top: 690, Bot: 680, Size: 11},
		run{Text: "2. ", Left: 80, Right: 90, Top: 670, Bot: 660, Size: 11},
		run{Text: "numbered", Left: 95, Right: 200, Top: 670, Bot: 660, Size: 11},
		run{Text: "Name ", Left: 72, Right: 110, Top: 640, Bot: 630, Size: 11},
		run{Text: "Count", Left: 250, Right: 290, Top: 640, Bot: 630, Size: 11},
		run{Text: "Nets ", Left: 72, Right: 100, Top: 627, Bot: 617, Size: 11},
		run{Text: "42", Left: 251, Right: 265, Top: 627, Bot: 617, Size: 11},
		body("-- a comment, not a list item", 600),
		body("Closing words of a long paragraph that fills the page.", 580),
	)
	md := docmodel.Render(structure([][]*line{lines(p, 0)}, []float64{792})).Markdown
	want := "# Title\n\n## Section\n\n- first item\n\n1. numbered\n\n| Name | Count |\n| --- | --- |\n| Nets | 42 |\n\n-- a comment, not a list item\n\nClosing words of a long paragraph that fills the page."
	if md != want {
		t.Errorf("got:\n%s\nwant:\n%s", md, want)
	}
}

// FuzzLayout: any runs give blocks without a panic, and valid UTF-8.
func FuzzLayout(f *testing.F) {
	f.Add("Title\nsome body text\n• item\n1. first\nA\tB", []byte{10, 200, 30, 40, 11, 24, 90, 91})
	f.Fuzz(func(t *testing.T, text string, xs []byte) {
		if len(xs) == 0 {
			return
		}
		var pages [][]*line
		var heights []float64
		at := 0
		nb := func() float64 { v := float64(xs[at%len(xs)]); at++; return v }
		for pi, chunk := range strings.Split(text, "\f") {
			var p page
			p.Width, p.Height = nb()*4, nb()*4
			for _, s := range strings.Split(chunk, "\n") {
				left, top := nb()*3, nb()*4
				p.Runs = append(p.Runs, run{Text: s, Left: left, Right: left + nb()*3, Top: top, Bot: top - nb()/8, Size: nb() / 8})
			}
			pages = append(pages, lines(p, pi))
			heights = append(heights, p.Height)
		}
		r := docmodel.Render(structure(pages, heights))
		if !utf8.ValidString(r.Markdown) && utf8.ValidString(text) {
			t.Fatalf("invalid UTF-8 out of valid input")
		}
	})
}

// Two page-number offsets found on as many pages: the lowest is taken on
// every run (the offsets are counted in a map, whose order changes).
func TestRunningNumberOffsetTieIsStable(t *testing.T) {
	edges := []string{"Alpha 1", "Beta 2", "Gamma 3", "Delta 13", "Epsilon 14", "Zeta 15"}
	bodies := []string{"harbour walls", "quay cranes", "tidal basin", "dry dock", "pilot boats", "ship canal"}
	for run := range 30 {
		var pages [][]*line
		for i := range edges {
			pages = append(pages, []*line{
				{text: bodies[i], top: 700, bot: 690, size: 10, page: i},
				{text: edges[i], top: 40, bot: 30, size: 10, page: i},
			})
		}
		var kept []string
		for _, ls := range dropRunning(pages, 10) {
			for _, l := range ls {
				kept = append(kept, l.text)
			}
		}
		want := []string{"harbour walls", "quay cranes", "tidal basin", "dry dock", "Delta 13", "pilot boats", "Epsilon 14", "ship canal", "Zeta 15"}
		if !slices.Equal(kept, want) {
			t.Fatalf("run %d: kept %q, want %q", run, kept, want)
		}
	}
}
