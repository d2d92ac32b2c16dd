// Package structured holds the /v1/extract use case: data from a live page,
// shaped by the caller's JSON Schema, produced by the language model and
// validated before it is returned (and charged).
package structured

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/trawlhq/trawl/core/billing"
	"github.com/trawlhq/trawl/core/changes"
	"github.com/trawlhq/trawl/core/content"
	"github.com/trawlhq/trawl/core/credits"
	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/core/prompt"
	"github.com/trawlhq/trawl/core/weburl"
	"github.com/trawlhq/trawl/ports"
)

// Limits on what a caller sends.
const (
	// MaxSchemaBytes bounds the schema's JSON text.
	MaxSchemaBytes = 16 << 10
	// MaxSchemaDepth bounds how deeply the schema's objects and arrays nest.
	MaxSchemaDepth = 12
	// MaxPromptChars bounds the optional instruction.
	MaxPromptChars = 4000
	// maxProblems is how many validation problems a message lists.
	maxProblems = 5
)

// SystemPrompt frames every extraction.
const SystemPrompt = "You are Trawl's data extractor. Read the web page you are given and answer with exactly one JSON value " +
	"that validates against the JSON Schema you are given. Use only facts stated on the page. Answer with the JSON alone: " +
	"no prose, no explanation, no code fences."

// Service runs extractions.
type Service struct {
	llm          ports.LLM
	schemas      ports.SchemaCompiler
	pages        *content.Service
	biller       *credits.Biller
	contextChars int
}

// NewService builds the service; contextChars <= 0 takes the prompt default.
func NewService(llm ports.LLM, schemas ports.SchemaCompiler, pages *content.Service, biller *credits.Biller, contextChars int) (*Service, error) {
	if llm == nil || schemas == nil || pages == nil || biller == nil {
		return nil, errors.New("structured.NewService: llm, schemas, content and biller are required")
	}
	if contextChars <= 0 {
		contextChars = prompt.DefaultContextChars
	}
	return &Service{llm: llm, schemas: schemas, pages: pages, biller: biller, contextChars: contextChars}, nil
}

// Request is an extraction as the caller sent it.
type Request struct {
	URL    string
	Schema json.RawMessage
	Prompt string
	// Render is how the page is read (empty: auto).
	Render content.RenderMode
}

// Result is the validated data and the page it came from.
type Result struct {
	Data json.RawMessage
	URL  string
	// Change compares the data with the account's previous extraction of
	// the page, field by field; nil unless the call asked (changes=true).
	Change *changes.Change
}

// Validate checks a request and compiles its schema.
func (s *Service) Validate(r Request) (pageURL string, sch ports.Schema, err error) {
	var fe failure.FieldErrors
	if strings.TrimSpace(r.URL) == "" {
		fe.Add("url", "The url field is required.")
	} else if u, err := weburl.Parse(r.URL, weburl.Rules{Field: "url"}); err != nil {
		f, _ := failure.As(err)
		for _, m := range f.Fields["url"] {
			fe.Add("url", m)
		}
	} else {
		pageURL = u.String()
	}
	raw := bytes.TrimSpace(r.Schema)
	switch {
	case len(raw) == 0 || string(raw) == "null":
		fe.Add("schema", "The schema field is required.")
	case raw[0] != '{':
		fe.Add("schema", "The schema must be a JSON Schema object.")
	case len(raw) > MaxSchemaBytes:
		fe.Add("schema", fmt.Sprintf("The schema may not be larger than %d bytes.", MaxSchemaBytes))
	case depth(raw) > MaxSchemaDepth:
		fe.Add("schema", fmt.Sprintf("The schema may not nest deeper than %d levels.", MaxSchemaDepth))
	}
	if utf8.RuneCountInString(r.Prompt) > MaxPromptChars {
		fe.Add("prompt", fmt.Sprintf("The prompt may not be greater than %d characters.", MaxPromptChars))
	}
	if err := fe.Err("structured.Validate"); err != nil {
		return "", nil, err
	}
	sch, err = s.schemas.Compile(raw)
	if err != nil {
		return "", nil, SchemaFailure(err, "schema")
	}
	return pageURL, sch, nil
}

// SchemaFailure words a schema compiler's typed reason for the caller,
// naming field.
func SchemaFailure(err error, field string) error {
	const op = "schema.Compile"
	var se *ports.SchemaError
	switch {
	case !errors.As(err, &se):
		return err
	case se.Reason == ports.SchemaNotJSON:
		return failure.Invalidf(op, field, "The %s must be a JSON object.", field)
	case se.Problem != "":
		return failure.Invalidf(op, field, "The %s is not a valid JSON Schema: %s", field, se.Problem)
	}
	return failure.Invalidf(op, field, "The %s is not a valid JSON Schema.", field)
}

// depth is how deeply objects and arrays nest in a JSON text.
func depth(raw []byte) int {
	d, most := 0, 0
	inString, escaped := false, false
	for _, c := range raw {
		switch {
		case escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		case inString:
		case c == '{' || c == '[':
			d++
			most = max(most, d)
		case c == '}' || c == ']':
			d--
		}
	}
	return most
}

