// Package fakellm is an OpenAI-compatible chat-completions server for tests:
// real HTTP, scripted failures, recorded requests. Its answer names the
// model and quotes the last user message, so tests can see what the model
// was given.
package fakellm

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// Request is what a call sent.
type Request struct {
	Model    string `json:"model"`
	Messages []struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"messages"`
	// ResponseFormat is the response_format asked for, if any.
	ResponseFormat json.RawMessage `json:"response_format,omitempty"`
	Auth           string          `json:"-"`
}

// Server is the fake.
type Server struct {
	*httptest.Server
	mu       sync.Mutex
	failures []int // status codes to answer, in order, before succeeding
	requests []Request
	// Answer overrides the reply text.
	Answer func(Request) string
	// RefuseResponseFormat answers 400 to a request with a response_format,
	// as servers without structured output do.
	RefuseResponseFormat bool
}

// New starts a fake server; its base URL for the adapter is URL + "/v1".
func New(t testing.TB) *Server {
	s := &Server{}
	s.Server = httptest.NewServer(http.HandlerFunc(s.handle))
	t.Cleanup(s.Close)
	return s
}

// BaseURL is what TRAWL_LLM_BASE_URL should be.
func (s *Server) BaseURL() string { return s.URL + "/v1" }

// FailNext makes the next calls answer these statuses, in order.
func (s *Server) FailNext(statuses ...int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failures = append(s.failures, statuses...)
}

// Requests returns the calls received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		http.Error(w, `{"error":{"message":"not found"}}`, http.StatusNotFound)
		return
	}
	var req Request
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Model == "" || len(req.Messages) == 0 {
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"error":{"message":"model and messages are required"}}`))
		return
	}
	req.Auth = r.Header.Get("Authorization")
	s.mu.Lock()
	s.requests = append(s.requests, req)
	var status int
	if len(s.failures) > 0 {
		status, s.failures = s.failures[0], s.failures[1:]
	}
	answer := s.Answer
	if s.RefuseResponseFormat && len(req.ResponseFormat) > 0 {
		status = http.StatusBadRequest
	}
	s.mu.Unlock()
	if status != 0 {
		if status == http.StatusTooManyRequests {
			w.Header().Set("Retry-After", "0")
		}
		w.WriteHeader(status)
		_, _ = fmt.Fprintf(w, `{"error":{"message":"scripted failure %d"}}`, status)
		return
	}
	last := req.Messages[len(req.Messages)-1].Content
	text := fmt.Sprintf("[%s] You asked: %s", req.Model, firstLine(last))
	if answer != nil {
		text = answer(req)
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-fake", "object": "chat.completion", "model": req.Model,
		"choices": []map[string]any{{"index": 0, "finish_reason": "stop", "message": map[string]string{"role": "assistant", "content": text}}},
	})
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
