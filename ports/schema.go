package ports

import "context"

// StructuredLLM is an LLM that can be held to a JSON Schema by the model
// server itself (the json_schema response format of OpenAI-compatible
// servers). A server without that mode answers as Complete does; the
// caller validates either way.
type StructuredLLM interface {
	LLM
	CompleteJSON(ctx context.Context, messages []ChatMessage, name string, schema []byte) (string, error)
}

// SchemaCompiler compiles a caller's JSON Schema. A schema that is not
// valid is a *SchemaError, which the caller words naming its field. It
// never loads anything a schema refers to: a $ref outside the schema is an
// error.
type SchemaCompiler interface {
	Compile(schema []byte) (Schema, error)
}

// SchemaReason says why a schema did not compile.
type SchemaReason uint8

const (
	SchemaNotJSON SchemaReason = iota // not a JSON object
	SchemaInvalid                     // not a valid JSON Schema; Problem says why when known
)

// SchemaError is the typed reason a compiler gives for a schema it refused.
type SchemaError struct {
	Reason SchemaReason
	// Problem is what is wrong in the schema, in the schema's own terms
	// ("at '/type': want string, but got number"), without the server's
	// addresses; empty when nothing more precise is known.
	Problem string
	Err     error
}

func (e *SchemaError) Error() string {
	if e.Problem != "" {
		return "schema: " + e.Problem
	}
	return "schema refused"
}

func (e *SchemaError) Unwrap() error { return e.Err }

// Schema validates JSON documents.
type Schema interface {
	// Validate returns what did not validate, one line per problem with the
	// place in the document ("/price: want number, but got string"); none
	// when doc is valid. doc is a decoded JSON value (json.Number for numbers).
	Validate(doc any) []string
}
