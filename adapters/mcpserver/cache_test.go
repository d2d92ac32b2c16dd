package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/trawlhq/trawl/testkit/apitest"
	"github.com/trawlhq/trawl/testkit/fakellm"
	"github.com/trawlhq/trawl/testkit/fakesearch"
	"github.com/trawlhq/trawl/testkit/memstore"
	"github.com/trawlhq/trawl/testkit/sites"
)

// TestCacheAndChangesTools: the page tools take max_age, store, changes
// and tag, and say in their answers (structured and text) whether a page
// came from the cache and how it compares with the previous read.
func TestCacheAndChangesTools(t *testing.T) {
	site := sites.New(t, "watch.test")
	page := sites.NewPricing(10)
	site.Mux.Handle("/pricing", page)
	eng := fakesearch.New(t, "google")
	eng.Serve(fakesearch.Result{Title: "Pricing", Link: "http://watch.test/pricing", Snippet: "Plans."})
	model := fakellm.New(t)
	model.Answer = func(fakellm.Request) string { return `{"basic":10}` }
	e := apitest.Start(t, memstore.New(), apitest.Options{Resolve: sites.Resolve(site), Engines: map[string]string{"google": eng.URL}, LLMBaseURL: model.BaseURL(),
		NoWorker: true, CacheMaxBytes: 64 << 20})
	_, tok := e.Account("agent@example.com", "business")
	session := inMemory(t, &world{e: e, tok: tok, model: model})
	ctx := context.Background()
	call := func(tool string, args map[string]any) (map[string]any, string) {
		t.Helper()
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil || res.IsError {
			t.Fatalf("%s %v: %v %s", tool, args, err, text(res))
		}
		raw, _ := json.Marshal(res.StructuredContent)
		var out map[string]any
		_ = json.Unmarshal(raw, &out)
		return out, text(res)
	}
	url := "http://watch.test/pricing"
	out, _ := call("content", map[string]any{"url": url, "max_age": 3600, "changes": true})
	if c, _ := out["change"].(map[string]any); c["status"] != "new" {
		t.Fatalf("first content: %v", out["change"])
	}
	e.Clock.Advance(time.Minute)
	out, txt := call("scrape", map[string]any{"url": url, "max_age": 3600})
	if c, _ := out["cache"].(map[string]any); c["hit"] != true || c["age"] != 60.0 || !strings.Contains(txt, "Cache: hit, 60 seconds old") {
		t.Fatalf("scrape with max_age: %v\n%s", out["cache"], txt)
	}
	page.Set(12)
	e.Clock.Advance(time.Hour)
	out, txt = call("content", map[string]any{"url": url, "changes": true, "store": false})
	c, _ := out["change"].(map[string]any)
	if c["status"] != "changed" || !strings.Contains(fmt.Sprint(c["diff"]), "+Basic costs 12 euros") ||
		!strings.Contains(txt, "Change: changed since 2026-06-15T12:00:00Z") || !strings.Contains(txt, "-Basic costs 10 euros") {
		t.Fatalf("changed page: %v\n%s", c, txt)
	}
	out, _ = call("content", map[string]any{"url": url, "changes": true, "tag": "weekly"})
	if c, _ := out["change"].(map[string]any); c["status"] != "new" {
		t.Fatalf("a new tag: %v", out["change"])
	}
	for i, hit := range []bool{false, true} {
		out, _ = call("search", map[string]any{"query": "pricing", "max_age": 3600})
		if c, _ := out["cache"].(map[string]any); c["hit"] != hit {
			t.Fatalf("search %d: cache %v, want hit %v", i, out["cache"], hit)
		}
	}
	out, _ = call("search_content", map[string]any{"query": "pricing", "max_age": 3600, "max_content": 1})
	if c, _ := out["cache"].(map[string]any); c["hit"] != true {
		t.Fatalf("search_content: cache %v, want the results from the cache", out["cache"])
	}
	out, _ = call("extract", map[string]any{"url": url, "changes": true, "schema": map[string]any{"type": "object", "required": []string{"basic"},
		"properties": map[string]any{"basic": map[string]any{"type": "number"}}}})
	if c, _ := out["change"].(map[string]any); c["status"] != "new" {
		t.Fatalf("extract: change %v", out["change"])
	}
	for _, tool := range []string{"bulk_submit", "crawl_submit"} {
		args := map[string]any{"url": url, "urls": []string{url}, "email": true, "max_age": 3600, "store": false, "changes": true, "tag": "launch"}
		if tool == "bulk_submit" {
			delete(args, "url")
		} else {
			delete(args, "urls")
			delete(args, "email")
		}
		if out, _ := call(tool, args); out["status"] != "queued" {
			t.Fatalf("%s: %v", tool, out)
		}
		args["tag"] = strings.Repeat("x", 101)
		res, _ := session.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		if !res.IsError || !strings.Contains(text(res), "tag:") {
			t.Errorf("%s with a long tag: %s", tool, text(res))
		}
	}
	res, _ := session.CallTool(ctx, &mcp.CallToolParams{Name: "content", Arguments: map[string]any{"url": url, "max_age": -1}})
	if !res.IsError || !strings.Contains(text(res), "max_age:") {
		t.Errorf("a negative max_age: %s", text(res))
	}
}
