package mcpserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/trawlhq/trawl/adapters/httpapi"
	"github.com/trawlhq/trawl/adapters/mcpserver"
	"github.com/trawlhq/trawl/client"
	"github.com/trawlhq/trawl/testkit/apitest"
	"github.com/trawlhq/trawl/testkit/fakellm"
	"github.com/trawlhq/trawl/testkit/fakesearch"
	"github.com/trawlhq/trawl/testkit/memstore"
	"github.com/trawlhq/trawl/testkit/sites"
)

const article = `<html><head><title>Tide pools</title></head><body><article><h1>Tide pools</h1>
<p>Tides rise and fall twice a day, and the pools they leave behind are full of life, from anemones to crabs and snails.</p>
<p>Shade and depth decide which animals survive the summer heat in those pools, researchers found in a study of forty pools.</p></article></body></html>`

type world struct {
	e     *apitest.Env
	tok   string
	model *fakellm.Server
}

// Start serves the API on fixture sites, a fake engine and a fake model.
func Start(t *testing.T) *world {
	site := sites.New(t, "shore.test")
	site.Handle("/tides", "text/html", article)
	site.Handle("/challenge", "text/html", `<html><head><title>Just a moment...</title></head><body><script>window._cf_chl_opt={}</script></body></html>`)
	site.Handle("/sitemap.xml", "application/xml", `<urlset><url><loc>http://shore.test/tides</loc></url><url><loc>http://shore.test/crabs</loc></url></urlset>`)
	eng := fakesearch.New(t, "google")
	eng.Serve(fakesearch.Result{Title: "Tide pools", Link: "http://shore.test/tides", Snippet: "Life in the pools."})
	model := fakellm.New(t)
	model.Answer = func(r fakellm.Request) string {
		if len(r.ResponseFormat) > 0 {
			return `{"topic":"tide pools"}`
		}
		return "Pools are full of life."
	}
	mount := func(api *httpapi.API, e *apitest.Env) {
		api.Mount("/mcp", mcpserver.Handler(api.Handler(), e.Services, "test"))
	}
	e := apitest.Start(t, memstore.New(), apitest.Options{Resolve: sites.Resolve(site), Engines: map[string]string{"google": eng.URL}, LLMBaseURL: model.BaseURL(), NoWorker: true, Mount: mount})
	_, tok := e.Account("agent@example.com", "business")
	return &world{e: e, tok: tok, model: model}
}

// calls are one call of each tool with what its answer must hold.
var calls = []struct {
	tool string
	args map[string]any
	want string
}{
	{"scrape", map[string]any{"url": "http://shore.test/tides"}, `"status_code":200`},
	{"content", map[string]any{"url": "http://shore.test/tides"}, "Shade and depth decide"},
	{"map", map[string]any{"url": "http://shore.test/"}, "http://shore.test/crabs"},
	{"search", map[string]any{"query": "tide pools"}, "Life in the pools."},
	{"search_content", map[string]any{"query": "tide pools", "max_content": 1}, "Shade and depth decide"},
	{"prompt", map[string]any{"prompt": "What lives there?", "url": "http://shore.test/tides"}, "Pools are full of life."},
	{"extract", map[string]any{"url": "http://shore.test/tides", "schema": map[string]any{"type": "object", "required": []string{"topic"},
		"properties": map[string]any{"topic": map[string]any{"type": "string"}}}}, `"topic":"tide pools"`},
	{"bulk_submit", map[string]any{"urls": []string{"http://shore.test/tides"}, "email": true}, `"status":"queued"`},
	{"crawl_submit", map[string]any{"url": "http://shore.test/", "limit": 5, "exclude": []string{"/challenge"}}, `"status":"queued"`},
	{"credits", map[string]any{}, `"balance":`},
}

