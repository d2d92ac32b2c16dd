package client

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/trawlhq/trawl/testkit/apitest"
	"github.com/trawlhq/trawl/testkit/memstore"
)

// The client's wire types are checked against the OpenAPI document the
// server serves at /openapi.json, so they cannot drift apart:
//
//   - statically, every request and response type of every method against
//     its operation's schema (TestWireTypesMatchTheServedDocument);
//   - at run time, every request the client sends and every answer it gets in
//     the tests against the real server (checkedTransport, server_test.go).

// wireOp says which operation a Client method calls and which Go types it
// sends and reads.
type wireOp struct {
	method   string // the Client method
	op       string // "METHOD /path" as in the document
	status   int    // the success status whose body response decodes
	request  any    // the JSON body sent, nil when none
	response any    // the JSON body read
}

var wireOps = []wireOp{
	{"User", "GET /user", 200, nil, User{}},
	{"Credits", "GET /v1/credits", 200, nil, Credits{}},
	{"UsageStats", "GET /v1/credits/usage-stats", 200, nil, CreditStatus{}},
	{"Transactions", "GET /v1/credits/transactions", 200, nil, TransactionPage{}},
	{"PreviewCost", "POST /v1/credits/preview-cost", 200, previewRequest{}, CostPreview{}},
	{"CanAfford", "POST /v1/credits/can-afford", 200, previewRequest{}, canAffordResponse{}},
	{"Purchase", "POST /v1/credits/purchase", 200, purchaseRequest{}, Checkout{}},
	{"Scrape", "GET /v1/scrape", 200, nil, Scraped{}},
	{"ScrapeWith", "GET /v1/scrape", 200, nil, Scraped{}},
	{"Content", "GET /v1/content", 200, nil, Content{}},
	{"ContentWith", "POST /v1/content", 200, ContentRequest{}, Content{}},
	{"Map", "GET /v1/map", 200, nil, SiteMap{}},
	{"MapIncludingLinks", "GET /v1/map", 200, nil, SiteMap{}},
	{"Search", "GET /v1/serp", 200, nil, SearchResults{}},
	{"SearchContent", "GET /v1/serp/content", 200, nil, SearchResults{}},
	{"Prompt", "POST /v1/prompt", 200, promptRequest{}, promptResponse{}},
	{"Extract", "POST /v1/extract", 200, ExtractRequest{}, Extracted{}},
	{"CreateBulkJob", "POST /v1/content/bulk", 200, BulkRequest{}, BulkAck{}},
	{"CreateBulkJob", "POST /v1/content/bulk", 202, BulkRequest{}, BulkAck{}},
	{"BulkJob", "GET /v1/content/bulk/{job_id}", 200, nil, BulkJob{}},
	{"CreateCrawl", "POST /v1/crawl", 202, CrawlRequest{}, CrawlAck{}},
	{"Crawl", "GET /v1/crawl/{crawl_id}", 200, nil, CrawlStatus{}},
	{"CrawlPages", "GET /v1/crawl/{crawl_id}/pages", 200, nil, CrawlPages{}},
	{"CancelCrawl", "DELETE /v1/crawl/{crawl_id}", 200, nil, CrawlStatus{}},
	{"CreateMonitor", "POST /v1/monitors", 201, MonitorRequest{}, Monitor{}},
	{"Monitors", "GET /v1/monitors", 200, nil, MonitorPage{}},
	{"Monitor", "GET /v1/monitors/{monitor_id}", 200, nil, Monitor{}},
	{"UpdateMonitor", "PATCH /v1/monitors/{monitor_id}", 200, MonitorPatch{}, Monitor{}},
	{"DeleteMonitor", "DELETE /v1/monitors/{monitor_id}", 204, nil, nil},
}

