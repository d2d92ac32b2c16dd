package extract_test

import (
	"context"
	"strings"
	"testing"

	"github.com/trawlhq/trawl/adapters/extract"
	"github.com/trawlhq/trawl/ports"
)

var shellLongText = strings.Repeat("Words a reader came for, in a paragraph of an article. ", 12)

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
		{"server-rendered root with text", `<body><div id="root"><article><p>` + shellLongText + `</p></article></div><script src="/hydrate.js"></script></body>`, false},
		{"article with noscript for comments", `<body><article><p>` + shellLongText + shellLongText + `</p></article><noscript>Enable JavaScript to see comments.</noscript></body>`, false},
		{"static article with analytics", `<body><article><h1>Title</h1><p>` + shellLongText + `</p></article><script src="https://stats.example/a.js"></script></body>`, false},
		{"static page without scripts", `<body><p>Short page.</p></body>`, false},
		{"script text does not count as text", `<body><div id="root"></div><script>window.__DATA__ = "` + shellLongText + `"</script></body>`, true},
	}
	for _, c := range cases {
		if got := extract.ScriptShell([]byte(c.html)); got != c.want {
			t.Errorf("%s: ScriptShell = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestShellReported: the extractor reports the verdict through
// ports.Extracted, alone when asked for it only, and beside a failure.
func TestShellReported(t *testing.T) {
	e := extract.New()
	shell := []byte(`<html><head><title>App</title><script type="module" src="/assets/index.js"></script></head><body><div id="root"></div></body></html>`)
	article := []byte(`<html><head><title>Notes</title></head><body><article><h1>Notes</h1><p>` + shellLongText + `</p><p>` + shellLongText + `</p></article></body></html>`)
	ex, err := e.Extract(context.Background(), ports.ExtractRequest{URL: "https://app.test/", HTML: shell, ShellOnly: true})
	if err != nil || !ex.Shell || ex.Markdown != "" {
		t.Fatalf("shell only: %+v %v", ex, err)
	}
	ex, err = e.Extract(context.Background(), ports.ExtractRequest{URL: "https://app.test/", HTML: shell})
	if err == nil || !ex.Shell {
		t.Fatalf("a shell extracted: %+v %v, want a failure that says it is a shell", ex, err)
	}
	ex, err = e.Extract(context.Background(), ports.ExtractRequest{URL: "https://blog.test/notes", HTML: article})
	if err != nil || ex.Shell || !strings.Contains(ex.Markdown, "Words a reader came for") {
		t.Fatalf("an article: shell %v, %v", ex.Shell, err)
	}
	ex, err = e.Extract(context.Background(), ports.ExtractRequest{URL: "https://blog.test/notes", HTML: article, ShellOnly: true})
	if err != nil || ex.Shell || ex.Markdown != "" {
		t.Fatalf("an article, shell only: %+v %v", ex, err)
	}
}
