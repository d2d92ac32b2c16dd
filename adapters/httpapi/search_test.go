package httpapi_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/trawlhq/trawl/testkit/apitest"
	"github.com/trawlhq/trawl/testkit/fakellm"
	"github.com/trawlhq/trawl/testkit/fakesearch"
	"github.com/trawlhq/trawl/testkit/memstore"
	"github.com/trawlhq/trawl/testkit/sites"
)

type searchEnv struct {
	*apitest.Env
	tok     string
	engines map[string]*fakesearch.Engine
	llm     *fakellm.Server
}

func newSearchEnv(t *testing.T) *searchEnv {
	site := pageSite(t)
	other := sites.New(t, "wiki.test")
	other.Handle("/tide", "text/html", `<html><head><title>Tide - Wiki</title></head><body><article><p>A tide is the rise and fall of sea levels caused by the combined effects of the gravitational forces exerted by the Moon and the Sun.</p><p>Tide tables can be used for any given locale to find the predicted times and amplitude, which differ from place to place.</p></article></body></html>`)
	sub := sites.New(t, "en.wiki.test")
	sub.Handle("/tide", "text/html", `<html><body><article><p>English subdomain page about tides, long enough to be extracted as the main content of this page by the extractor, which wants prose.</p></article></body></html>`)
	engines := map[string]*fakesearch.Engine{}
	bases := map[string]string{}
	for _, n := range []string{"google", "bing", "duckduckgo"} {
		engines[n] = fakesearch.New(t, n)
		bases[n] = engines[n].URL
	}
	model := fakellm.New(t)
	e := apitest.Start(t, memstore.New(), apitest.Options{Resolve: sites.Resolve(site, other, sub), Engines: bases, LLMBaseURL: model.BaseURL()})
	_, tok := e.Account("dev@example.com", "business")
	return &searchEnv{Env: e, tok: tok, engines: engines, llm: model}
}

var serpResults = []fakesearch.Result{
	{Title: "Tide pools", Link: "http://news.test/tide-pools", Snippet: "How pools survive."},
	{Title: "Missing", Link: "http://news.test/missing", Snippet: "A dead page."},
	{Title: "Raw IP", Link: "http://93.184.216.34/page", Snippet: "An address."},
	{Title: "Odd port", Link: "http://wiki.test:8080/x", Snippet: "A port."},
	{Title: "Tide", Link: "http://wiki.test/tide", Snippet: "Rise and fall."},
	{Title: "English", Link: "http://en.wiki.test/tide", Snippet: "Sub."},
	{Title: "Bench", Link: "http://news.test/bench/1", Snippet: "Another."},
}

func TestSerpValidation(t *testing.T) {
	e := newSearchEnv(t)
	long := strings.Repeat("x", 101)
	for _, c := range []struct{ query, field string }{
		{"", "q"}, {"q=", "q"}, {"q=%20%20", "q"}, {"q=" + long, "q"},
		{"q=a&loc=" + long, "loc"}, {"q=a&hl=abcdefghijk", "hl"}, {"q=a&hl=e%20n", "hl"}, {"q=a&gl=abcdefghijk", "gl"},
		{"q=a&engine=yahoo", "engine"}, {"q=a&engine=", ""},
	} {
		for _, path := range []string{"/v1/serp", "/v1/serp/content"} {
			r := e.Do("GET", path+"?"+c.query, e.tok, nil)
			if c.field == "" {
				continue
			}
			errs, _ := r.JSON(t)["errors"].(map[string]any)
			if r.Status != 422 || errs[c.field] == nil {
				t.Errorf("%s?%s = %d %s; want 422 naming %s", path, c.query, r.Status, r.Body, c.field)
			}
		}
	}
	for _, q := range []string{"max_content=0", "max_content=51", "max_content=ten"} {
		r := e.Do("GET", "/v1/serp/content?q=a&"+q, e.tok, nil)
		if errs, _ := r.JSON(t)["errors"].(map[string]any); r.Status != 422 || errs["max_content"] == nil {
			t.Errorf("%s = %d %s", q, r.Status, r.Body)
		}
	}
	if b := balance(t, e.Env, e.tok); b != 90000-10 { // the valid calls (engine= defaults to google) on both paths
		t.Fatalf("balance %v", b)
	}
}

