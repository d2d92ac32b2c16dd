// Package browsersite is a fixture site for the browser's tools: a long
// page whose images load lazily, a page that shows its text only after a
// click, a search form, and a page that prints what it received (headers,
// cookies, User-Agent) and what its scripts see (navigator.language, the
// time zone, the viewport).
package browsersite

import (
	"bytes"
	"fmt"
	"html"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"sort"
	"strings"
	"time"
)

// LazyImage is one image of the lazy page: where it is and its colour.
type LazyImage struct {
	Top, Left, Width, Height int
	Color                    color.RGBA
}

// LazyHeight is the lazy page's document height in CSS pixels.
const LazyHeight = 4200

// LazyImages are the lazy page's images, loaded only as they scroll into view.
var LazyImages = []LazyImage{
	{Top: 200, Left: 100, Width: 400, Height: 300, Color: color.RGBA{220, 20, 20, 255}},
	{Top: 1500, Left: 300, Width: 400, Height: 300, Color: color.RGBA{20, 180, 40, 255}},
	{Top: 2700, Left: 100, Width: 400, Height: 300, Color: color.RGBA{30, 60, 220, 255}},
	{Top: 3800, Left: 500, Width: 400, Height: 300, Color: color.RGBA{200, 30, 200, 255}},
}

// RevealedText is what the reveal page shows only after #more is clicked.
const RevealedText = "The second half of the story arrived after the click, fetched from the server."

// Handler serves the fixture pages.
func Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/lazy", lazy)
	mux.HandleFunc("/img/{rgb}", solid)
	mux.HandleFunc("/reveal", reveal)
	mux.HandleFunc("/reveal/text", func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(300 * time.Millisecond) // slower than a click's own handler
		fmt.Fprint(w, RevealedText)
	})
	mux.HandleFunc("/form", form)
	mux.HandleFunc("/form/result", formResult)
	mux.HandleFunc("/echo", echo)
	mux.HandleFunc("/hop", func(w http.ResponseWriter, r *http.Request) {
		// To another host: the caller's headers and cookies must not follow.
		http.Redirect(w, r, r.URL.Query().Get("to"), http.StatusFound)
	})
	return mux
}

const prose = `<p>This long page is a fixture for full-page screenshots. Its pictures load only as they come into view, the way many news sites and shops load theirs, so a screenshot that does not scroll first shows empty frames where they should be.</p>`

func lazy(w http.ResponseWriter, r *http.Request) {
	var b strings.Builder
	b.WriteString(`<!doctype html><html><head><title>A long page</title><style>body{margin:0;font-family:sans-serif} img{position:absolute;display:block;background:#fff}</style></head><body>`)
	fmt.Fprintf(&b, `<div style="position:relative;height:%dpx"><article style="position:absolute;top:520px;left:20px;width:600px"><h1>A long page</h1>%s</article>`, LazyHeight, prose)
	for i, im := range LazyImages {
		fmt.Fprintf(&b, `<img class="lazy" alt="Picture %d" data-src="/img/%02x%02x%02x" style="top:%dpx;left:%dpx;width:%dpx;height:%dpx">`,
			i+1, im.Color.R, im.Color.G, im.Color.B, im.Top, im.Left, im.Width, im.Height)
	}
	b.WriteString(`</div><script>
const io = new IntersectionObserver((entries) => {
  for (const e of entries) if (e.isIntersecting) { e.target.src = e.target.dataset.src; io.unobserve(e.target); }
}, {rootMargin: "0px"});
document.querySelectorAll("img.lazy").forEach((i) => io.observe(i));
</script></body></html>`)
	fmt.Fprint(w, b.String())
}

// solid serves a 40x30 PNG of one colour ("/img/ff0000").
func solid(w http.ResponseWriter, r *http.Request) {
	var c [3]byte
	if _, err := fmt.Sscanf(r.PathValue("rgb"), "%02x%02x%02x", &c[0], &c[1], &c[2]); err != nil {
		http.NotFound(w, r)
		return
	}
	img := image.NewRGBA(image.Rect(0, 0, 40, 30))
	for y := 0; y < 30; y++ {
		for x := 0; x < 40; x++ {
			img.Set(x, y, color.RGBA{c[0], c[1], c[2], 255})
		}
	}
	var buf bytes.Buffer
	_ = png.Encode(&buf, img)
	w.Header().Set("Content-Type", "image/png")
	w.Write(buf.Bytes())
}

func reveal(w http.ResponseWriter, r *http.Request) {
	fmt.Fprint(w, `<!doctype html><html><head><title>Half a story</title></head><body><article><h1>Half a story</h1>
<p>The first half of the story is here from the start, long enough to be an article of its own for the extractor, with a few plain sentences about tides, boats and the harbour at dawn.</p>
<div id="rest"></div><button id="more" onclick="more()">Read more</button></article>
<script>
function more() {
  setTimeout(() => fetch("/reveal/text").then((r) => r.text()).then((t) => {
    const p = document.createElement("p"); p.id = "revealed"; p.textContent = t; document.getElementById("rest").appendChild(p);
  }), 100);
}
</script></body></html>`)
}

func form(w http.ResponseWriter, r *http.Request) {
	fmt.Fprint(w, `<!doctype html><html><head><title>Search</title></head><body><main><h1>Search the harbour archive</h1>
<p>Type a word and press Enter to search the archive of harbour notes, tide tables and ferry timetables kept here.</p>
<form action="/form/result" method="get"><input id="q" name="q" autocomplete="off"></form></main></body></html>`)
}

func formResult(w http.ResponseWriter, r *http.Request) {
	q := html.EscapeString(r.URL.Query().Get("q"))
	fmt.Fprintf(w, `<!doctype html><html><head><title>Results</title></head><body><main><h1>Results for %s</h1>
<p>The archive holds three notes about %s: one on the morning tide, one on the ferry to the islands, and one on the lighthouse keeper's log.</p></main></body></html>`, q, q)
}

// echo prints the request's headers and what the page's scripts see.
func echo(w http.ResponseWriter, r *http.Request) {
	var names []string
	for k := range r.Header {
		names = append(names, k)
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString(`<!doctype html><html><head><title>Echo</title><meta name="viewport" content="width=device-width, initial-scale=1"><style>body{overflow-wrap:anywhere}</style></head><body><main><h1>What this page received</h1>
<p>Each line below is a header of the request that fetched this page, then what its scripts see of the browser they run in.</p><ul>`)
	for _, k := range names {
		fmt.Fprintf(&b, "<li>header %s = %s</li>", html.EscapeString(k), html.EscapeString(strings.Join(r.Header[k], "; ")))
	}
	fmt.Fprintf(&b, `</ul><p id="host">host %s</p><p id="seen">scripts did not run</p>
<script>document.getElementById("seen").textContent = "navigator.language = " + navigator.language +
 "; time zone = " + Intl.DateTimeFormat().resolvedOptions().timeZone + "; touch points = " + navigator.maxTouchPoints +
 "; viewport = " + innerWidth + "x" + innerHeight + "; user agent = " + navigator.userAgent;</script></main></body></html>`, html.EscapeString(r.Host))
	fmt.Fprint(w, b.String())
}