// servedDocument fetches /openapi.json from a running server, as any
// client generator would.
func servedDocument(t *testing.T) *openapi3.T {
	t.Helper()
	e := apitest.Start(t, memstore.New(), apitest.Options{})
	res, err := http.Get(e.Server.URL + "/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("GET /openapi.json = %d %v", res.StatusCode, err)
	}
	doc, err := openapi3.NewLoader().LoadFromData(raw)
	if err != nil {
		t.Fatalf("the served document does not load: %v", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("the served document is not valid: %v", err)
	}
	return doc
}

func operation(doc *openapi3.T, op string) *openapi3.Operation {
	method, path, _ := strings.Cut(op, " ")
	item := doc.Paths.Find(path)
	if item == nil {
		return nil
	}
	return item.GetOperation(method)
}

func jsonSchema(c openapi3.Content) *openapi3.Schema {
	if mt := c.Get("application/json"); mt != nil && mt.Schema != nil {
		return mt.Schema.Value
	}
	return nil
}

func TestWireTypesMatchTheServedDocument(t *testing.T) {
	doc := servedDocument(t)
	// Every method of the client has its operation in the table.
	listed := map[string]bool{}
	for _, w := range wireOps {
		listed[w.method] = true
	}
	ct := reflect.TypeOf(&Client{})
	for i := range ct.NumMethod() {
		if m := ct.Method(i).Name; !listed[m] {
			t.Errorf("Client.%s is not in wireOps: say which operation it calls and which types it sends and reads", m)
		}
	}
	for _, w := range wireOps {
		op := operation(doc, w.op)
		if op == nil {
			t.Errorf("Client.%s calls %s, which the served document does not have", w.method, w.op)
			continue
		}
		var d drift
		if w.request != nil {
			if op.RequestBody == nil || jsonSchema(op.RequestBody.Value.Content) == nil {
				t.Errorf("Client.%s sends a JSON body to %s, which takes none", w.method, w.op)
			} else {
				d.compare(w.op+" request", reflect.TypeOf(w.request), jsonSchema(op.RequestBody.Value.Content), sending)
			}
		} else if op.RequestBody != nil && op.RequestBody.Value.Required {
			t.Errorf("Client.%s sends no body to %s, which requires one", w.method, w.op)
		}
		res := op.Responses.Status(w.status)
		if w.response == nil { // an answer without a body (204)
			if res == nil || jsonSchema(res.Value.Content) != nil {
				t.Errorf("Client.%s reads no body from a %d of %s, which the document does not describe so", w.method, w.status, w.op)
			}
			for _, m := range d.problems {
				t.Errorf("Client.%s: %s", w.method, m)
			}
			continue
		}
		if res == nil || jsonSchema(res.Value.Content) == nil {
			t.Errorf("Client.%s reads a %d JSON answer from %s, which the document does not describe", w.method, w.status, w.op)
			continue
		}
		d.compare(fmt.Sprintf("%s %d", w.op, w.status), reflect.TypeOf(w.response), jsonSchema(res.Value.Content), reading)
		for _, m := range d.problems {
			t.Errorf("Client.%s: %s", w.method, m)
		}
	}

	// Error answers: every field the client decodes is in some error
	// response of the document, and Retry-After is declared on 429.
	bt := reflect.TypeOf(errorBody{})
	for i := range bt.NumField() {
		f := bt.Field(i)
		name, _ := jsonName(f)
		found := false
		for rname, r := range doc.Components.Responses {
			s := jsonSchema(r.Value.Content)
			if s == nil || s.Properties[name] == nil {
				continue
			}
			var d drift
			d.compare("response "+rname+"."+name, f.Type, s.Properties[name].Value, reading)
			if len(d.problems) == 0 {
				found = true
			}
		}
		if !found {
			t.Errorf("errors: the client decodes %q (%s), which no error response of the document has with a compatible type", name, f.Type)
		}
	}
	tooMany := doc.Components.Responses["TooManyRequests"]
	if tooMany == nil || tooMany.Value.Headers["Retry-After"] == nil || !tooMany.Value.Headers["Retry-After"].Value.Schema.Value.Type.Is("integer") {
		t.Error("errors: the client reads Retry-After as whole seconds; the document's 429 does not declare it an integer")
	}
}

type direction int

const (
	sending direction = iota // a request body: what the client sends
	reading                  // a response body: what the client decodes
)

// drift collects the differences between a Go type and a schema.
type drift struct{ problems []string }

func (d *drift) add(format string, args ...any) {
	d.problems = append(d.problems, fmt.Sprintf(format, args...))
}

func jsonName(f reflect.StructField) (string, bool) {
	tag := f.Tag.Get("json")
	name, opts, _ := strings.Cut(tag, ",")
	if name == "" {
		name = f.Name
	}
	return name, strings.Contains(opts, "omitempty")
}

// variants reduces a schema to its non-null alternatives and whether null
// is allowed.
func variants(s *openapi3.Schema) ([]*openapi3.Schema, bool) {
	if len(s.OneOf) == 0 && len(s.AnyOf) == 0 {
		return []*openapi3.Schema{s}, s.Nullable || s.Type.IncludesNull()
	}
	var out []*openapi3.Schema
	null := false
	for _, r := range append(slices.Clone(s.OneOf), s.AnyOf...) {
		if r.Value.Type.Is("null") {
			null = true
			continue
		}
		out = append(out, r.Value)
	}
	return out, null
}

func typeName(t reflect.Type) string {
	if t.Name() != "" {
		return "client." + t.Name()
	}
	return t.String()
}

// canBeNull reports whether a Go value can tell JSON null from a zero value.
func canBeNull(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface:
		return true
	}
	return false
}