func TestSerpOnEachEngine(t *testing.T) {
	e := newSearchEnv(t)
	for _, name := range []string{"google", "bing", "duckduckgo"} {
		e.engines[name].Serve(serpResults[:2]...)
		before := len(e.engines[name].Queries())
		r := e.Do("GET", "/v1/serp?q=tide+pools&hl=en&gl=us&loc=Austin,Texas&engine="+name, e.tok, nil)
		m := r.JSON(t)
		if r.Status != 200 {
			t.Fatalf("%s = %d %s", name, r.Status, r.Body)
		}
		info := m["search_information"].(map[string]any)
		org := m["organic_results"].([]any)
		wantQuery := "tide pools"
		if name == "duckduckgo" {
			wantQuery = "tide pools Austin,Texas" // DuckDuckGo has no location parameter: the place joins the query
		}
		if info["query_displayed"] != wantQuery || len(org) != 2 || m["related_questions"] == nil || m["related_searches"] == nil {
			t.Fatalf("%s = %v", name, m)
		}
		if _, ok := info["time_taken"].(float64); !ok {
			t.Errorf("%s time_taken = %v", name, info["time_taken"])
		}
		first := org[0].(map[string]any)
		for _, k := range []string{"position", "title", "link", "snippet", "displayed_link", "thumbnail", "favicon", "sitelinks", "source"} {
			if _, ok := first[k]; !ok {
				t.Errorf("%s: organic result lacks %s", name, k)
			}
		}
		if first["link"] != "http://news.test/tide-pools" || first["position"] != float64(1) || first["title"] != "Tide pools" {
			t.Errorf("%s first = %v", name, first)
		}
		if _, has := first["content"]; has {
			t.Errorf("%s: /v1/serp attached content", name)
		}
		if n := len(e.engines[name].Queries()); n != before+1 {
			t.Errorf("%s was asked %d times", name, n-before)
		}
	}
	if q := e.engines["google"].Queries()[0]; q.Get("uule") == "" || q.Get("hl") != "en" || q.Get("gl") != "us" {
		t.Errorf("google request = %v", q)
	}
	if b := balance(t, e.Env, e.tok); b != 90000-15 {
		t.Fatalf("balance %v, want three searches at 5", b)
	}
	tx := e.Do("GET", "/v1/credits/transactions?per_page=1", e.tok, nil).JSON(t)["data"].([]any)[0].(map[string]any)
	if tx["service_type"] != "serp" || tx["metadata"].(map[string]any)["query"] != "tide pools" {
		t.Errorf("transaction = %v", tx)
	}
}

func TestSerpNeverFallsBack(t *testing.T) {
	e := newSearchEnv(t)
	e.engines["bing"].Serve(serpResults...)
	e.engines["duckduckgo"].Serve(serpResults...)
	e.engines["google"].Block()
	r := e.Do("GET", "/v1/serp?q=tide", e.tok, nil)
	if msg, _ := r.JSON(t)["message"].(string); r.Status != 503 || !strings.Contains(msg, "google") || !strings.Contains(msg, "captcha") {
		t.Fatalf("blocked google = %d %s", r.Status, r.Body)
	}
	e.engines["bing"].Down()
	r = e.Do("GET", "/v1/serp?q=tide&engine=bing", e.tok, nil)
	if msg, _ := r.JSON(t)["message"].(string); r.Status != 503 || !strings.Contains(msg, "bing") {
		t.Fatalf("bing down = %d %s", r.Status, r.Body)
	}
	e.engines["duckduckgo"].Block()
	if r := e.Do("GET", "/v1/serp?q=tide&engine=duckduckgo", e.tok, nil); r.Status != 503 {
		t.Fatalf("blocked ddg = %d", r.Status)
	}
	if len(e.engines["duckduckgo"].Queries()) != 1 || len(e.engines["bing"].Queries()) != 1 {
		t.Fatal("a failed engine's search went to another engine")
	}
	if b := balance(t, e.Env, e.tok); b != 90000 {
		t.Fatalf("failed searches were charged: %v", b)
	}
}

