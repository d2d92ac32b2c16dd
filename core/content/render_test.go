package content_test

import (
	"strings"
	"testing"

	"github.com/trawlhq/trawl/core/content"
	"github.com/trawlhq/trawl/core/failure"
)

func TestStepUp(t *testing.T) {
	noContent := failure.E("extract", failure.Unavailable, "The page could not be extracted: no main content was found.")
	invalid := failure.Invalidf("extract", "url", "bad")
	cases := []struct {
		name string
		mode content.RenderMode
		o    content.StaticOutcome
		want bool
	}{
		{"always renders whatever the static page", content.RenderAlways, content.StaticOutcome{}, true},
		{"always renders a good page too", content.RenderAlways, content.StaticOutcome{StatusCode: 200, Markup: true, ExtractDone: true}, true},
		{"never does not render a shell", content.RenderNever, content.StaticOutcome{StatusCode: 200, Markup: true, Shell: true}, false},
		{"never does not render without content", content.RenderNever, content.StaticOutcome{StatusCode: 200, Markup: true, ExtractDone: true, ExtractErr: noContent}, false},
		{"auto renders a script shell", content.RenderAuto, content.StaticOutcome{StatusCode: 200, Markup: true, Shell: true}, true},
		{"auto renders a 2xx page without main content", content.RenderAuto, content.StaticOutcome{StatusCode: 203, Markup: true, ExtractDone: true, ExtractErr: noContent}, true},
		{"auto keeps a page that extracted", content.RenderAuto, content.StaticOutcome{StatusCode: 200, Markup: true, ExtractDone: true}, false},
		{"auto before extraction of a non-shell", content.RenderAuto, content.StaticOutcome{StatusCode: 200, Markup: true}, false},
		{"auto does not render a 404 shell", content.RenderAuto, content.StaticOutcome{StatusCode: 404, Markup: true, Shell: true}, false},
		{"auto does not render a 500 without content", content.RenderAuto, content.StaticOutcome{StatusCode: 500, Markup: true, ExtractDone: true, ExtractErr: noContent}, false},
		{"auto does not render a redirect status", content.RenderAuto, content.StaticOutcome{StatusCode: 304, Markup: true, Shell: true}, false},
		{"auto does not render a non-document", content.RenderAuto, content.StaticOutcome{StatusCode: 200, Markup: false, Shell: true}, false},
		{"auto does not render on another kind of failure", content.RenderAuto, content.StaticOutcome{StatusCode: 200, Markup: true, ExtractDone: true, ExtractErr: invalid}, false},
		{"empty mode is auto", "", content.StaticOutcome{StatusCode: 200, Markup: true, Shell: true}, true},
	}
	for _, c := range cases {
		if got := content.StepUp(c.mode, c.o); got != c.want {
			t.Errorf("%s: StepUp = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestParseRenderMode(t *testing.T) {
	for in, want := range map[string]content.RenderMode{"": content.RenderAuto, "auto": content.RenderAuto, "ALWAYS": content.RenderAlways, " never ": content.RenderNever} {
		if got, err := content.ParseRenderMode(in, "render"); err != nil || got != want {
			t.Errorf("ParseRenderMode(%q) = %q, %v", in, got, err)
		}
	}
	_, err := content.ParseRenderMode("sometimes", "render")
	if !failure.Is(err, failure.Invalid) || !strings.Contains(err.Error(), "render") {
		t.Fatalf("ParseRenderMode(sometimes) = %v", err)
	}
}
