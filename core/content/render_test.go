package content_test

import (
	"strings"
	"testing"

	"github.com/trawlhq/trawl/core/content"
	"github.com/trawlhq/trawl/core/failure"
)

var longText = strings.Repeat("Words a reader came for, in a paragraph of an article. ", 12)

func TestScriptShell(t *testing.T) {
	cases := []struct {
		name string
		html string
		want bool
	}{
		{"react root, bundle", `<html><head><script type="module" src="/assets/index-abc.js"></script></head><body><div id="root"></div></body></html>`, true},
		{"next root", `<body><div id="__next"></div><script src="/_next/static/chunks/main.js"></script></body>`, true},
		{"vue app attribute", `<body><div id="app" data-v-app></div></body>`, true},
		{"angular app-root", `<body><app-root></app-root><script src="main.js"></script></body>`, true},
		{"noscript asks for javascript", `<body><noscript>You need to enable JavaScript to run this app.</noscript><div id="main"><h1>Loading</h1></div></body>`, true},
		{"bundles and almost no text", `<body><div id="shell"><span>…</span></div><script src="/a.js"></script><script src="/b.js"></script></body>`, true},
		{"server-rendered root with text", `<body><div id="root"><article><p>` + longText + `</p></article></div><script src="/hydrate.js"></script></body>`, false},
		{"article with noscript for comments", `<body><article><p>` + longText + longText + `</p></article><noscript>Enable JavaScript to see comments.</noscript></body>`, false},
		{"static article with analytics", `<body><article><h1>Title</h1><p>` + longText + `</p></article><script src="https://stats.example/a.js"></script></body>`, false},
		{"static page without scripts", `<body><p>Short page.</p></body>`, false},
		{"script text does not count as text", `<body><div id="root"></div><script>window.__DATA__ = "` + longText + `"</script></body>`, true},
	}
	for _, c := range cases {
		if got := content.ScriptShell([]byte(c.html)); got != c.want {
			t.Errorf("%s: ScriptShell = %v, want %v", c.name, got, c.want)
		}
	}
}

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
