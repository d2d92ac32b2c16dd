// Package errmap is the one table translating failure kinds into protocol
// status codes. Delivery adapters look kinds up here and nowhere else.
package errmap

import (
	"net/http"

	"connectrpc.com/connect"

	"github.com/trawlhq/trawl/core/failure"
)

// Entry is how a kind appears on the wire.
type Entry struct {
	HTTPStatus  int
	ConnectCode connect.Code
	// Message is shown when the error carries no caller-safe message.
	Message string
	// Reason names the kind in a Connect error's ErrorInfo detail, so RPC
	// clients can tell the two HTTP 402s apart.
	Reason string
}

var table = map[failure.Kind]Entry{
	failure.Internal:            {http.StatusInternalServerError, connect.CodeInternal, "Server Error", "INTERNAL"},
	failure.Invalid:             {http.StatusUnprocessableEntity, connect.CodeInvalidArgument, "The given data was invalid.", "INVALID"},
	failure.Unauthenticated:     {http.StatusUnauthorized, connect.CodeUnauthenticated, "Unauthenticated.", "UNAUTHENTICATED"},
	failure.PlanRequired:        {http.StatusPaymentRequired, connect.CodeFailedPrecondition, "Plan Required", "PLAN_REQUIRED"},
	failure.InsufficientCredits: {http.StatusPaymentRequired, connect.CodeFailedPrecondition, "Insufficient Credits", "INSUFFICIENT_CREDITS"},
	failure.NotFound:            {http.StatusNotFound, connect.CodeNotFound, "Not Found", "NOT_FOUND"},
	failure.RateLimited:         {http.StatusTooManyRequests, connect.CodeResourceExhausted, "Too Many Requests", "RATE_LIMITED"},
	failure.Unavailable:         {http.StatusServiceUnavailable, connect.CodeUnavailable, "Service Unavailable", "UNAVAILABLE"},
	failure.Conflict:            {http.StatusConflict, connect.CodeAborted, "Conflict", "CONFLICT"},
	failure.TooLarge:            {http.StatusRequestEntityTooLarge, connect.CodeResourceExhausted, "Request body too large", "TOO_LARGE"},
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