// exercise lists the tools and calls each one through session.
func exercise(t *testing.T, w *world, session *mcp.ClientSession) {
	ctx := context.Background()
	list, err := session.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range list.Tools {
		names = append(names, tl.Name)
		if len(tl.Description) < 40 || tl.InputSchema == nil {
			t.Errorf("tool %s: description %q, input schema %v", tl.Name, tl.Description, tl.InputSchema)
		}
	}
	slices.Sort(names)
	want := slices.Clone(mcpserver.Tools)
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Fatalf("tools = %v, want %v", names, want)
	}
	var jobID, crawlID string
	for _, c := range calls {
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
		if err != nil {
			t.Fatalf("%s: %v", c.tool, err)
		}
		structured, _ := json.Marshal(res.StructuredContent)
		if res.IsError || !strings.Contains(string(structured), c.want) {
			t.Errorf("%s: error %v, %s; want %q", c.tool, res.IsError, text(res), c.want)
		}
		if c.tool == "bulk_submit" {
			var ack struct {
				JobID string `json:"job_id"`
			}
			_ = json.Unmarshal(structured, &ack)
			jobID = ack.JobID
		}
		if c.tool == "crawl_submit" {
			var ack struct {
				CrawlID string `json:"crawl_id"`
			}
			_ = json.Unmarshal(structured, &ack)
			crawlID = ack.CrawlID
		}
	}
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "crawl_status", Arguments: map[string]any{"crawl_id": crawlID, "per_page": 5}})
	if st, _ := json.Marshal(res.StructuredContent); err != nil || res.IsError || !strings.Contains(string(st), crawlID) || !strings.Contains(string(st), `"status":"queued"`) {
		t.Errorf("crawl_status: %v %s", err, text(res))
	}
	res, _ = session.CallTool(ctx, &mcp.CallToolParams{Name: "crawl_submit", Arguments: map[string]any{"url": "http://shore.test/", "limit": 10001}})
	if !res.IsError || !strings.Contains(text(res), "limit:") {
		t.Errorf("a crawl over the limit: %s", text(res))
	}
	res, err = session.CallTool(ctx, &mcp.CallToolParams{Name: "bulk_status", Arguments: map[string]any{"job_id": jobID}})
	if st, _ := json.Marshal(res.StructuredContent); err != nil || res.IsError || !strings.Contains(string(st), jobID) {
		t.Errorf("bulk_status: %v %s", err, text(res))
	}
	// A failure says why, in words an agent can act on, and costs nothing.
	before, _ := w.e.Credits.Status(ctx, accountOf(t, w))
	res, err = session.CallTool(ctx, &mcp.CallToolParams{Name: "content", Arguments: map[string]any{"url": "http://shore.test/challenge"}})
	if err != nil || !res.IsError || !strings.Contains(text(res), "reason: captcha") || !strings.Contains(text(res), "retrying will not help") {
		t.Errorf("a failed call: %v %s", err, text(res))
	}
	res, _ = session.CallTool(ctx, &mcp.CallToolParams{Name: "content", Arguments: map[string]any{"url": "http://10.0.0.1/"}})
	if !res.IsError || !strings.Contains(text(res), "url:") {
		t.Errorf("a bad URL: %s", text(res))
	}
	after, _ := w.e.Credits.Status(ctx, accountOf(t, w))
	if before.Balance != after.Balance {
		t.Errorf("failures were charged: %d -> %d", before.Balance, after.Balance)
	}
	// scrape 1 + content 2 + map 3 + search 5 + search_content 5+2 + prompt 10 + extract 10
	if after.Balance != 90000-38 {
		t.Errorf("balance %d, want %d", after.Balance, 90000-38)
	}
}

func accountOf(t *testing.T, w *world) int64 {
	p, err := w.e.Auth.Authenticate(context.Background(), "Bearer "+w.tok)
	if err != nil {
		t.Fatal(err)
	}
	return p.Account.ID
}

