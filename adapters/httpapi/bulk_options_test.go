package httpapi_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/trawlhq/trawl/testkit/apitest"
	"github.com/trawlhq/trawl/testkit/sites"
)

// A bulk job takes the formats and page options a content call takes:
// each page is read with them and its content carries what they ask for,
// for the same 2 credits a URL.
func TestBulkPageOptions(t *testing.T) {
	site := sites.New(t, "opts.test")
	var seen atomic.Int64
	site.Mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Trace") == "tide-42" {
			seen.Add(1)
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<html><body><article><h1>Page %s</h1><p>%s</p><p><a href="/next%s">next</a></p></article></body></html>`, r.URL.Path,
			strings.Repeat("Plain words about the harbour and its boats. ", 8), r.URL.Path)
	})
	rcv := newReceiver(t, 0)
	e, tok, _ := bulkEnv(t, rcv, apitest.Options{NoWorker: true, Resolve: sites.Resolve(site)})
	before := balance(t, e, tok)
	urls := []string{"http://opts.test/a", "http://opts.test/b"}
	r := e.Do("POST", "/v1/content/bulk", tok, map[string]any{"urls": urls, "callback_url": rcv.URL(), "sync": true,
		"formats": []string{"links"}, "headers": map[string]string{"X-Trace": "tide-42"}})
	if r.Status != 200 {
		t.Fatalf("sync job = %d %s", r.Status, r.Body)
	}
	var payload struct {
		SuccessCount int `json:"success_count"`
		Results      []struct {
			URL     string `json:"url"`
			Content *struct {
				Links []struct {
					URL string `json:"url"`
				} `json:"links"`
			} `json:"content"`
		} `json:"results"`
	}
	ds := rcv.deliveries()
	if len(ds) == 0 {
		t.Fatal("the job's webhook did not fire")
	}
	if err := json.Unmarshal(ds[0].body, &payload); err != nil {
		t.Fatal(err)
	}
	if payload.SuccessCount != 2 || len(payload.Results) != 2 {
		t.Fatalf("webhook payload = %s", ds[0].body)
	}
	for _, p := range payload.Results {
		want := strings.Replace(p.URL, "opts.test/", "opts.test/next/", 1)
		if p.Content == nil || len(p.Content.Links) == 0 || p.Content.Links[0].URL != want {
			t.Errorf("%s: links %+v, want %s among them", p.URL, p.Content, want)
		}
	}
	if seen.Load() != 2 {
		t.Errorf("%d requests carried the job's header, want 2", seen.Load())
	}
	if spent := before - balance(t, e, tok); spent != 4 {
		t.Errorf("the job cost %v credits, want 4 (2 a URL; formats add nothing)", spent)
	}

	// Bad options are refused before anything is held, naming the field as
	// a content call names it.
	before = balance(t, e, tok)
	for _, c := range []struct {
		body  map[string]any
		field string
	}{
		{map[string]any{"actions": []map[string]any{{"type": "wait", "milliseconds": 100}, {"type": "scroll", "direction": "down"}, {"type": "click"}}}, "actions[2].selector"},
		{map[string]any{"headers": map[string]string{"Host": "x"}}, "headers.Host"},
		{map[string]any{"formats": []string{"poem"}}, "formats"},
	} {
		c.body["urls"], c.body["email"] = urls, true
		r := e.Do("POST", "/v1/content/bulk", tok, c.body)
		errs, _ := r.JSON(t)["errors"].(map[string]any)
		if r.Status != 422 || errs[c.field] == nil {
			t.Errorf("%v = %d %s, want a 422 naming %s", c.body, r.Status, r.Body, c.field)
		}
	}
	if after := balance(t, e, tok); after != before {
		t.Errorf("refused jobs moved the balance from %v to %v", before, after)
	}
}

// A page read with the caller's headers neither comes from the page cache
// nor goes into it, in a bulk job as in a content call.
func TestBulkPageOptionsGoAroundTheCache(t *testing.T) {
	e, site := cacheEnv(t, 64<<20)
	_, tok := e.Account("a@example.com", "business")
	cacheOf(t, e.Do("GET", pagePath("/v1/content", site.URL("/plain/a"), "max_age", "3600"), tok, nil))
	r := e.Do("POST", "/v1/content/bulk", tok, map[string]any{"urls": []string{site.URL("/plain/a")}, "email": true, "sync": true, "max_age": 3600,
		"headers": map[string]string{"X-Team": "docs"}})
	if r.Status != 200 {
		t.Fatalf("bulk: %d %s", r.Status, r.Body)
	}
	if a, _ := site.counts("/plain/a"); a != 2 {
		t.Fatalf("a bulk job with headers: %d fetches, want 2 (the cached page is not for it)", a)
	}
	r = e.Do("POST", "/v1/content/bulk", tok, map[string]any{"urls": []string{site.URL("/plain/a")}, "email": true, "sync": true, "max_age": 3600})
	if r.Status != 200 {
		t.Fatalf("bulk: %d %s", r.Status, r.Body)
	}
	if a, _ := site.counts("/plain/a"); a != 2 {
		t.Fatalf("a bulk job without options: %d fetches, want 2 (the cached page)", a)
	}
}
