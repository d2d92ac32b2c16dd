// Package rendertest is the contract suite of ports.Renderer: the answers
// and typed reasons every renderer gives, run against Chromium
// (adapters/chromium) and the in-process fake (testkit/fakerender), so the
// fake stays honest.
package rendertest

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/trawlhq/trawl/core/weburl"
	"github.com/trawlhq/trawl/ports"
	"github.com/trawlhq/trawl/testkit/fakerender"
)

// Words are what the page's scripts write: absent from the static page.
const Words = "The tide tables were written into the page by its scripts after it loaded."

// Factory serves h as http://site.test and returns a renderer for it,
// whose address guard resolves private.test to a non-public address.
type Factory func(t *testing.T, h http.Handler) ports.Renderer

// Site is the handler the suite renders.
func Site() http.Handler {
	mux := http.NewServeMux()
	html := func(w http.ResponseWriter, status int, body string) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	}
	mux.HandleFunc("/app", func(w http.ResponseWriter, r *http.Request) {
		html(w, 200, fakerender.Page("Tides", "<article><h1>Tides</h1><p>"+Words+"</p></article>"))
	})
	mux.HandleFunc("/assets/app.js", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/javascript")
	})
	mux.HandleFunc("/old", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/app", http.StatusFound) })
	mux.HandleFunc("/missing", func(w http.ResponseWriter, r *http.Request) {
		html(w, 404, "<html><head><title>Not found</title></head><body><h1>Not found</h1></body></html>")
	})
	mux.HandleFunc("/leave", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://private.test/", http.StatusFound)
	})
	mux.HandleFunc("/hang", func(w http.ResponseWriter, r *http.Request) {
		// Never an answer within the budget; bounded so the server closes.
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	})
	return mux
}

// Run checks a renderer built by newRenderer.
func Run(t *testing.T, newRenderer Factory) {
	r := newRenderer(t, Site())
	render := func(t *testing.T, raw string, budget time.Duration) (ports.RenderResponse, error) {
		t.Helper()
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		return r.Render(context.Background(), ports.RenderRequest{URL: u, Timeout: budget})
	}
	t.Run("ScriptsRun", func(t *testing.T) {
		res, err := render(t, "http://site.test/app", time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(res.HTML), Words) || strings.Contains(string(res.HTML), "<template") {
			t.Fatalf("rendered HTML without what the scripts wrote: %s", res.HTML)
		}
		if res.StatusCode != 200 || res.URL != "http://site.test/app" || res.FinalURL != "http://site.test/app" {
			t.Errorf("status %d, URL %q, final %q", res.StatusCode, res.URL, res.FinalURL)
		}
	})
	t.Run("RedirectsFollowed", func(t *testing.T) {
		res, err := render(t, "http://site.test/old", time.Minute)
		if err != nil || res.FinalURL != "http://site.test/app" || !strings.Contains(string(res.HTML), Words) {
			t.Fatalf("redirect: final %q, %v", res.FinalURL, err)
		}
	})
	t.Run("ErrorStatusIsAnAnswer", func(t *testing.T) {
		res, err := render(t, "http://site.test/missing", time.Minute)
		if err != nil || res.StatusCode != 404 || !strings.Contains(string(res.HTML), "Not found") {
			t.Fatalf("404 page: %d, %v", res.StatusCode, err)
		}
	})
	t.Run("NonPublicTargetRefused", func(t *testing.T) {
		_, err := render(t, "http://site.test/leave", time.Minute)
		if fe, ok := weburl.AsFetchError(err); !ok || fe.Reason != ports.FetchNonPublic {
			t.Fatalf("a page redirected to a non-public address: %v, want the typed reason FetchNonPublic", err)
		}
		_, err = render(t, "http://private.test/", time.Minute)
		if fe, ok := weburl.AsFetchError(err); !ok || fe.Reason != ports.FetchNonPublic {
			t.Fatalf("a non-public page: %v, want FetchNonPublic", err)
		}
	})
	t.Run("NotAWebURL", func(t *testing.T) {
		_, err := render(t, "ftp://site.test/app", time.Minute)
		if fe, ok := weburl.AsFetchError(err); !ok || fe.Reason != ports.FetchBadURL {
			t.Fatalf("ftp: %v, want FetchBadURL", err)
		}
	})
	t.Run("BudgetRunsOut", func(t *testing.T) {
		start := time.Now()
		_, err := render(t, "http://site.test/hang", 2*time.Second)
		var re *ports.RenderError
		if !errors.As(err, &re) || re.Reason != ports.RenderTimeout {
			t.Fatalf("a page that never loads: %v, want RenderTimeout", err)
		}
		if took := time.Since(start); took > 6*time.Second {
			t.Errorf("the render took %s past a 2 s budget", took)
		}
	})
}
