// Package llm holds the LLM adapters. OpenAI speaks the chat-completions
// protocol that OpenAI, Ollama, vLLM and llama.cpp's server all serve.
package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/ports"
)

// Options configure the adapter.
type Options struct {
	BaseURL        string        // e.g. https://api.openai.com/v1 or http://127.0.0.1:11434/v1
	APIKey         string        // sent as a Bearer token when set
	Model          string        // e.g. gpt-4o-mini, llama3.1
	AttemptTimeout time.Duration // per HTTP attempt; default 60 s
	MaxRetries     int           // retries on 429, 5xx and timeouts; default 3
	MaxTokens      int           // 0: the server's default
	BaseBackoff    time.Duration // default 500 ms, doubled per retry
}

// OpenAI implements ports.LLM.
type OpenAI struct {
	opts Options
	http *http.Client
}

var _ ports.StructuredLLM = (*OpenAI)(nil)

// NewOpenAI builds the adapter.
func NewOpenAI(o Options) *OpenAI {
	if o.AttemptTimeout <= 0 {
		o.AttemptTimeout = 60 * time.Second
	}
	if o.MaxRetries < 0 {
		o.MaxRetries = 0
	} else if o.MaxRetries == 0 {
		o.MaxRetries = 3
	}
	if o.BaseBackoff <= 0 {
		o.BaseBackoff = 500 * time.Millisecond
	}
	o.BaseURL = strings.TrimRight(o.BaseURL, "/")
	return &OpenAI{opts: o, http: &http.Client{}}
}

// Configured reports whether a model server is set.
func (o *OpenAI) Configured() bool { return o.opts.BaseURL != "" && o.opts.Model != "" }

type chatRequest struct {
	Model     string        `json:"model"`
	Messages  []chatMessage `json:"messages"`
	MaxTokens int           `json:"max_tokens,omitempty"`
	Stream    bool          `json:"stream"`
	// ResponseFormat holds the answer to a JSON Schema where the server can.
	ResponseFormat *responseFormat `json:"response_format,omitempty"`
}

type responseFormat struct {
	Type       string      `json:"type"`
	JSONSchema *jsonSchema `json:"json_schema,omitempty"`
}

type jsonSchema struct {
	Name   string          `json:"name"`
	Schema json.RawMessage `json:"schema"`
	Strict bool            `json:"strict"`
}

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type chatResponse struct {
	Choices []struct {
		Message chatMessage `json:"message"`
	} `json:"choices"`
	Error *struct {
		Message string `json:"message"`
	} `json:"error"`
}

// errRetry marks an attempt worth repeating.
type errRetry struct {
	err    error
	after  time.Duration // the server's Retry-After, if any
	status int           // the model server's HTTP status; 0 when it did not answer
}

func (e *errRetry) Error() string { return e.err.Error() }

// Complete implements ports.LLM: it retries on 429, 5xx and timeouts with
// exponential backoff (honouring Retry-After) for as long as the caller's
// deadline allows.
func (o *OpenAI) Complete(ctx context.Context, messages []ports.ChatMessage) (string, error) {
	return o.complete(ctx, messages, nil)
}

// CompleteJSON implements ports.StructuredLLM: the answer is held to schema
// by the json_schema response format. A server that refuses the format (an
// older or smaller one) is asked again without it; the caller validates.
func (o *OpenAI) CompleteJSON(ctx context.Context, messages []ports.ChatMessage, name string, schema []byte) (string, error) {
	rf := &responseFormat{Type: "json_schema", JSONSchema: &jsonSchema{Name: name, Schema: schema}}
	text, err := o.complete(ctx, messages, rf)
	var le *ports.LLMError
	if errors.As(err, &le) && le.Reason == ports.LLMRefused && le.Status == http.StatusBadRequest {
		return o.complete(ctx, messages, nil)
	}
	return text, err
}

func (o *OpenAI) complete(ctx context.Context, messages []ports.ChatMessage, rf *responseFormat) (string, error) {
	const op = "llm.Complete"
	if !o.Configured() {
		return "", &ports.LLMError{Reason: ports.LLMNotConfigured}
	}
	req := chatRequest{Model: o.opts.Model, MaxTokens: o.opts.MaxTokens, ResponseFormat: rf}
	for _, m := range messages {
		req.Messages = append(req.Messages, chatMessage{Role: m.Role, Content: m.Content})
	}
	body, err := json.Marshal(req)
	if err != nil {
		return "", failure.Wrap(op, err)
	}
	var last error
	for attempt := 0; attempt <= o.opts.MaxRetries; attempt++ {
		if attempt > 0 {
			wait := o.opts.BaseBackoff << (attempt - 1)
			var re *errRetry
			if errors.As(last, &re) && re.after > 0 {
				wait = re.after
			}
			wait += time.Duration(rand.Int64N(int64(wait)/4 + 1))
			if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait {
				break // no time left for another attempt
			}
			select {
			case <-ctx.Done():
				return "", unavailable(ctx.Err())
			case <-time.After(wait):
			}
		}
		text, err := o.attempt(ctx, body)
		if err == nil {
			return text, nil
		}
		last = err
		var re *errRetry
		if !errors.As(err, &re) {
			return "", err
		}
	}
	return "", unavailable(last)
}

// unavailable is the reason of a completion that got no answer: the model
// did not answer, or kept rate-limiting the requests.
func unavailable(cause error) error {
	reason := ports.LLMNoAnswer
	var re *errRetry
	if errors.As(cause, &re) && re.status == http.StatusTooManyRequests {
		reason = ports.LLMRateLimited
	}
	return &ports.LLMError{Reason: reason, Err: cause}
}

func (o *OpenAI) attempt(ctx context.Context, body []byte) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, o.opts.AttemptTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, o.opts.BaseURL+"/chat/completions", bytes.NewReader(body))
	if err != nil {
		return "", failure.Wrap("llm.attempt", err)
	}
	req.Header.Set("Content-Type", "application/json")
	if o.opts.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+o.opts.APIKey)
	}
	res, err := o.http.Do(req)
	if err != nil {
		return "", &errRetry{err: err}
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(res.Body, 4<<20))
	if err != nil {
		return "", &errRetry{err: err}
	}
	if res.StatusCode == http.StatusTooManyRequests || res.StatusCode >= 500 {
		after, _ := strconv.Atoi(res.Header.Get("Retry-After"))
		return "", &errRetry{err: fmt.Errorf("model server answered %d", res.StatusCode), after: time.Duration(after) * time.Second, status: res.StatusCode}
	}
	var cr chatResponse
	if err := json.Unmarshal(raw, &cr); err != nil {
		return "", &ports.LLMError{Reason: ports.LLMUnreadable, Err: err}
	}
	if res.StatusCode >= 400 {
		detail := ""
		if cr.Error != nil {
			detail = cr.Error.Message
		}
		return "", &ports.LLMError{Reason: ports.LLMRefused, Status: res.StatusCode, Detail: detail}
	}
	if len(cr.Choices) == 0 || strings.TrimSpace(cr.Choices[0].Message.Content) == "" {
		return "", &ports.LLMError{Reason: ports.LLMNoText}
	}
	return cr.Choices[0].Message.Content, nil
}