func TestSerpOnASavedRealPage(t *testing.T) {
	e := newSearchEnv(t)
	e.engines["bing"].ServeFile(t, "../../testdata/serp/bing/celina-2026-07-caffeine-sleep.html")
	r := e.Do("GET", "/v1/serp?q=does+caffeine+affect+sleep&engine=bing", e.tok, nil)
	m := r.JSON(t)
	if org, _ := m["organic_results"].([]any); r.Status != 200 || len(org) != 10 || m["search_information"].(map[string]any)["total_results"] != float64(38500) {
		t.Fatalf("saved bing page = %d %.400s", r.Status, r.Body)
	}
}

func organicContents(t *testing.T, m map[string]any) map[string]map[string]any {
	out := map[string]map[string]any{}
	for _, o := range m["organic_results"].([]any) {
		om := o.(map[string]any)
		if c, ok := om["content"].(map[string]any); ok {
			out[om["link"].(string)] = c
		}
	}
	return out
}

func TestSerpContentFiltersAndBilling(t *testing.T) {
	e := newSearchEnv(t)
	e.engines["google"].Serve(serpResults...)
	r := e.Do("GET", "/v1/serp/content?q=tide&max_content=10", e.tok, nil)
	m := r.JSON(t)
	got := organicContents(t, m)
	if r.Status != 200 || len(got) != 5 {
		t.Fatalf("content attached to %d results: %v", len(got), got)
	}
	if _, ok := got["http://93.184.216.34/page"]; ok {
		t.Error("a raw-IP result was fetched")
	}
	if _, ok := got["http://wiki.test:8080/x"]; ok {
		t.Error("a non-default-port result was fetched")
	}
	if c := got["http://news.test/missing"]; c["success"] != false || !strings.Contains(fmt.Sprint(c["errorMessage"]), "404") {
		t.Errorf("failed fetch = %v", c)
	}
	if c := got["http://news.test/tide-pools"]; c["success"] != true || !strings.Contains(c["markdown"].(string), "Three ways to keep cool") {
		t.Errorf("fetched = %v", c)
	}
	if b := balance(t, e.Env, e.tok); b != 90000-(5+2*4) {
		t.Fatalf("balance %v; want 5 + 2 per successful fetch (4)", b)
	}
	tx := e.Do("GET", "/v1/credits/transactions?per_page=5", e.tok, nil).JSON(t)
	if tx["total"] != float64(1) {
		t.Fatalf("one search, one charge: %v", tx)
	}
}

func TestSerpContentStopsAtMaxContent(t *testing.T) {
	e := newSearchEnv(t)
	e.engines["duckduckgo"].Serve(serpResults...)
	r := e.Do("GET", "/v1/serp/content?q=tide&engine=duckduckgo&max_content=2", e.tok, nil)
	got := organicContents(t, r.JSON(t))
	// Position order: tide-pools succeeds, missing fails, IP and port are skipped, wiki.test/tide succeeds: stop.
	successes := 0
	for _, c := range got {
		if c["success"] == true {
			successes++
		}
	}
	if successes != 2 || got["http://news.test/tide-pools"] == nil || got["http://wiki.test/tide"] == nil || got["http://en.wiki.test/tide"] != nil || got["http://news.test/bench/1"] != nil {
		t.Fatalf("max_content 2 fetched %v", keys(got))
	}
	if b := balance(t, e.Env, e.tok); b != 90000-9 {
		t.Fatalf("balance %v", b)
	}
}

