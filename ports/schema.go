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
// valid is failure.Invalid naming field. It never loads anything a schema
// refers to: a $ref outside the schema is an error.
type SchemaCompiler interface {
	Compile(field string, schema []byte) (Schema, error)
}

// Schema validates JSON documents.
type Schema interface {
	// Validate returns what did not validate, one line per problem with the
	// place in the document ("/price: want number, but got string"); none
	// when doc is valid. doc is a decoded JSON value (json.Number for numbers).
	Validate(doc any) []string
}
