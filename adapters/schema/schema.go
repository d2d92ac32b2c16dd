// Package schema compiles and applies callers' JSON Schemas with
// github.com/santhosh-tekuri/jsonschema (drafts 4 to 2020-12).
package schema

import (
	"errors"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/trawlhq/trawl/ports"
)

// location is where a caller's schema lives for the compiler: a name that
// is never fetched and says nothing of the server.
const location = "https://schema.trawl.invalid/caller.json"

// Compiler implements ports.SchemaCompiler.
type Compiler struct{}

var _ ports.SchemaCompiler = Compiler{}

// New builds a compiler.
func New() Compiler { return Compiler{} }

// refuse is the loader: a schema may only refer inside itself (and to the
// draft metaschemas the library carries), never to a file or the network.
type refuse struct{}

func (refuse) Load(u string) (any, error) {
	return nil, fmt.Errorf("references outside the schema are not followed (%s)", u)
}

// Compile implements ports.SchemaCompiler.
func (Compiler) Compile(raw []byte) (ports.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(string(raw)))
	if err != nil {
		return nil, &ports.SchemaError{Reason: ports.SchemaNotJSON, Err: err}
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(refuse{})
	if err := c.AddResource(location, doc); err != nil {
		return nil, &ports.SchemaError{Reason: ports.SchemaInvalid, Err: err}
	}
	sch, err := c.Compile(location)
	if err != nil {
		return nil, &ports.SchemaError{Reason: ports.SchemaInvalid, Problem: explain(err), Err: err}
	}
	return compiled{sch}, nil
}

// explain says what a compile error found, without the schema's internal address.
func explain(err error) string {
	var se *jsonschema.SchemaValidationError
	msg := err.Error()
	if errors.As(err, &se) && se.Err != nil {
		msg = se.Err.Error()
	}
	msg = strings.ReplaceAll(msg, location, "")
	msg = strings.ReplaceAll(msg, "jsonschema: ", "")
	msg = strings.Join(strings.Fields(msg), " ")
	if len(msg) > 300 {
		msg = msg[:300] + "…"
	}
	return msg
}

type compiled struct{ s *jsonschema.Schema }

// Validate implements ports.Schema.
func (c compiled) Validate(doc any) []string {
	err := c.s.Validate(doc)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []string{err.Error()}
	}
	var out []string
	for _, u := range ve.BasicOutput().Errors {
		if u.Error == nil {
			continue
		}
		at := u.InstanceLocation
		if at == "" {
			at = "(the top level)"
		}
		out = append(out, at+": "+u.Error.String())
	}
	if len(out) == 0 {
		out = append(out, "(the top level): "+strings.ReplaceAll(err.Error(), location, ""))
	}
	return out
}
