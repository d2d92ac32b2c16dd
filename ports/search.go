package ports

import (
	"context"
	"fmt"
	"time"
)

// SearchQuery is one search on one engine.
type SearchQuery struct {
	Q   string
	Loc string // free-form location
	HL  string // interface language
	GL  string // country
}

// Sitelink is a deeper link shown under a result.
type Sitelink struct {
	Title string
	Link  string
}

// OrganicResult is one web result.
type OrganicResult struct {
	Position      int
	Title         string
	Link          string // the real target, absolute
	Snippet       string
	DisplayedLink string
	Thumbnail     string // "" when none
	Favicon       string
	Sitelinks     []Sitelink
	Source        string // the site's name
}

// RelatedQuestion is a "People also ask" entry.
type RelatedQuestion struct {
	Question string
	Answer   string // "" when the page does not carry it
}

// RelatedSearch is a suggested query.
type RelatedSearch struct {
	Query string
	Link  string // absolute
	Image string // "" when none
}

// SearchResults is a parsed result page.
type SearchResults struct {
	QueryDisplayed   string
	TotalResults     int64 // 0 when the engine does not say
	TimeTaken        time.Duration
	Organic          []OrganicResult
	RelatedQuestions []RelatedQuestion
	RelatedSearches  []RelatedSearch
}

// SearchEngine runs a query on one engine. A block page (captcha, anomaly
// challenge), a result page that cannot be read or an unreachable engine
// is a *SearchError (an engine read in a browser may pass the renderer's
// *RenderError or *FetchError on): never empty results, never another
// engine's. core/search words it for the caller.
type SearchEngine interface {
	Name() string
	Search(ctx context.Context, q SearchQuery) (SearchResults, error)
}

// SearchReason says why an engine gave no results.
type SearchReason uint8

const (
	SearchUnreadable  SearchReason = iota // the result page could not be read
	SearchBlocked                         // a captcha or bot check instead of results
	SearchUnreachable                     // the engine could not be reached
	SearchTimeout                         // the engine did not answer in time
	SearchStatus                          // the engine answered Status (400 or more)
	SearchTooLarge                        // the result page was too large
)

// SearchError is the typed reason an engine gives for a search it could not
// complete; it holds no sentence for the caller.
type SearchError struct {
	Reason SearchReason
	Engine string // the engine's name ("google")
	Status int    // SearchStatus
	Err    error  // the transport's or parser's own error, for logs
}

func (e *SearchError) Error() string {
	if e.Err != nil {
		return "search " + e.Engine + ": " + e.Err.Error()
	}
	return "search " + e.Engine + " failed"
}

func (e *SearchError) Unwrap() error { return e.Err }

// ChatMessage is one message of a chat completion.
type ChatMessage struct {
	Role    string // system, user, assistant
	Content string
}

// LLM produces text for a conversation. No model configured, or no answer,
// is an *LLMError, which core/prompt.LLMFailure words for the caller.
type LLM interface {
	Complete(ctx context.Context, messages []ChatMessage) (string, error)
}

// LLMReason says why a language model produced no answer.
type LLMReason uint8

const (
	LLMNoAnswer      LLMReason = iota // the model did not answer (in time)
	LLMNotConfigured                  // no model is configured on this server
	LLMRateLimited                    // the model kept rate-limiting the requests
	LLMUnreadable                     // the model's answer could not be read
	LLMRefused                        // the model refused the request (Status, Detail)
	LLMNoText                         // the model returned no text
)

// LLMError is the typed reason a language model gives for producing no
// answer; it holds no sentence for the caller.
type LLMError struct {
	Reason LLMReason
	Status int    // LLMRefused: the model server's HTTP status
	Detail string // LLMRefused: the model server's own message, for logs
	Err    error  // the transport's own error, for logs
}

func (e *LLMError) Error() string {
	switch {
	case e.Err != nil:
		return "llm: " + e.Err.Error()
	case e.Reason == LLMRefused:
		return fmt.Sprintf("llm: the model server answered %d: %s", e.Status, e.Detail)
	}
	return "llm failed"
}

func (e *LLMError) Unwrap() error { return e.Err }
