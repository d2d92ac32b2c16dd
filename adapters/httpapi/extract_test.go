package httpapi_test

import (
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/trawlhq/trawl/testkit/apitest"
	"github.com/trawlhq/trawl/testkit/fakellm"
	"github.com/trawlhq/trawl/testkit/memstore"
	"github.com/trawlhq/trawl/testkit/sites"
)

const productSchema = `{"type":"object","required":["name","price"],"additionalProperties":false,
 "properties":{"name":{"type":"string","minLength":1},"price":{"type":"number"},"tags":{"type":"array","items":{"type":"string"}}}}`

// extractEnv serves a product page and a fake model whose answers a test
// scripts in order (the last one repeats).
func extractEnv(t *testing.T, answers ...string) (*apitest.Env, string, *fakellm.Server) {
	site := sites.New(t, "shop.test")
	site.Handle("/kettle", "text/html", `<html><head><title>Copper kettle</title></head><body><article><h1>Copper kettle</h1>
<p>The copper kettle holds 1.7 litres and boils water in four minutes on any hob, gas or induction alike.</p>
<p>Price: 49.90 euros. It ships with a wooden handle and a whistle that sings when the water is ready.</p></article></body></html>`)
	model := fakellm.New(t)
	var n atomic.Int32
	model.Answer = func(fakellm.Request) string {
		i := int(n.Add(1)) - 1
		return answers[min(i, len(answers)-1)]
	}
	e := apitest.Start(t, memstore.New(), apitest.Options{Resolve: sites.Resolve(site), LLMBaseURL: model.BaseURL()})
	_, tok := e.Account("dev@example.com", "business")
	return e, tok, model
}

func extractBody(schema string) map[string]any {
	return map[string]any{"url": "http://shop.test/kettle", "schema": json.RawMessage(schema), "prompt": "The product on this page."}
}

func TestExtractValid(t *testing.T) {
	e, tok, model := extractEnv(t, `{"name":"Copper kettle","price":49.9,"tags":["kitchen"]}`)
	r := e.Do("POST", "/v1/extract", tok, extractBody(productSchema))
	m := r.JSON(t)
	data, _ := m["data"].(map[string]any)
	if r.Status != 200 || data["name"] != "Copper kettle" || data["price"] != 49.9 || m["url"] != "http://shop.test/kettle" {
		t.Fatalf("extract = %d %s", r.Status, r.Body)
	}
	if r.Header.Get("X-Credits-Charged") != "10" || r.Header.Get("X-Credits-Remaining") != "89990" {
		t.Errorf("credits headers %q %q", r.Header.Get("X-Credits-Charged"), r.Header.Get("X-Credits-Remaining"))
	}
	reqs := model.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d model calls", len(reqs))
	}
	var rf struct {
		Type       string `json:"type"`
		JSONSchema struct {
			Schema map[string]any `json:"schema"`
		} `json:"json_schema"`
	}
	if err := json.Unmarshal(reqs[0].ResponseFormat, &rf); err != nil || rf.Type != "json_schema" || rf.JSONSchema.Schema["type"] != "object" {
		t.Errorf("response_format = %s", reqs[0].ResponseFormat)
	}
	user := reqs[0].Messages[len(reqs[0].Messages)-1].Content
	for _, want := range []string{"The product on this page.", `"required":["name","price"]`, "49.90 euros"} {
		if !strings.Contains(user, want) {
			t.Errorf("the model was not given %q:\n%s", want, user)
		}
	}
	tx := e.Do("GET", "/v1/credits/transactions?per_page=1", tok, nil).JSON(t)["data"].([]any)[0].(map[string]any)
	if tx["service_type"] != "extract" || tx["credits"] != float64(10) {
		t.Errorf("transaction = %v", tx)
	}
	p := e.Do("POST", "/v1/credits/preview-cost", tok, map[string]any{"service_type": "extract", "quantity": 2}).JSON(t)
	if p["total_cost"] != float64(20) || p["service_type"] != "extract" {
		t.Errorf("preview = %v", p)
	}
}

func TestExtractFixedOnRetry(t *testing.T) {
	e, tok, model := extractEnv(t, `{"name":"Copper kettle","price":"49.90 euros"}`, "```json\n{\"name\":\"Copper kettle\",\"price\":49.9}\n```")
	r := e.Do("POST", "/v1/extract", tok, extractBody(productSchema))
	if data, _ := r.JSON(t)["data"].(map[string]any); r.Status != 200 || data["price"] != 49.9 {
		t.Fatalf("extract = %d %s", r.Status, r.Body)
	}
	reqs := model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model calls, want 2", len(reqs))
	}
	last := reqs[1].Messages[len(reqs[1].Messages)-1].Content
	if !strings.Contains(last, "/price") || !strings.Contains(last, "does not validate") {
		t.Errorf("the retry did not say what failed: %s", last)
	}
	if b := balance(t, e, tok); b != 89990 {
		t.Errorf("balance %v", b)
	}
}

