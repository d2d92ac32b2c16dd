package content_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/trawlhq/trawl/core/content"
	"github.com/trawlhq/trawl/testkit/fakerender"
)

// A page's Keep is asked with the document read before extraction; a
// page it does not want comes back unextracted with its document.
func TestExtractSourceIfAsksBeforeExtracting(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		render bool
		mode   content.RenderMode
		keep   bool
		want   string // the document Keep is shown holds this
	}{
		{"static page kept", false, content.RenderAuto, true, "static"},
		{"static page not kept", false, content.RenderAuto, false, "static"},
		{"rendered page kept", true, content.RenderAlways, true, "rendered"},
		{"rendered page not kept", true, content.RenderAlways, false, "rendered"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rig := newStepRig(t, tc.render)
			u := rig.served("/a", "<html><head><title>Tides static</title></head><body><article><h1>Tides</h1><p>static "+article+"</p></article></body></html>",
				fakerender.Page("Tides rendered", "<article><p>rendered "+article+"</p></article>"))
			var asked []content.Source
			page, src, err := rig.svc.ExtractSourceIf(ctx, u, tc.mode, content.Plan{}, func(s content.Source) bool {
				asked = append(asked, s)
				return tc.keep
			})
			if len(asked) != 1 || !strings.Contains(string(asked[0].HTML), tc.want) || asked[0].FinalURL == "" {
				t.Fatalf("keep asked %d times: %+v", len(asked), asked)
			}
			if !strings.Contains(string(src.HTML), tc.want) {
				t.Fatalf("source %q, want the %s document", src.HTML, tc.want)
			}
			if tc.keep {
				if err != nil || !page.Success || !strings.Contains(page.Markdown, "harbour") {
					t.Fatalf("kept page %+v, %v: want it extracted", page, err)
				}
				return
			}
			if !errors.Is(err, content.ErrNotKept) || page.Success || page.Markdown != "" || page.StatusCode != 200 {
				t.Fatalf("page not kept came back %+v, %v: want ErrNotKept, unextracted", page, err)
			}
		})
	}
}

// Plain text has no document to judge: Keep is not asked.
func TestExtractSourceIfSkipsPlainText(t *testing.T) {
	rig := newStepRig(t, false)
	rig.site.Handle("/t.txt", "text/plain", "The harbour reopened on Monday.")
	asked := 0
	page, _, err := rig.svc.ExtractSourceIf(context.Background(), rig.site.URL("/t.txt"), content.RenderAuto, content.Plan{}, func(content.Source) bool {
		asked++
		return false
	})
	if err != nil || !page.Success || asked != 0 {
		t.Fatalf("plain text: %+v, %v, keep asked %d times", page, err, asked)
	}
}
