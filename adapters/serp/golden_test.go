package serp

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html"

	"github.com/trawlhq/trawl/ports"
)

var update = flag.Bool("update", false, "rewrite the golden files from the parsers' output")

var parsers = map[string]func([]byte) (ports.SearchResults, error){
	"google": ParseGoogle, "bing": ParseBing, "duckduckgo": ParseDuckDuckGo,
}

// TestGolden parses every saved result page and compares the whole result
// with its golden file (testdata/serp/golden). Run with -update after a
// deliberate parser change, and review the diff.
func TestGolden(t *testing.T) {
	for engine, parse := range parsers {
		files, _ := filepath.Glob(filepath.Join("../../testdata/serp", engine, "*.html"))
		if len(files) == 0 {
			t.Fatalf("no fixtures for %s", engine)
		}
		for _, f := range files {
			name := strings.TrimSuffix(filepath.Base(f), ".html")
			t.Run(engine+"/"+name, func(t *testing.T) {
				page, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				res, err := parse(page)
				got := golden{Results: res}
				if err != nil {
					got = golden{Error: err.Error()}
				}
				raw, _ := json.MarshalIndent(got, "", "  ")
				path := filepath.Join("../../testdata/serp/golden", engine, name+".json")
				if *update {
					_ = os.MkdirAll(filepath.Dir(path), 0o755)
					if err := os.WriteFile(path, append(raw, '\n'), 0o644); err != nil {
						t.Fatal(err)
					}
					return
				}
				want, err := os.ReadFile(path)
				if err != nil {
					t.Fatalf("no golden file (run go test -run TestGolden -update): %v", err)
				}
				if strings.TrimSpace(string(want)) != strings.TrimSpace(string(raw)) {
					t.Errorf("%s differs from its golden file %s", f, path)
				}
			})
		}
	}
}

type golden struct {
	Error   string              `json:",omitempty"`
	Results ports.SearchResults `json:",omitempty"`
}

