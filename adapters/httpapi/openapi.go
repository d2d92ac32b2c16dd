package httpapi

import (
	"context"
	_ "embed"
	"encoding/json"
	"html/template"
	"net/http"
	"sort"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"go.yaml.in/yaml/v3"
)

//go:embed openapi/openapi.yaml
var openapiYAML []byte

var (
	openapiOnce sync.Once
	openapiDoc  *openapi3.T
	openapiJSON []byte
	openapiErr  error
)

// OpenAPI returns the API's OpenAPI 3.1 document, loaded and validated once.
func OpenAPI() (*openapi3.T, []byte, error) {
	openapiOnce.Do(func() {
		// The document is written in YAML for people; kin-openapi reads it as JSON.
		var tree any
		if openapiErr = yaml.Unmarshal(openapiYAML, &tree); openapiErr != nil {
			return
		}
		var asJSON []byte
		if asJSON, openapiErr = json.Marshal(tree); openapiErr != nil {
			return
		}
		loader := openapi3.NewLoader()
		openapiDoc, openapiErr = loader.LoadFromData(asJSON)
		if openapiErr != nil {
			return
		}
		if openapiErr = openapiDoc.Validate(context.Background()); openapiErr != nil {
			return
		}
		openapiJSON, openapiErr = json.MarshalIndent(openapiDoc, "", "  ")
	})
	return openapiDoc, openapiJSON, openapiErr
}

func (a *API) openapiJSON(w http.ResponseWriter, r *http.Request) {
	_, raw, err := OpenAPI()
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Access-Control-Allow-Origin", "*")
	_, _ = w.Write(raw)
}

type docOp struct {
	Method, Path, Summary, Description, ID string
	Params                                 []docParam
	Body                                   string
	Responses                              []docResp
	Public                                 bool
}

type docParam struct{ Name, In, Type, Description string }

type docResp struct{ Status, Description string }

var docsTmpl = template.Must(template.New("docs").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{{.Title}} reference</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#1b1f24;line-height:1.45}
h2{margin-top:2.5rem;border-bottom:1px solid #d0d7de}.op{border:1px solid #d0d7de;border-radius:8px;padding:1rem;margin:1rem 0}
.m{font-weight:700;font-family:monospace;padding:.1rem .4rem;border-radius:4px;color:#fff}.GET{background:#1f6feb}.POST{background:#1a7f37}
code{font-family:ui-monospace,monospace;background:#f6f8fa;padding:.1rem .3rem;border-radius:4px}table{border-collapse:collapse;width:100%}td,th{text-align:left;padding:.2rem .5rem;border-bottom:1px solid #eee;vertical-align:top}
.muted{color:#57606a}</style></head><body>
<h1>{{.Title}} <span class="muted">{{.Version}}</span></h1>
<p>{{.Summary}}</p><p>The machine-readable document is at <a href="/openapi.json">/openapi.json</a> (OpenAPI 3.1). Authenticate with <code>Authorization: Bearer trawl_…</code>.</p>
{{range .Tags}}<h2 id="{{.Name}}">{{.Name}}</h2>{{range .Ops}}
<div class="op" id="{{.ID}}"><p><span class="m {{.Method}}">{{.Method}}</span> <code>{{.Path}}</code> {{if .Public}}<span class="muted">(no token)</span>{{end}}</p>
<p>{{.Summary}}</p>{{if .Description}}<p class="muted">{{.Description}}</p>{{end}}
{{if .Params}}<table><tr><th>Parameter</th><th>In</th><th>Type</th><th></th></tr>{{range .Params}}<tr><td><code>{{.Name}}</code></td><td>{{.In}}</td><td>{{.Type}}</td><td>{{.Description}}</td></tr>{{end}}</table>{{end}}
{{if .Body}}<p>Body: <code>{{.Body}}</code></p>{{end}}
<table><tr><th>Status</th><th>Meaning</th></tr>{{range .Responses}}<tr><td>{{.Status}}</td><td>{{.Description}}</td></tr>{{end}}</table></div>{{end}}{{end}}
</body></html>`))

func schemaType(s *openapi3.SchemaRef) string {
	if s == nil || s.Value == nil {
		return ""
	}
	t := strings.Join(s.Value.Type.Slice(), "|")
	if t == "array" && s.Value.Items != nil {
		t = schemaType(s.Value.Items) + "[]"
	}
	if len(s.Value.Enum) > 0 {
		var vals []string
		for _, e := range s.Value.Enum {
			vals = append(vals, strings.Trim(strings.TrimSpace(jsonString(e)), `"`))
		}
		t += " (" + strings.Join(vals, ", ") + ")"
	}
	return t
}

func jsonString(v any) string { b, _ := json.Marshal(v); return string(b) }

func (a *API) docs(w http.ResponseWriter, r *http.Request) {
	doc, _, err := OpenAPI()
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	byTag := map[string][]docOp{}
	for _, path := range doc.Paths.InMatchingOrder() {
		item := doc.Paths.Value(path)
		for method, op := range item.Operations() {
			d := docOp{Method: method, Path: path, Summary: op.Summary, Description: op.Description, ID: op.OperationID, Public: op.Security != nil && len(*op.Security) == 0}
			for _, p := range op.Parameters {
				d.Params = append(d.Params, docParam{p.Value.Name, p.Value.In, schemaType(p.Value.Schema), p.Value.Description})
			}
			if op.RequestBody != nil && op.RequestBody.Value != nil {
				if mt := op.RequestBody.Value.Content.Get("application/json"); mt != nil && mt.Schema != nil && mt.Schema.Value != nil {
					var fields []string
					for name, prop := range mt.Schema.Value.Properties {
						fields = append(fields, name+": "+schemaType(prop))
					}
					sort.Strings(fields)
					d.Body = "{" + strings.Join(fields, ", ") + "}"
				}
			}
			for status, resp := range op.Responses.Map() {
				desc := ""
				if resp.Value != nil && resp.Value.Description != nil {
					desc = *resp.Value.Description
				}
				d.Responses = append(d.Responses, docResp{status, desc})
			}
			sort.Slice(d.Responses, func(i, j int) bool { return d.Responses[i].Status < d.Responses[j].Status })
			tag := "Other"
			if len(op.Tags) > 0 {
				tag = op.Tags[0]
			}
			byTag[tag] = append(byTag[tag], d)
		}
	}
	type tagOps struct {
		Name string
		Ops  []docOp
	}
	var tags []tagOps
	for _, t := range doc.Tags {
		ops := byTag[t.Name]
		sort.Slice(ops, func(i, j int) bool { return ops[i].Path+ops[i].Method < ops[j].Path+ops[j].Method })
		tags = append(tags, tagOps{t.Name, ops})
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_ = docsTmpl.Execute(w, map[string]any{"Title": doc.Info.Title, "Version": doc.Info.Version, "Summary": doc.Info.Summary, "Tags": tags})
}