func keys(m map[string]map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestSerpContentListSyntaxes(t *testing.T) {
	e := newSearchEnv(t)
	e.engines["bing"].Serve(serpResults...)
	for name, c := range map[string]struct {
		query string
		want  []string
	}{
		"whitelist brackets":        {"whitelist_domains[]=wiki.test", []string{"http://wiki.test/tide", "http://en.wiki.test/tide"}},
		"whitelist repeated":        {"whitelist_domains=WIKI.test&whitelist_domains=nothing.test", []string{"http://wiki.test/tide", "http://en.wiki.test/tide"}},
		"whitelist comma":           {"whitelist_domains=nothing.test,*.wiki.test", []string{"http://wiki.test/tide", "http://en.wiki.test/tide"}},
		"blacklist beats whitelist": {"whitelist_domains[]=wiki.test&blacklist_domains[]=en.wiki.test", []string{"http://wiki.test/tide"}},
		"blacklist only":            {"blacklist_domains=news.test,wiki.test", nil},
		"indexed brackets":          {"whitelist_domains[0]=en.wiki.test", []string{"http://en.wiki.test/tide"}},
	} {
		r := e.Do("GET", "/v1/serp/content?engine=bing&q=tide&"+c.query, e.tok, nil)
		got := organicContents(t, r.JSON(t))
		if r.Status != 200 || len(got) != len(c.want) {
			t.Errorf("%s: fetched %v, want %v", name, keys(got), c.want)
			continue
		}
		for _, w := range c.want {
			if got[w] == nil {
				t.Errorf("%s: %s not fetched (%v)", name, w, keys(got))
			}
		}
		if org := r.JSON(t)["organic_results"].([]any); len(org) != len(serpResults) {
			t.Errorf("%s: filters changed the results (%d)", name, len(org))
		}
	}
}

func TestPrompt(t *testing.T) {
	e := newSearchEnv(t)
	for _, body := range []any{map[string]any{}, map[string]any{"prompt": ""}, map[string]any{"prompt": "   "}, map[string]any{"prompt": 5},
		map[string]any{"prompt": "hi", "url": "http://127.0.0.1/"}, map[string]any{"prompt": "hi", "url": "notaurl"}, map[string]any{"prompt": "hi", "url": "http://news.test:81/"}} {
		r := e.Do("POST", "/v1/prompt", e.tok, body)
		if r.Status != 422 {
			t.Errorf("prompt %v = %d %s", body, r.Status, r.Body)
		}
	}
	r := e.Do("POST", "/v1/prompt", e.tok, map[string]any{"prompt": "Summarise tide pools"})
	if m := r.JSON(t); r.Status != 200 || m["response"] != "[test-model] You asked: Summarise tide pools" || len(m) != 1 {
		t.Fatalf("prompt = %d %s", r.Status, r.Body)
	}
	r = e.Do("POST", "/v1/prompt", e.tok, map[string]any{"prompt": "What keeps the pools cool?", "url": "http://news.test/tide-pools"})
	if r.Status != 200 {
		t.Fatalf("grounded prompt = %d %s", r.Status, r.Body)
	}
	reqs := e.llm.Requests()
	user := reqs[len(reqs)-1].Messages[1].Content
	if !strings.Contains(user, "What keeps the pools cool?") || !strings.Contains(user, "## Three ways to keep cool") || !strings.Contains(user, "URL: http://news.test/tide-pools") {
		t.Fatalf("the model was not given the page:\n%s", user)
	}
	if b := balance(t, e.Env, e.tok); b != 90000-20 {
		t.Fatalf("balance %v, want two prompts at 10 (extraction included)", b)
	}
	if r := e.Do("POST", "/v1/prompt", e.tok, map[string]any{"prompt": "x", "url": "http://news.test/missing"}); r.Status != 503 {
		t.Fatalf("unextractable page = %d", r.Status)
	}
	e.llm.FailNext(500, 500, 500, 500)
	r = e.Do("POST", "/v1/prompt", e.tok, map[string]any{"prompt": "x"})
	if msg, _ := r.JSON(t)["message"].(string); r.Status != 503 || !strings.Contains(msg, "No response could be produced") {
		t.Fatalf("model down = %d %s", r.Status, r.Body)
	}
	if b := balance(t, e.Env, e.tok); b != 90000-20 {
		t.Fatalf("failed prompts were charged: %v", b)
	}
}

func TestPromptWithoutModel(t *testing.T) {
	e := apitest.Start(t, memstore.New(), apitest.Options{})
	_, tok := e.Account("dev@example.com", "basic")
	r := e.Do("POST", "/v1/prompt", tok, map[string]any{"prompt": "hello"})
	if msg, _ := r.JSON(t)["message"].(string); r.Status != 503 || !strings.Contains(msg, "no language model is configured") {
		t.Fatalf("no model = %d %s", r.Status, r.Body)
	}
	if b := balance(t, e, tok); b != 6000 {
		t.Fatalf("charged %v", 6000-b)
	}
}