// TestFixtureFacts pins what was checked by hand on each page.
func TestFixtureFacts(t *testing.T) {
	type fact struct {
		organic, paa, related int
		total                 int64
		query                 string
		first                 ports.OrganicResult // Title and Link checked when set
		blocked               bool
		paaAnswers            bool
	}
	facts := map[string]fact{
		"google/serpparser-2023-05-google-desktop-paa-related": {organic: 9, paa: 4, total: 25150000000, query: "google",
			first: ports.OrganicResult{Title: "Google", Link: "https://google.com/"}},
		"google/serpparser-2023-05-featured-snippet-desktop-paa-related": {organic: 9, paa: 4, total: 21700000, query: "featured snippet"},
		"google/serpparser-2023-05-google-mobile-paa":                    {organic: 4, paa: 4, query: "google"},
		"google/serpparser-2023-05-no-results-desktop":                   {organic: 0},
		"google/serpparser-2023-06-coffee-nojs-paa-related": {organic: 10, paa: 4, related: 8, query: "coffee", paaAnswers: true,
			first: ports.OrganicResult{Title: "Coffee - Wikipedia", Link: "https://en.wikipedia.org/wiki/Coffee"}},
		"google/serpparser-2023-06-google-nojs-related":    {organic: 10, query: "google"},
		"google/sep-2021-05-hello-gbv1-paa-related":        {organic: 8, paa: 4, related: 8, query: "Hello"},
		"google/sescraper-2020-01-test-keyword-p1-paa":     {organic: 11, paa: 4, total: 298000000, query: "test keyword"},
		"google/kjellberg-2024-09-matkasse-sv":             {organic: 99, query: "matkasse"},
		"google/serpparser-2020-10-recaptcha":              {blocked: true},
		"bing/celina-2026-07-caffeine-sleep":               {organic: 10, total: 38500, query: "does caffeine affect sleep", first: ports.OrganicResult{Title: "Caffeine and Sleep Problems", Link: "https://www.sleepfoundation.org/nutrition/caffeine-and-sleep"}},
		"bing/serpparser-2021-01-coffee-paa-related":       {organic: 4, paa: 4, related: 8, total: 77100000, query: "coffee", paaAnswers: true},
		"bing/serpparser-2021-01-bing-count50":             {organic: 32, total: 106000000, query: "bing"},
		"bing/serpparser-2021-01-matrix-related":           {organic: 5, related: 8, total: 777000000, query: "The Matrix"},
		"bing/serpparser-2021-01-no-results":               {organic: 0},
		"bing/sep-2021-05-hello-paa-related":               {organic: 9, paa: 4, related: 8, total: 104000000, query: "Hello"},
		"bing/sescraper-2020-01-test-keyword-p1-related":   {organic: 6, related: 8, total: 3600000, query: "test keyword"},
		"duckduckgo/celina-2026-07-html-caffeine-sleep":    {organic: 9, query: "does caffeine affect sleep"},
		"duckduckgo/celina-2026-07-lite-anomaly-captcha":   {blocked: true},
		"duckduckgo/glassfox-2026-02-html-OpenAI-news":     {organic: 10, query: "OpenAI news"},
		"duckduckgo/glassfox-2026-02-html-openclaw":        {organic: 10, query: "openclaw"},
		"duckduckgo/glassfox-2026-02-html-weather-Jakarta": {organic: 10, query: "weather Jakarta"}, // the 11th block is an ad
		"duckduckgo/lofi-2025-04-html-foo-uddg":            {organic: 10, query: "foo"},
		"duckduckgo/sep-2021-05-html-hello":                {organic: 28, query: "Hello"},
	}
	for key, f := range facts {
		engine, name, _ := strings.Cut(key, "/")
		page, err := os.ReadFile(filepath.Join("../../testdata/serp", engine, name+".html"))
		if err != nil {
			t.Fatal(err)
		}
		res, err := parsers[engine](page)
		if f.blocked {
			if err != ErrBlocked {
				t.Errorf("%s: err = %v, want a block page", key, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", key, err)
			continue
		}
		if len(res.Organic) != f.organic || len(res.RelatedQuestions) != f.paa || (f.related > 0 && len(res.RelatedSearches) != f.related) ||
			res.TotalResults != f.total || (f.query != "" && res.QueryDisplayed != f.query) {
			t.Errorf("%s: organic %d paa %d related %d total %d query %q; want %d %d %d %d %q", key, len(res.Organic), len(res.RelatedQuestions),
				len(res.RelatedSearches), res.TotalResults, res.QueryDisplayed, f.organic, f.paa, f.related, f.total, f.query)
		}
		if f.first.Title != "" && (res.Organic[0].Title != f.first.Title || res.Organic[0].Link != f.first.Link) {
			t.Errorf("%s: first result %q %s", key, res.Organic[0].Title, res.Organic[0].Link)
		}
		for i, o := range res.Organic {
			if o.Position != i+1 || o.Title == "" || !strings.HasPrefix(o.Link, "http") || o.DisplayedLink == "" || o.Favicon == "" || o.Source == "" {
				t.Errorf("%s: result %d incomplete: %+v", key, i+1, o)
			}
			if strings.Contains(o.Link, "/url?") || strings.Contains(o.Link, "uddg=") || strings.Contains(o.Link, "/ck/a?") {
				t.Errorf("%s: result %d link not unwrapped: %s", key, i+1, o.Link)
			}
		}
		snippets := 0
		for _, o := range res.Organic {
			if o.Snippet != "" {
				snippets++
			}
		}
		if len(res.Organic) > 0 && snippets < len(res.Organic)*7/10 {
			t.Errorf("%s: only %d of %d results have a snippet", key, snippets, len(res.Organic))
		}
		if f.paaAnswers {
			for _, q := range res.RelatedQuestions {
				if q.Answer == "" || strings.HasPrefix(q.Answer, q.Question) {
					t.Errorf("%s: question %q answer %q", key, q.Question, q.Answer)
				}
			}
		}
		for _, rs := range res.RelatedSearches {
			if rs.Query == "" || !strings.HasPrefix(rs.Link, "https://") {
				t.Errorf("%s: related search %+v", key, rs)
			}
		}
	}
}

func TestLinkUnwrapping(t *testing.T) {
	for in, want := range map[string]string{
		"/url?q=https://example.com/a%3Fb%3D1&sa=U&ved=x":           "https://example.com/a?b=1",
		"https://www.google.com/url?url=https://example.com/&rct=j": "https://example.com/",
		"/search?q=more":                                          "",
		"https://www.google.com/search?q=x":                       "",
		"https://webcache.googleusercontent.com/search?q=cache:x": "",
		"https://en.wikipedia.org/wiki/Coffee":                    "https://en.wikipedia.org/wiki/Coffee",
		"https://maps.google.com/":                                "https://maps.google.com/",
		"javascript:void(0)":                                      "",
	} {
		if got := googleTarget(in); got != want {
			t.Errorf("googleTarget(%q) = %q, want %q", in, got, want)
		}
	}
	if got := bingTarget("https://www.bing.com/ck/a?!&&p=abc&u=a1aHR0cHM6Ly93d3cuc2xlZXBmb3VuZGF0aW9uLm9yZy9udXRyaXRpb24vY2FmZmVpbmUtYW5kLXNsZWVw&ntb=1"); got != "https://www.sleepfoundation.org/nutrition/caffeine-and-sleep" {
		t.Errorf("bing /ck/a = %q", got)
	}
	if got := bingTarget("https://www.bing.com/search?q=x"); got != "" {
		t.Errorf("bing search link = %q", got)
	}
	if got := ddgTarget("//duckduckgo.com/l/?uddg=https%3A%2F%2Fexample.com%2Ffoo&rut=abc"); got != "https://example.com/foo" {
		t.Errorf("ddg uddg = %q", got)
	}
}

func TestParseCount(t *testing.T) {
	for in, want := range map[string]int64{
		"About 25,150,000,000 results (0.62 seconds)": 25150000000,
		"77.100.000 results":                          77100000,
		"Ungefär 1 230 000 resultat":                  1230000,
		"Environ 2 340 000 résultats":                 2340000,
		"Circa 1'234'567 risultati":                   1234567,
		"38 results":                                  38,
		"":                                            0,
	} {
		if got := parseCount(in); got != want {
			t.Errorf("parseCount(%q) = %d, want %d", in, got, want)
		}
	}
}

// text is strings.Join(strings.Fields(s.Text()), " ") in one pass: the two
// agree on every element of every saved page.
func TestTextCollapsesLikeFields(t *testing.T) {
	files, _ := filepath.Glob("../../testdata/serp/*/*.html")
	for _, f := range files {
		page, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := goquery.NewDocumentFromReader(bytes.NewReader(page))
		if err != nil {
			t.Fatal(err)
		}
		doc.Find("*").Each(func(i int, s *goquery.Selection) {
			want := strings.Join(strings.Fields(s.Text()), " ")
			if text(s) != want {
				t.Fatalf("%s element %d <%s>: %q, want %q", f, i, goquery.NodeName(s), text(s), want)
			}
			if got := nodeText(s.Get(0)); got != want {
				t.Fatalf("%s element %d <%s>: nodeText %q, want %q", f, i, goquery.NodeName(s), got, want)
			}
		})
	}
	cases := []string{"", " ", "a", " a\tb\n", "x\u00a0\u00a0y\u2003", "\xff \xfe", "\u0085a\u0085"}
	// Every pair and triple of these pieces: runs of words with single
	// spaces between them, and every other white space around them.
	pieces := []string{"", " ", "  ", "\t", "\n ", "\u00a0", "\u2003", "\u0085", "a", "ab", "é", "x y", " x ", "a b c?"}
	for _, a := range pieces {
		for _, b := range pieces {
			for _, c := range pieces {
				cases = append(cases, a+b+c)
			}
		}
	}
	for _, s := range cases {
		want := strings.Join(strings.Fields(s), " ")
		var c collapser
		c.write(s)
		if c.b.String() != want {
			t.Errorf("%q: %q, want %q", s, c.b.String(), want)
		}
		n := &html.Node{Type: html.ElementNode, Data: "span"}
		n.AppendChild(&html.Node{Type: html.TextNode, Data: s})
		if got := nodeText(n); got != want {
			t.Errorf("nodeText of %q: %q, want %q", s, got, want)
		}
	}
}