func text(res *mcp.CallToolResult) string {
	if res == nil {
		return ""
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func connect(t *testing.T, tr mcp.Transport) *mcp.ClientSession {
	session, err := mcp.NewClient(&mcp.Implementation{Name: "test-agent", Version: "1"}, nil).Connect(context.Background(), tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = session.Close() })
	return session
}

func TestToolsInMemory(t *testing.T) {
	w := Start(t)
	exercise(t, w, inMemory(t, w))
}

// bearer adds a token to every request.
type bearer struct{ tok string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if b.tok != "" {
		r.Header.Set("Authorization", "Bearer "+b.tok)
	}
	return http.DefaultTransport.RoundTrip(r)
}

func TestToolsOverStreamableHTTP(t *testing.T) {
	w := Start(t)
	endpoint := w.e.Server.URL + "/mcp"
	exercise(t, w, connect(t, &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: &http.Client{Transport: bearer{w.tok}}, DisableStandaloneSSE: true}))
	for _, tok := range []string{"", "trawl_wrong"} {
		_, err := mcp.NewClient(&mcp.Implementation{Name: "intruder", Version: "1"}, nil).Connect(context.Background(),
			&mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: &http.Client{Transport: bearer{tok}}, MaxRetries: -1, DisableStandaloneSSE: true}, nil)
		if err == nil {
			t.Errorf("token %q: connected", tok)
		}
	}
	// The tool calls counted against the account's limit like API calls.
	r := w.e.Do("GET", "/v1/content?url=http://shore.test/tides", w.tok, nil)
	if r.Header.Get("RateLimit-Remaining") == "" || r.Header.Get("RateLimit-Remaining") == r.Header.Get("RateLimit-Limit") {
		t.Errorf("limit after the tool calls: %s of %s", r.Header.Get("RateLimit-Remaining"), r.Header.Get("RateLimit-Limit"))
	}
}

// TestToolsOverStdio runs `trawl mcp` as a desktop agent would: the binary,
// talking MCP on its stdin and stdout, calling the API given by
// TRAWL_API_URL and TRAWL_API_KEY.
func TestToolsOverStdio(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "trawl")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/trawlhq/trawl/app/cmd/trawl").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	w := Start(t)
	cmd := exec.Command(bin, "mcp")
	cmd.Env = append(os.Environ(), "TRAWL_API_URL="+w.e.Server.URL, "TRAWL_API_KEY="+w.tok)
	exercise(t, w, connect(t, &mcp.CommandTransport{Command: cmd}))

	// Without a token it says so and exits 2.
	bare := exec.Command(bin, "mcp")
	bare.Env = []string{"PATH=" + os.Getenv("PATH")}
	out, err := bare.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(out), "TRAWL_API_KEY") {
		t.Errorf("without a key: %v %s", err, out)
	}
}

// TestRenderInMemory: the page tools take render in their input schema and
// pass it through to the API: never reads over HTTP, always asks for a
// browser this server does not have (a free failure that says so), and a
// bad value is refused naming the field.
func TestRenderInMemory(t *testing.T) {
	session := inMemory(t, Start(t))
	ctx := context.Background()
	list, err := session.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	takes := map[string]bool{}
	for _, tl := range list.Tools {
		schema, _ := json.Marshal(tl.InputSchema)
		var s struct {
			Properties map[string]struct {
				Type        any    `json:"type"`
				Description string `json:"description"`
			} `json:"properties"`
		}
		if err := json.Unmarshal(schema, &s); err != nil {
			t.Fatal(err)
		}
		if p, ok := s.Properties["render"]; ok && p.Type == "string" && strings.Contains(p.Description, "always") {
			takes[tl.Name] = true
		}
	}
	for _, name := range []string{"scrape", "content", "search_content", "prompt", "extract", "bulk_submit"} {
		if !takes[name] {
			t.Errorf("tool %s has no render in its input schema", name)
		}
	}
	schema := map[string]any{"type": "object", "required": []string{"topic"}, "properties": map[string]any{"topic": map[string]any{"type": "string"}}}
	for _, c := range []struct {
		tool string
		args map[string]any
		want string // in the answer, or in the error when fail
		fail bool
	}{
		{"content", map[string]any{"url": "http://shore.test/tides", "render": "never"}, `"engine":"http"`, false},
		{"scrape", map[string]any{"url": "http://shore.test/tides", "render": "never"}, `"engine":"http"`, false},
		{"content", map[string]any{"url": "http://shore.test/tides", "render": "always"}, "does not render pages in a browser", true},
		{"content", map[string]any{"url": "http://shore.test/tides", "screenshot": "full"}, "need a browser", true},
		{"content", map[string]any{"url": "http://shore.test/tides", "country": "DE"}, "no proxies by country", true},
		{"content", map[string]any{"url": "http://shore.test/tides", "device": "mobile", "locale": "de-DE"}, `"engine":"http"`, false},
		{"scrape", map[string]any{"url": "http://shore.test/tides", "render": "always"}, "does not render pages in a browser", true},
		{"extract", map[string]any{"url": "http://shore.test/tides", "schema": schema, "render": "never"}, `"topic":"tide pools"`, false},
		{"extract", map[string]any{"url": "http://shore.test/tides", "schema": schema, "render": "always"}, "does not render pages in a browser", true},
		{"extract", map[string]any{"url": "http://shore.test/tides", "schema": schema, "render": "sometimes"}, "render", true},
		{"prompt", map[string]any{"prompt": "What lives there?", "url": "http://shore.test/tides", "render": "always"}, "does not render pages in a browser", true},
		{"bulk_submit", map[string]any{"urls": []string{"http://shore.test/tides"}, "email": true, "render": "sometimes"}, "render", true},
	} {
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
		if err != nil {
			t.Fatalf("%s: %v", c.tool, err)
		}
		got := text(res)
		if !c.fail {
			structured, _ := json.Marshal(res.StructuredContent)
			got = string(structured)
		}
		if res.IsError != c.fail || !strings.Contains(got, c.want) {
			t.Errorf("%s %v: error %v, %s; want %q", c.tool, c.args["render"], res.IsError, got, c.want)
		}
	}
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "bulk_submit", Arguments: map[string]any{"urls": []string{"http://shore.test/tides"}, "email": true, "render": "never"}})
	if err != nil || res.IsError {
		t.Fatalf("bulk_submit with render: %v %s", err, text(res))
	}
	structured, _ := json.Marshal(res.StructuredContent)
	var ack struct {
		JobID string `json:"job_id"`
	}
	_ = json.Unmarshal(structured, &ack)
	res, err = session.CallTool(ctx, &mcp.CallToolParams{Name: "bulk_status", Arguments: map[string]any{"job_id": ack.JobID}})
	if st, _ := json.Marshal(res.StructuredContent); err != nil || !strings.Contains(string(st), `"render":"never"`) {
		t.Errorf("bulk_status of a job submitted with render never: %v %s", err, st)
	}
}