// compare checks Go type t against schema s at where (a JSON path).
func (d *drift) compare(where string, t reflect.Type, s *openapi3.Schema, dir direction) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	s = mergeAllOf(s)
	alts, _ := variants(s)
	if len(alts) != 1 {
		d.add("%s: %d alternatives in the schema; the client has one type (%s)", where, len(alts), t)
		return
	}
	s = alts[0]
	types := slices.DeleteFunc(s.Type.Slice(), func(x string) bool { return x == "null" })
	if t == reflect.TypeOf(json.RawMessage(nil)) {
		return // raw JSON is sent and read as itself: any JSON value
	}
	want := ""
	switch t.Kind() {
	case reflect.String:
		want = "string"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		want = "integer"
	case reflect.Float32, reflect.Float64:
		want = "number"
		if dir == reading && slices.Contains(types, "integer") {
			want = "integer" // an integer reads into a float
		}
	case reflect.Bool:
		want = "boolean"
	case reflect.Slice, reflect.Array:
		want = "array"
	case reflect.Map, reflect.Struct:
		want = "object"
	case reflect.Interface:
		return
	default:
		d.add("%s: the client uses %s, which has no JSON schema type", where, t)
		return
	}
	if len(types) == 0 { // any JSON value
		if want != "object" {
			return
		}
	} else if !slices.Contains(types, want) {
		d.add("%s: the client has %s (%s), the document says %s", where, want, t, strings.Join(types, " or "))
		return
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		if s.Items != nil {
			d.compare(where+"[]", t.Elem(), s.Items.Value, dir)
		}
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			d.add("%s: map keys of %s are not strings", where, t)
			return
		}
		if ap := s.AdditionalProperties.Schema; ap != nil {
			d.compare(where+".*", t.Elem(), ap.Value, dir)
		}
		for name, p := range s.Properties {
			d.compare(where+"."+name, t.Elem(), p.Value, dir)
		}
	case reflect.Struct:
		d.compareObject(where, t, s, dir)
	}
}

// mergeAllOf reads an allOf of objects as the one object they make.
func mergeAllOf(s *openapi3.Schema) *openapi3.Schema {
	if len(s.AllOf) == 0 {
		return s
	}
	out := &openapi3.Schema{Type: &openapi3.Types{"object"}, Properties: openapi3.Schemas{}}
	for _, part := range s.AllOf {
		p := mergeAllOf(part.Value)
		maps.Copy(out.Properties, p.Properties)
		out.Required = append(out.Required, p.Required...)
	}
	return out
}

// fields are the JSON fields of a struct, those of embedded structs
// inlined as encoding/json does.
func fields(t reflect.Type) []reflect.StructField {
	var out []reflect.StructField
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous && f.Type.Kind() == reflect.Struct && f.Tag.Get("json") == "" {
			out = append(out, fields(f.Type)...)
			continue
		}
		out = append(out, f)
	}
	return out
}

