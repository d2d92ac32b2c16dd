package extract_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/trawlhq/trawl/adapters/extract"
	"github.com/trawlhq/trawl/adapters/fetch"
	"github.com/trawlhq/trawl/core/weburl"
	"github.com/trawlhq/trawl/ports"
)

// Example_embed uses Trawl's fetcher and extractor as a library, with no
// server and no store: fetch a page (with the same address guard the API
// uses) and turn it into Markdown.
func Example_embed() {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<html><head><title>Tides</title></head><body><nav><a href="/">Home</a></nav>
<article><h1>Tides</h1><p>Tides rise and fall twice a day, and the pools they leave behind are full of life.</p>
<h2>Why</h2><p>The Moon and the Sun pull on the oceans, and the Earth turns beneath the bulges they raise.</p></article>
<footer>© Example</footer></body></html>`)
	}))
	defer site.Close()

	// A resolve override lets the example reach its local server; real
	// callers leave Resolve empty and fetch public sites.
	f := fetch.New(fetch.Options{Resolve: map[string]string{"tides.example:80": strings.TrimPrefix(site.URL, "http://")}})
	x := extract.New()
	ctx := context.Background()

	u, err := weburl.Parse("http://tides.example/", weburl.Rules{})
	if err != nil {
		panic(err)
	}
	res, err := f.Fetch(ctx, ports.FetchRequest{URL: u})
	if err != nil {
		panic(err)
	}
	page, err := x.Extract(ctx, ports.ExtractRequest{URL: res.FinalURL, HTML: res.Body})
	if err != nil {
		panic(err)
	}
	fmt.Println(page.Metadata.Title)
	fmt.Println(page.Markdown)
	// Output:
	// Tides
	// Tides rise and fall twice a day, and the pools they leave behind are full of life.
	//
	// ## Why
	//
	// The Moon and the Sun pull on the oceans, and the Earth turns beneath the bulges they raise.
}