// inMemory is a session with a server whose tools call the API of w.
func inMemory(t *testing.T, w *world) *mcp.ClientSession {
	server := mcpserver.New(client.New(w.e.Server.URL, w.tok, client.WithAttempts(1)), "test")
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	return connect(t, ct)
}

// checkSchema fails unless s is an object schema whose every subschema is
// a JSON object: some clients (the official TypeScript SDK among them)
// refuse a tool list with a bare true or false as a property's schema.
func checkSchema(t *testing.T, where string, s any) {
	t.Helper()
	raw, _ := json.Marshal(s)
	var root map[string]any
	if err := json.Unmarshal(raw, &root); err != nil || root["type"] != "object" {
		t.Errorf("%s: not an object schema: %s", where, raw)
		return
	}
	var walk func(path string, v any)
	walk = func(path string, v any) {
		m, ok := v.(map[string]any)
		if !ok {
			t.Errorf("%s: %s is %v, not a schema object", where, path, v)
			return
		}
		props, _ := m["properties"].(map[string]any)
		for name, p := range props {
			walk(path+"."+name, p)
		}
		if items, ok := m["items"]; ok {
			walk(path+"[]", items)
		}
		if ap, ok := m["additionalProperties"]; ok && ap != false {
			walk(path+"{}", ap)
		}
	}
	props, _ := root["properties"].(map[string]any)
	for name, p := range props {
		walk(name, p)
	}
}

