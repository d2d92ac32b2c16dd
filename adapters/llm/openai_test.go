package llm_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/trawlhq/trawl/adapters/llm"
	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/core/prompt"
	"github.com/trawlhq/trawl/ports"
	"github.com/trawlhq/trawl/testkit/fakellm"
)

// complete asks c and words its typed reason as the caller sees it.
func complete(ctx context.Context, c *llm.OpenAI) (string, error) {
	text, err := c.Complete(ctx, msgs)
	return text, prompt.LLMFailure(err)
}

var msgs = []ports.ChatMessage{{Role: "system", Content: "be brief"}, {Role: "user", Content: "What is a tide pool?"}}

func TestComplete(t *testing.T) {
	srv := fakellm.New(t)
	c := llm.NewOpenAI(llm.Options{BaseURL: srv.BaseURL(), APIKey: "sk-test", Model: "tiny"})
	got, err := complete(context.Background(), c)
	if err != nil || got != "[tiny] You asked: What is a tide pool?" {
		t.Fatalf("Complete = %q, %v", got, err)
	}
	req := srv.Requests()[0]
	if req.Auth != "Bearer sk-test" || len(req.Messages) != 2 || req.Messages[0].Role != "system" {
		t.Fatalf("request = %+v", req)
	}
}

func TestRetriesOn429And5xx(t *testing.T) {
	srv := fakellm.New(t)
	srv.FailNext(429, 503, 500)
	c := llm.NewOpenAI(llm.Options{BaseURL: srv.BaseURL(), Model: "tiny", BaseBackoff: time.Millisecond})
	if _, err := complete(context.Background(), c); err != nil {
		t.Fatalf("after three failures the fourth attempt should succeed: %v", err)
	}
	if n := len(srv.Requests()); n != 4 {
		t.Fatalf("%d attempts, want 4", n)
	}
	srv.FailNext(500, 500, 500, 500)
	_, err := complete(context.Background(), c)
	if fe, ok := failure.As(err); !ok || fe.Kind != failure.Unavailable || !strings.Contains(fe.Message, "did not answer") {
		t.Fatalf("exhausted retries: %v", err)
	}
}

func TestNoRetryOnClientErrors(t *testing.T) {
	srv := fakellm.New(t)
	srv.FailNext(400)
	c := llm.NewOpenAI(llm.Options{BaseURL: srv.BaseURL(), Model: "tiny", BaseBackoff: time.Millisecond})
	if _, err := complete(context.Background(), c); !failure.Is(err, failure.Unavailable) {
		t.Fatalf("400: %v", err)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Fatalf("a 400 was retried (%d attempts)", n)
	}
}

func TestDeadlineBoundsRetries(t *testing.T) {
	srv := fakellm.New(t)
	srv.FailNext(503, 503, 503, 503)
	c := llm.NewOpenAI(llm.Options{BaseURL: srv.BaseURL(), Model: "tiny", BaseBackoff: time.Second})
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, err := complete(ctx, c); !failure.Is(err, failure.Unavailable) {
		t.Fatalf("err = %v", err)
	}
	if time.Since(start) > time.Second {
		t.Fatal("retries outlived the request deadline")
	}
}

func TestNotConfiguredAndEmptyAnswers(t *testing.T) {
	_, err := complete(context.Background(), llm.NewOpenAI(llm.Options{}))
	if fe, ok := failure.As(err); !ok || fe.Kind != failure.Unavailable || !strings.Contains(fe.Message, "no language model is configured") {
		t.Fatalf("unconfigured: %v", err)
	}
	srv := fakellm.New(t)
	srv.Answer = func(fakellm.Request) string { return "  " }
	_, err = complete(context.Background(), llm.NewOpenAI(llm.Options{BaseURL: srv.BaseURL(), Model: "tiny"}))
	if fe, ok := failure.As(err); !ok || !strings.Contains(fe.Message, "no text") {
		t.Fatalf("empty answer: %v", err)
	}
	_, err = complete(context.Background(), llm.NewOpenAI(llm.Options{BaseURL: "http://127.0.0.1:1/v1", Model: "tiny", MaxRetries: -1}))
	if !failure.Is(err, failure.Unavailable) {
		t.Fatalf("unreachable: %v", err)
	}
}

// A model server still answering 429 when the retries run out is reported
// as rate-limiting; one answering 5xx is not.
func TestRateLimitedModelIsSaidSo(t *testing.T) {
	srv := fakellm.New(t)
	c := llm.NewOpenAI(llm.Options{BaseURL: srv.BaseURL(), Model: "tiny", BaseBackoff: time.Millisecond, MaxRetries: 1})
	srv.FailNext(429, 429)
	_, err := complete(context.Background(), c)
	if fe, ok := failure.As(err); !ok || !strings.Contains(fe.Message, "rate-limiting") {
		t.Fatalf("429 twice: %v", err)
	}
	srv.FailNext(503, 503)
	_, err = complete(context.Background(), c)
	if fe, ok := failure.As(err); !ok || strings.Contains(fe.Message, "rate-limiting") || !strings.Contains(fe.Message, "did not answer") {
		t.Fatalf("503 twice: %v", err)
	}
}
