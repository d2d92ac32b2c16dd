// Package prompt holds the /v1/prompt use case: an LLM answer, optionally
// grounded on the main content of a live page.
package prompt

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/trawlhq/trawl/core/billing"
	"github.com/trawlhq/trawl/core/content"
	"github.com/trawlhq/trawl/core/credits"
	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/core/weburl"
	"github.com/trawlhq/trawl/ports"
)

// Limits.
const (
	// MaxPromptChars bounds the prompt itself.
	MaxPromptChars = 32_000
	// DefaultContextChars is the page context budget when none is configured.
	DefaultContextChars = 24_000
)

// SystemPrompt frames every call.
const SystemPrompt = "You are Trawl, a precise assistant. Answer the user's request directly. " +
	"When a web page is provided, ground the answer in that page and say so when the page does not contain the answer."

// Service runs prompts.
type Service struct {
	llm          ports.LLM
	pages        *content.Service
	biller       *credits.Biller
	contextChars int
}

// NewService builds the service; contextChars <= 0 takes the default.
func NewService(llm ports.LLM, pages *content.Service, biller *credits.Biller, contextChars int) (*Service, error) {
	if llm == nil || pages == nil || biller == nil {
		return nil, errors.New("prompt.NewService: llm, content and biller are required")
	}
	if contextChars <= 0 {
		contextChars = DefaultContextChars
	}
	return &Service{llm: llm, pages: pages, biller: biller, contextChars: contextChars}, nil
}

// Request is a prompt as the caller sent it.
type Request struct {
	Prompt string
	URL    string // optional
	// Render is how the page is read (empty: auto).
	Render content.RenderMode
}

// Validate checks a request.
func Validate(r Request) (pageURL string, err error) {
	var fe failure.FieldErrors
	p := strings.TrimSpace(r.Prompt)
	switch {
	case p == "":
		fe.Add("prompt", "The prompt field is required.")
	case utf8.RuneCountInString(p) > MaxPromptChars:
		fe.Add("prompt", fmt.Sprintf("The prompt may not be greater than %d characters.", MaxPromptChars))
	}
	if strings.TrimSpace(r.URL) != "" {
		u, err := weburl.Parse(r.URL, weburl.Rules{Field: "url"})
		if err != nil {
			fe2, _ := failure.As(err)
			for _, m := range fe2.Fields["url"] {
				fe.Add("url", m)
			}
		} else {
			pageURL = u.String()
		}
	}
	return pageURL, fe.Err("prompt.Validate")
}

// Trim cuts text to at most n characters on a paragraph, line or word
// boundary, marking the cut.
func Trim(text string, n int) string {
	if utf8.RuneCountInString(text) <= n {
		return text
	}
	runes := []rune(text)
	cut := string(runes[:n])
	for _, sep := range []string{"\n\n", "\n", " "} {
		if i := strings.LastIndex(cut, sep); i > n/2 {
			cut = cut[:i]
			break
		}
	}
	return strings.TrimSpace(cut) + "\n\n[…page content truncated]"
}

// Prompt answers a prompt for 10 credits; extracting the page is included.
func (s *Service) Prompt(ctx context.Context, call credits.Call, r Request) (string, credits.Receipt, error) {
	pageURL, err := Validate(r)
	if err != nil {
		return "", credits.Receipt{}, err
	}
	call.Service = billing.Prompt
	var answer string
	rc, err := s.biller.Run(ctx, call, func(ctx context.Context) (int64, ports.TransactionMetadata, error) {
		user := strings.TrimSpace(r.Prompt)
		if pageURL != "" {
			page, err := s.pages.Extract(ctx, pageURL, r.Render)
			if err != nil {
				return 0, ports.TransactionMetadata{}, err
			}
			title := page.Metadata.Title
			if title == "" {
				title = pageURL
			}
			user = fmt.Sprintf("%s\n\n---\nWeb page: %s\nURL: %s\n\n%s", user, title, pageURL, Trim(page.Markdown, s.contextChars))
		}
		text, err := s.llm.Complete(ctx, []ports.ChatMessage{{Role: "system", Content: SystemPrompt}, {Role: "user", Content: user}})
		if err == nil && strings.TrimSpace(text) == "" {
			err = &ports.LLMError{Reason: ports.LLMNoText}
		}
		if err != nil {
			return 0, ports.TransactionMetadata{}, LLMFailure(err)
		}
		answer = text
		return billing.Cost(billing.Prompt), ports.TransactionMetadata{URL: pageURL}, nil
	})
	return answer, rc, err
}
