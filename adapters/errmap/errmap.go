// Package errmap is the one table translating failure kinds into protocol
// status codes. Delivery adapters look kinds up here and nowhere else.
package errmap

import (
	"net/http"

	"github.com/trawlhq/trawl/core/failure"
)

// Entry is how a kind appears on the wire.
type Entry struct {
	HTTPStatus int
	// Message is shown when the error carries no caller-safe message.
	Message string
}

var table = map[failure.Kind]Entry{
	failure.Internal:            {http.StatusInternalServerError, "Server Error"},
	failure.Invalid:             {http.StatusUnprocessableEntity, "The given data was invalid."},
	failure.Unauthenticated:     {http.StatusUnauthorized, "Unauthenticated."},
	failure.PlanRequired:        {http.StatusPaymentRequired, "Plan Required"},
	failure.InsufficientCredits: {http.StatusPaymentRequired, "Insufficient Credits"},
	failure.NotFound:            {http.StatusNotFound, "Not Found"},
	failure.RateLimited:         {http.StatusTooManyRequests, "Too Many Requests"},
	failure.Unavailable:         {http.StatusServiceUnavailable, "Service Unavailable"},
	failure.Conflict:            {http.StatusConflict, "Conflict"},
	failure.TooLarge:            {http.StatusRequestEntityTooLarge, "Request body too large"},
}

// Lookup returns the entry of a kind; unknown kinds are internal errors.
func Lookup(k failure.Kind) Entry {
	if e, ok := table[k]; ok {
		return e
	}
	return table[failure.Internal]
}

// Kinds lists every kind the table knows, for exhaustiveness tests.
func Kinds() []failure.Kind {
	out := make([]failure.Kind, 0, len(table))
	for k := range table {
		out = append(out, k)
	}
	return out
}
