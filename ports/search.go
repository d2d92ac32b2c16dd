package ports

import (
	"context"
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
// challenge) or an unreachable engine is failure.Unavailable: never empty
// results, never another engine's.
type SearchEngine interface {
	Name() string
	Search(ctx context.Context, q SearchQuery) (SearchResults, error)
}

// ChatMessage is one message of a chat completion.
type ChatMessage struct {
	Role    string // system, user, assistant
	Content string
}

// LLM produces text for a conversation. No model configured, or no answer,
// is failure.Unavailable.
type LLM interface {
	Complete(ctx context.Context, messages []ChatMessage) (string, error)
}
