package mcpserver

import (
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/trawlhq/trawl/client"
	"github.com/trawlhq/trawl/core/search"
)

// The enumerated arguments: each is its own type, so its schema lists the
// values it takes and a client can offer them (and refuse others) before
// calling.
type (
	// Render is how a page is read.
	Render string
	// Engine is a search engine.
	Engine string
	// Format is what a page tool answers with: Markdown (the default) or HTML.
	Format string
	// Device is what a page is loaded as.
	Device string
	// Shot is the screenshot the content tool takes.
	Shot string
	// MonitorStatus pauses or resumes a monitor.
	MonitorStatus string
)

// Formats a page tool answers with.
const (
	FormatMarkdown Format = "markdown"
	FormatHTML     Format = "html"
)

// enums are the values of each enumerated argument type.
var enums = map[reflect.Type][]string{
	reflect.TypeFor[Render]():        {string(client.RenderAuto), string(client.RenderAlways), string(client.RenderNever)},
	reflect.TypeFor[Engine]():        search.Engines,
	reflect.TypeFor[Format]():        {string(FormatMarkdown), string(FormatHTML)},
	reflect.TypeFor[Device]():        {"desktop", "mobile"},
	reflect.TypeFor[Shot]():          {"viewport", "full"},
	reflect.TypeFor[MonitorStatus](): {client.MonitorActive, client.MonitorPaused},
}

// schemaFor is the JSON Schema of a tool's input or output type T, its
// enumerated arguments listing their values. Every property carries a
// description, so none is the bare schema true, which some clients refuse.
func schemaFor[T any]() *jsonschema.Schema {
	// A JSON object of any members: an object schema, not additionalProperties true.
	types := map[reflect.Type]*jsonschema.Schema{reflect.TypeFor[map[string]any](): {Type: "object"}}
	for t, values := range enums {
		s := &jsonschema.Schema{Type: "string"}
		for _, v := range values {
			s.Enum = append(s.Enum, v)
		}
		types[t] = s
	}
	s, err := jsonschema.For[T](&jsonschema.ForOptions{TypeSchemas: types})
	if err != nil {
		// The types are this package's own: a test builds every schema.
		panic(err)
	}
	return s
}