// Extract runs an extraction for 10 credits, charged only when the data
// validates. The model gets one more try with what did not validate; a
// second miss is a free 503 llm_failed that says what did not validate.
func (s *Service) Extract(ctx context.Context, call credits.Call, r Request) (Result, credits.Receipt, error) {
	pageURL, sch, err := s.Validate(r)
	if err != nil {
		return Result{}, credits.Receipt{}, err
	}
	call.Service = billing.Extract
	var out Result
	want := changes.RequestOf(ctx)
	if want.Tag, err = changes.ParseTag(want.Tag, "tag"); err != nil {
		return Result{}, credits.Receipt{}, err
	}
	// The page's own Markdown is not compared: the extraction is.
	ctx = changes.With(ctx, changes.Request{})
	rc, err := s.biller.Run(ctx, call, func(ctx context.Context) (int64, ports.TransactionMetadata, error) {
		page, err := s.pages.Extract(ctx, pageURL, r.Render)
		if err != nil {
			return 0, ports.TransactionMetadata{}, err
		}
		data, err := s.ask(ctx, r, sch, page)
		if err != nil {
			return 0, ports.TransactionMetadata{}, err
		}
		out = Result{Data: data, URL: pageURL}
		if want.On {
			if out.Change, err = s.compare(ctx, call.Principal.Account.ID, pageURL, want.Tag, data); err != nil {
				return 0, ports.TransactionMetadata{}, err
			}
		}
		return billing.Cost(billing.Extract), ports.TransactionMetadata{URL: pageURL}, nil
	})
	return out, rc, err
}

// ask puts the page to the model and checks its answer, twice at most.
func (s *Service) ask(ctx context.Context, r Request, sch ports.Schema, page content.Page) (json.RawMessage, error) {
	schema := compact(r.Schema)
	title := page.Metadata.Title
	if title == "" {
		title = page.URL
	}
	var user strings.Builder
	if p := strings.TrimSpace(r.Prompt); p != "" {
		fmt.Fprintf(&user, "Instructions: %s\n\n", p)
	}
	fmt.Fprintf(&user, "JSON Schema the answer must validate against:\n%s\n\n---\nWeb page: %s\nURL: %s\n\n%s", schema, title, page.URL, prompt.Trim(page.Markdown, s.contextChars))
	messages := []ports.ChatMessage{{Role: "system", Content: SystemPrompt}, {Role: "user", Content: user.String()}}
	var problems []string
	for attempt := 0; attempt < 2; attempt++ {
		text, err := s.complete(ctx, messages, schema)
		if err != nil {
			return nil, err
		}
		data, probs := check(text, sch)
		if len(probs) == 0 {
			return data, nil
		}
		problems = probs
		messages = append(messages,
			ports.ChatMessage{Role: "assistant", Content: text},
			ports.ChatMessage{Role: "user", Content: "Your answer does not validate against the JSON Schema:\n- " + strings.Join(probs, "\n- ") +
				"\nAnswer again with only the corrected JSON."})
	}
	return nil, failure.Unable("structured.Extract", failure.ReasonLLMFailed,
		"No data could be extracted: the model's answer did not validate against the schema twice: "+summary(problems))
}

// complete asks the model, holding it to schema where it can, and words
// its typed reason for the caller.
func (s *Service) complete(ctx context.Context, messages []ports.ChatMessage, schema []byte) (string, error) {
	var text string
	var err error
	if sl, ok := s.llm.(ports.StructuredLLM); ok {
		text, err = sl.CompleteJSON(ctx, messages, "extraction", schema)
	} else {
		text, err = s.llm.Complete(ctx, messages)
	}
	return text, prompt.LLMFailure(err)
}

// check decodes an answer and validates it: a JSON value (a code fence
// around it is tolerated), valid against the schema, and not empty.
func check(text string, sch ports.Schema) (json.RawMessage, []string) {
	body := unfence(text)
	dec := json.NewDecoder(strings.NewReader(body))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil || dec.More() {
		return nil, []string{"the answer is not a JSON value (it must be JSON alone, without prose)"}
	}
	if probs := sch.Validate(doc); len(probs) > 0 {
		return nil, probs
	}
	if empty(doc) {
		return nil, []string{"the answer is empty: it holds no value taken from the page"}
	}
	return compact([]byte(body)), nil
}

// unfence takes the JSON out of a Markdown code fence, if it is in one.
func unfence(text string) string {
	t := strings.TrimSpace(text)
	if !strings.HasPrefix(t, "```") {
		return t
	}
	t = strings.TrimPrefix(t, "```")
	if nl := strings.IndexByte(t, '\n'); nl >= 0 {
		t = t[nl+1:]
	}
	return strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(t), "```"))
}

// empty: nothing in the value came from the page (null, "", an empty
// object or array, or one whose members are all empty).
func empty(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case string:
		return strings.TrimSpace(x) == ""
	case map[string]any:
		for _, m := range x {
			if !empty(m) {
				return false
			}
		}
		return true
	case []any:
		for _, m := range x {
			if !empty(m) {
				return false
			}
		}
		return true
	}
	return false // numbers and booleans are values
}

func compact(raw []byte) []byte {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return raw
	}
	return b.Bytes()
}

func summary(problems []string) string {
	if len(problems) > maxProblems {
		problems = append(problems[:maxProblems:maxProblems], fmt.Sprintf("and %d more", len(problems)-maxProblems))
	}
	return strings.Join(problems, "; ") + "."
}