func TestExtractFailuresAreFreeAndSayWhy(t *testing.T) {
	for _, c := range []struct {
		name, answer, want string
	}{
		{"invalid twice", `{"name":"Copper kettle","price":"cheap"}`, "/price"},
		{"prose", "The kettle costs 49.90 euros.", "not a JSON value"},
		{"empty object", `{"name":"","price":0,"tags":[]}`, "/name"},
		{"nothing found", `{}`, "missing properties"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e, tok, model := extractEnv(t, c.answer)
			r := e.Do("POST", "/v1/extract", tok, extractBody(productSchema))
			m := r.JSON(t)
			if msg, _ := m["message"].(string); r.Status != 503 || m["reason"] != "llm_failed" || !strings.Contains(msg, c.want) {
				t.Fatalf("extract = %d %s", r.Status, r.Body)
			}
			if len(model.Requests()) != 2 {
				t.Errorf("%d model calls, want 2", len(model.Requests()))
			}
			if b := balance(t, e, tok); b != 90000 || r.Header.Get("X-Credits-Charged") != "0" {
				t.Errorf("a failure was charged: balance %v", b)
			}
		})
	}
	// A schema without required fields still never turns "nothing" into a success.
	e, tok, _ := extractEnv(t, `{"name":null}`)
	r := e.Do("POST", "/v1/extract", tok, extractBody(`{"type":"object","properties":{"name":{"type":["string","null"]}}}`))
	if m := r.JSON(t); r.Status != 503 || !strings.Contains(m["message"].(string), "empty") {
		t.Fatalf("empty answer = %d %s", r.Status, r.Body)
	}
}

func TestExtractWithoutStructuredOutput(t *testing.T) {
	e, tok, model := extractEnv(t, `{"name":"Copper kettle","price":49.9}`)
	model.RefuseResponseFormat = true
	r := e.Do("POST", "/v1/extract", tok, extractBody(productSchema))
	if r.Status != 200 {
		t.Fatalf("extract = %d %s", r.Status, r.Body)
	}
	reqs := model.Requests()
	if len(reqs) != 2 || len(reqs[0].ResponseFormat) == 0 || len(reqs[1].ResponseFormat) != 0 {
		t.Fatalf("calls: %d; the second must drop response_format", len(reqs))
	}
}

func TestExtractRejectsBadInput(t *testing.T) {
	e, tok, model := extractEnv(t, `{"name":"x","price":1}`)
	deep := strings.Repeat(`{"type":"object","properties":{"a":`, 8) + `{"type":"string"}` + strings.Repeat("}}", 8)
	huge := `{"type":"object","description":"` + strings.Repeat("x", 17<<10) + `"}`
	for name, c := range map[string]struct {
		body  map[string]any
		field string
	}{
		"schema missing":     {map[string]any{"url": "http://shop.test/kettle"}, "schema"},
		"schema not object":  {map[string]any{"url": "http://shop.test/kettle", "schema": []int{1}}, "schema"},
		"schema invalid":     {extractBody(`{"type":"objekt"}`), "schema"},
		"schema refers away": {extractBody(`{"$ref":"file:///etc/passwd"}`), "schema"},
		"schema too deep":    {extractBody(deep), "schema"},
		"schema too large":   {extractBody(huge), "schema"},
		"url missing":        {map[string]any{"schema": json.RawMessage(productSchema)}, "url"},
		"url raw IP":         {map[string]any{"url": "http://93.184.216.34/", "schema": json.RawMessage(productSchema)}, "url"},
		"prompt too long":    {map[string]any{"url": "http://shop.test/kettle", "schema": json.RawMessage(productSchema), "prompt": strings.Repeat("p", 4001)}, "prompt"},
	} {
		r := e.Do("POST", "/v1/extract", tok, c.body)
		errs, _ := r.JSON(t)["errors"].(map[string]any)
		if r.Status != 422 || errs[c.field] == nil {
			t.Errorf("%s = %d %s", name, r.Status, r.Body)
		}
		if strings.Contains(string(r.Body), "/etc/") && name != "schema refers away" {
			t.Errorf("%s: the message shows a path: %s", name, r.Body)
		}
	}
	if len(model.Requests()) != 0 {
		t.Errorf("bad input reached the model")
	}
	if b := balance(t, e, tok); b != 90000 {
		t.Errorf("balance %v", b)
	}
	// A schema sent as a JSON string is read as the schema.
	r := e.Do("POST", "/v1/extract", tok, map[string]any{"url": "http://shop.test/kettle", "schema": productSchema})
	if r.Status != 200 {
		t.Errorf("schema as a string = %d %s", r.Status, r.Body)
	}
}
