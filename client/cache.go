package client

import "encoding/json"

// Cache says whether an answer came from the server's page cache.
type Cache struct {
	Hit bool `json:"hit"`
	// CachedAt is when the site last vouched for the response (RFC 3339);
	// nil when it is not kept.
	CachedAt *string `json:"cached_at"`
	// Age is seconds since CachedAt.
	Age int64 `json:"age"`
	// Revalidated is set when a stale entry was confirmed by the site.
	Revalidated bool `json:"revalidated,omitempty"`
}

// Change compares an answer with the previous one the account got for the
// page (changes=true).
type Change struct {
	Status     string  `json:"status"` // new, same, changed or removed
	PreviousAt *string `json:"previous_at"`
	// Diff is the unified line diff of the Markdown when changed.
	Diff string `json:"diff,omitempty"`
	// Fields are an extraction's changed fields.
	Fields map[string]FieldChange `json:"fields,omitempty"`
}

// FieldChange is one changed field of an extraction.
type FieldChange struct {
	Previous json.RawMessage `json:"previous"`
	Current  json.RawMessage `json:"current"`
}