func (d *drift) compareObject(where string, t reflect.Type, s *openapi3.Schema, dir direction) {
	have := map[string]bool{}
	for _, f := range fields(t) {
		if !f.IsExported() || f.Tag.Get("json") == "-" {
			continue
		}
		name, omitempty := jsonName(f)
		have[name] = true
		p := s.Properties[name]
		if p == nil {
			verb := "reads"
			if dir == sending {
				verb = "sends"
			}
			d.add("%s: %s.%s %s %q, which is not in the document's schema", where, typeName(t), f.Name, verb, name)
			continue
		}
		required := slices.Contains(s.Required, name)
		if _, null := variants(p.Value); dir == reading && null && required && !canBeNull(f.Type) {
			d.add("%s.%s: the document says it may be null; %s.%s (%s) cannot tell null from %q", where, name, typeName(t), f.Name, f.Type, fmt.Sprint(reflect.Zero(f.Type)))
		}
		if dir == sending && required && omitempty {
			d.add("%s.%s is required; %s.%s is omitempty, so its zero value is not sent", where, name, typeName(t), f.Name)
		}
		d.compare(where+"."+name, f.Type, p.Value, dir)
	}
	var missing []string
	for name := range s.Properties {
		if !have[name] {
			missing = append(missing, name)
		}
	}
	sort.Strings(missing)
	for _, name := range missing {
		required := slices.Contains(s.Required, name)
		kind := "optional"
		if required {
			kind = "required"
		}
		types := strings.Join(s.Properties[name].Value.Type.Slice(), " or ")
		switch {
		case dir == reading:
			d.add("%s: %s has no field for %q (%s, %s) of the document's schema", where, typeName(t), name, types, kind)
		case required:
			d.add("%s: %s never sends %q (%s, required)", where, typeName(t), name, types)
		}
	}
}

// A drifted type is reported field by field, naming the field; this is
// what a server that adds, renames or retypes a field makes the test say.
func TestDriftIsReportedByField(t *testing.T) {
	schema := func(y string) *openapi3.Schema {
		t.Helper()
		var s openapi3.Schema
		if err := s.UnmarshalJSON([]byte(y)); err != nil {
			t.Fatal(err)
		}
		return &s
	}
	type metadata struct {
		Title string `json:"title"`
	}
	type page struct {
		URL      string   `json:"url"`
		Status   string   `json:"statusCode"`
		Error    string   `json:"errorMessage"`
		Old      string   `json:"old"`
		Metadata metadata `json:"metadata"`
	}
	s := schema(`{"type":"object","required":["url","statusCode","errorMessage","metadata"],"properties":{
		"url":{"type":"string"},"statusCode":{"type":"integer"},"errorMessage":{"type":["string","null"]},
		"warning":{"type":"string"},
		"metadata":{"type":"object","required":["title"],"properties":{"title":{"type":"string"},"pageCount":{"type":"integer"}}}}}`)
	var d drift
	d.compare("GET /v1/content 200", reflect.TypeOf(page{}), s, reading)
	want := []string{
		`GET /v1/content 200: client.page.Old reads "old", which is not in the document's schema`,
		`GET /v1/content 200.statusCode: the client has string (string), the document says integer`,
		`GET /v1/content 200.errorMessage: the document says it may be null; client.page.Error (string) cannot tell null from ""`,
		`GET /v1/content 200.metadata: client.metadata has no field for "pageCount" (integer, optional) of the document's schema`,
		`GET /v1/content 200: client.page has no field for "warning" (string, optional) of the document's schema`,
	}
	for _, w := range want {
		if !slices.Contains(d.problems, w) {
			t.Errorf("not reported: %s\ngot:\n%s", w, strings.Join(d.problems, "\n"))
		}
	}
	if len(d.problems) != len(want) {
		t.Errorf("%d problems reported, want %d:\n%s", len(d.problems), len(want), strings.Join(d.problems, "\n"))
	}

	type body struct {
		Prompt string `json:"prompt,omitempty"`
		Model  string `json:"model"`
	}
	req := schema(`{"type":"object","required":["prompt","url"],"properties":{"prompt":{"type":"string"},"url":{"type":"string"}}}`)
	d = drift{}
	d.compare("POST /v1/prompt request", reflect.TypeOf(body{}), req, sending)
	for _, w := range []string{
		`POST /v1/prompt request.prompt is required; client.body.Prompt is omitempty, so its zero value is not sent`,
		`POST /v1/prompt request: client.body.Model sends "model", which is not in the document's schema`,
		`POST /v1/prompt request: client.body never sends "url" (string, required)`,
	} {
		if !slices.Contains(d.problems, w) {
			t.Errorf("not reported: %s\ngot:\n%s", w, strings.Join(d.problems, "\n"))
		}
	}
}