// TestToolSchemasAndAnnotations: every tool's input and output schema is an
// object schema made of schema objects; the enumerated arguments list their
// values; the free tools only read, the others reach the open web.
func TestToolSchemasAndAnnotations(t *testing.T) {
	session := inMemory(t, Start(t))
	list, err := session.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	free := map[string]bool{"credits": true, "bulk_status": true, "crawl_status": true, "monitor_list": true, "monitor_get": true}
	// The tools that change the account's monitors: a closed world, not
	// read-only; deleting is destructive.
	writes := map[string]bool{"monitor_create": false, "monitor_update": false, "monitor_delete": true}
	enums := map[string]map[string]string{
		"scrape":         {"render": "auto,always,never", "format": "markdown,html"},
		"content":        {"render": "auto,always,never", "format": "markdown,html", "device": "desktop,mobile", "screenshot": "viewport,full"},
		"search":         {"engine": "google,bing,duckduckgo"},
		"search_content": {"engine": "google,bing,duckduckgo", "render": "auto,always,never"},
		"prompt":         {"render": "auto,always,never"},
		"extract":        {"render": "auto,always,never"},
		"bulk_submit":    {"render": "auto,always,never"},
		"crawl_submit":   {"render": "auto,always,never"},
		"monitor_update": {"status": "active,paused"},
	}
	for _, tl := range list.Tools {
		checkSchema(t, tl.Name+" input", tl.InputSchema)
		if tl.OutputSchema == nil {
			t.Errorf("%s: no output schema", tl.Name)
		} else {
			checkSchema(t, tl.Name+" output", tl.OutputSchema)
		}
		raw, _ := json.Marshal(tl.InputSchema)
		var in struct {
			Properties map[string]struct {
				Enum []string `json:"enum"`
			} `json:"properties"`
		}
		_ = json.Unmarshal(raw, &in)
		for arg, want := range enums[tl.Name] {
			if got := strings.Join(in.Properties[arg].Enum, ","); got != want {
				t.Errorf("%s %s: enum %q, want %q", tl.Name, arg, got, want)
			}
		}
		a := tl.Annotations
		switch {
		case a == nil || a.OpenWorldHint == nil:
			t.Errorf("%s: annotations %+v", tl.Name, a)
		case free[tl.Name] && (!a.ReadOnlyHint || *a.OpenWorldHint):
			t.Errorf("%s is free: want readOnlyHint and a closed world, got %+v", tl.Name, a)
		case free[tl.Name]:
		case hasKey(writes, tl.Name):
			if destructive := writes[tl.Name]; a.ReadOnlyHint || *a.OpenWorldHint || a.DestructiveHint == nil || *a.DestructiveHint != destructive {
				t.Errorf("%s changes the account's monitors: want a closed world, not read-only, destructive %v, got %+v", tl.Name, destructive, a)
			}
		case a.ReadOnlyHint || !*a.OpenWorldHint || a.DestructiveHint == nil || *a.DestructiveHint:
			t.Errorf("%s reads the web: want openWorldHint, not destructive, got %+v", tl.Name, a)
		}
	}
}

func hasKey[V any](m map[string]V, k string) bool {
	_, ok := m[k]
	return ok
}

// TestPageFormats: content and scrape answer Markdown and metadata, as text
// an agent reads and as structured content; HTML only when asked for.
func TestPageFormats(t *testing.T) {
	session := inMemory(t, Start(t))
	ctx := context.Background()
	for _, c := range []struct {
		tool, format string
		want, not    []string // in the text; not in the text nor the structured content
	}{
		{"content", "", []string{"URL: http://shore.test/tides\n", "Title: Tide pools\n", "Status: 200", "\n\nTides rise and fall", "Shade and depth decide"}, []string{"<p>", `"html"`}},
		{"scrape", "", []string{"Title: Tide pools\n", "Status: 200, text/html", "# Tide pools", "Shade and depth decide"}, []string{"<p>", "<title>", `"html"`}},
		{"content", "html", []string{"Title: Tide pools\n", "<p>Shade and depth decide"}, []string{`"markdown"`}},
		{"scrape", "markdown", []string{"# Tide pools"}, []string{"<p>"}},
		{"scrape", "html", []string{"<title>Tide pools</title>"}, []string{`"markdown"`}},
	} {
		args := map[string]any{"url": "http://shore.test/tides"}
		if c.format != "" {
			args["format"] = c.format
		}
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: args})
		if err != nil || res.IsError {
			t.Fatalf("%s %s: %v %s", c.tool, c.format, err, text(res))
		}
		structured, _ := json.Marshal(res.StructuredContent)
		for _, w := range c.want {
			if !strings.Contains(text(res), w) {
				t.Errorf("%s %s: no %q in the text:\n%s", c.tool, c.format, w, text(res))
			}
		}
		for _, n := range c.not {
			if strings.Contains(text(res), n) || strings.Contains(string(structured), n) {
				t.Errorf("%s %s: %q in the answer:\n%s\n%s", c.tool, c.format, n, text(res), structured)
			}
		}
	}
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "content", Arguments: map[string]any{"url": "http://shore.test/tides", "format": "pdf"}})
	if err != nil || !res.IsError || !strings.Contains(text(res), "format") {
		t.Errorf("format pdf: %v %s", err, text(res))
	}
}
