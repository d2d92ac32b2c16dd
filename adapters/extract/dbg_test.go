package extract

import (
	"os"
	"strings"
	"testing"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"github.com/trawlhq/trawl/adapters/extract/extractbench"
)

func TestDebugPage(t *testing.T) {
	pages, _ := extractbench.Load("../../testdata/extraction/dev")
	for _, p := range pages {
		if !strings.HasPrefix(p.ID, os.Getenv("PAGE")) {
			continue
		}
		doc, _ := html.Parse(strings.NewReader(string(p.HTML)))
		body := findFirst(doc, atom.Body)
		prepare(body)
		removeBoilerplate(body)
		top, cands := topCandidate(body)
		if top == nil { t.Log("no top"); return }
		t.Logf("top %s class=%q id=%q score=%.1f", top.Data, attr(top, "class"), attr(top, "id"), func() float64 { if c := cands[top]; c != nil { return c.score }; return -1 }())
		parts := gatherSiblings(top, cands)
		t.Logf("parts %d", len(parts))
		c := &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div}
		for _, p := range parts { p.Parent.RemoveChild(p); c.AppendChild(p) }
		t.Logf("before clean: %.300s", renderText(c))
		cleanConditionally(c)
		t.Logf("after clean: %.300s", renderText(c))
	}
}
