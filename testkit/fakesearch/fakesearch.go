// Package fakesearch serves search result pages for tests over real HTTP,
// in the markup each engine uses (a link holding an <h3> for Google,
// li.b_algo for Bing, div.result for DuckDuckGo), so the real adapters and
// parsers run against it. It can also answer with a block page or fail.
package fakesearch

import (
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
)

// Result is one organic result to serve.
type Result struct {
	Title, Link, Snippet string
}

// Engine is one fake engine.
type Engine struct {
	*httptest.Server
	name    string
	mu      sync.Mutex
	results []Result
	mode    string // "", "blocked", "down"
	queries []url.Values
	// Page, when set, is served verbatim (a saved real page).
	Page []byte
}

// New starts a fake engine named google, bing or duckduckgo.
func New(t testing.TB, name string) *Engine {
	e := &Engine{name: name}
	e.Server = httptest.NewServer(http.HandlerFunc(e.handle))
	t.Cleanup(e.Close)
	return e
}

// Serve sets the results of every search.
func (e *Engine) Serve(results ...Result) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.results = results
	e.Page = nil
}

// ServeFile serves a saved result page.
func (e *Engine) ServeFile(t testing.TB, path string) {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.Page = b
}

// Block makes the engine answer with its captcha page; Down with a 502.
func (e *Engine) Block() { e.setMode("blocked") }

// Down makes the engine fail.
func (e *Engine) Down() { e.setMode("down") }

func (e *Engine) setMode(m string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.mode = m
}

// Queries returns the query strings received.
func (e *Engine) Queries() []url.Values {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]url.Values(nil), e.queries...)
}

func (e *Engine) handle(w http.ResponseWriter, r *http.Request) {
	e.mu.Lock()
	e.queries = append(e.queries, r.URL.Query())
	mode, results, page := e.mode, e.results, e.Page
	e.mu.Unlock()
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	switch mode {
	case "down":
		http.Error(w, "bad gateway", http.StatusBadGateway)
		return
	case "blocked":
		w.WriteHeader(http.StatusTooManyRequests)
		fmt.Fprint(w, blockPages[e.name])
		return
	}
	if page != nil {
		_, _ = w.Write(page)
		return
	}
	q := html.EscapeString(r.URL.Query().Get("q"))
	var b strings.Builder
	switch e.name {
	case "google":
		fmt.Fprintf(&b, `<html><head><title>%s - Google Search</title></head><body><form><textarea name="q">%s</textarea></form><div id="result-stats">About 1,234,000 results</div><div id="search">`, q, q)
		for _, res := range results {
			fmt.Fprintf(&b, `<div class="g"><div><a href="%s"><h3>%s</h3><div><cite>%s</cite></div></a></div><div class="VwiC3b"><span>%s</span></div></div>`,
				html.EscapeString(res.Link), html.EscapeString(res.Title), html.EscapeString(res.Link), html.EscapeString(res.Snippet))
		}
		fmt.Fprintf(&b, `</div><div id="bres"><a href="/search?q=%s+near+me">%s near me</a></div></body></html>`, url.QueryEscape(r.URL.Query().Get("q")), q)
	case "bing":
		fmt.Fprintf(&b, `<html><body><input id="sb_form_q" value="%s"><span class="sb_count">About 1.234.000 results</span><ol id="b_results">`, q)
		for _, res := range results {
			fmt.Fprintf(&b, `<li class="b_algo"><h2><a href="%s">%s</a></h2><div class="b_caption"><cite>%s</cite><p>%s</p></div></li>`,
				html.EscapeString(res.Link), html.EscapeString(res.Title), html.EscapeString(res.Link), html.EscapeString(res.Snippet))
		}
		b.WriteString(`</ol></body></html>`)
	default:
		fmt.Fprintf(&b, `<html><body><form><input name="q" value="%s"></form><div id="links">`, q)
		for _, res := range results {
			fmt.Fprintf(&b, `<div class="result web-result"><h2 class="result__title"><a class="result__a" href="//duckduckgo.com/l/?uddg=%s&rut=x">%s</a></h2><a class="result__url" href="#">%s</a><a class="result__snippet">%s</a></div>`,
				url.QueryEscape(res.Link), html.EscapeString(res.Title), html.EscapeString(res.Link), html.EscapeString(res.Snippet))
		}
		b.WriteString(`</div></body></html>`)
	}
	_, _ = w.Write([]byte(b.String()))
}

var blockPages = map[string]string{
	"google":     `<html><head><title>https://www.google.com/search?q=x</title></head><body><div id="captcha-form"><script src="https://www.google.com/recaptcha/api.js"></script><div class="g-recaptcha"></div></div>Our systems have detected unusual traffic from your computer network.<form action="/sorry/index"></form></body></html>`,
	"bing":       `<html><body><div id="b_captcha">Please solve the challenge below to continue. verify you are human</div></body></html>`,
	"duckduckgo": `<html><body><div class="anomaly-modal__title">Unfortunately, bots use DuckDuckGo too.</div><form id="challenge-form"></form></body></html>`,
}
