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
	// RetryAfter is the Retry-After, in seconds, a response of this kind
	// carries when the error does not say (0: no Retry-After).
	RetryAfter int
}

var table = map[failure.Kind]Entry{
	failure.Internal:            {http.StatusInternalServerError, connect.CodeInternal, "Server Error", "INTERNAL", 0},
	failure.Invalid:             {http.StatusUnprocessableEntity, connect.CodeInvalidArgument, "The given data was invalid.", "INVALID", 0},
	failure.Unauthenticated:     {http.StatusUnauthorized, connect.CodeUnauthenticated, "Unauthenticated.", "UNAUTHENTICATED", 0},
	failure.PlanRequired:        {http.StatusPaymentRequired, connect.CodeFailedPrecondition, "Plan Required", "PLAN_REQUIRED", 0},
	failure.InsufficientCredits: {http.StatusPaymentRequired, connect.CodeFailedPrecondition, "Insufficient Credits", "INSUFFICIENT_CREDITS", 0},
	failure.NotFound:            {http.StatusNotFound, connect.CodeNotFound, "Not Found", "NOT_FOUND", 0},
	failure.RateLimited:         {http.StatusTooManyRequests, connect.CodeResourceExhausted, "Too Many Requests", "RATE_LIMITED", 1},
	failure.Unavailable:         {http.StatusServiceUnavailable, connect.CodeUnavailable, "Service Unavailable", "UNAVAILABLE", 0},
	failure.Conflict:            {http.StatusConflict, connect.CodeAborted, "Conflict", "CONFLICT", 0},
	failure.TooLarge:            {http.StatusRequestEntityTooLarge, connect.CodeResourceExhausted, "Request body too large", "TOO_LARGE", 0},
	// Trawl's own database is out of connections or unreachable: retrying in
	// a moment is the cure, so the answer says when.
	failure.TemporarilyUnavailable: {http.StatusServiceUnavailable, connect.CodeUnavailable,
		"The service is busy right now. Please retry in a few seconds.", "TEMPORARILY_UNAVAILABLE", 2},
}

// Lookup returns the entry of a kind; unknown kinds are internal errors.
func Lookup(k failure.Kind) Entry {
	if e, ok := table[k]; ok {
		return e
	}
	return table[failure.Internal]
}

// RetryAfter is the Retry-After, in seconds, of a response for err: the
// error's own delay, else its kind's default. ok is false for kinds that
// carry no Retry-After.
func RetryAfter(err error) (seconds int, ok bool) {
	kind := failure.KindOf(err)
	e := Lookup(kind)
	if e.RetryAfter <= 0 {
		return 0, false
	}
	if fe, found := failure.As(err); found && fe.Kind == kind && fe.RetryAfterSeconds > 0 {
		return fe.RetryAfterSeconds, true
	}
	return e.RetryAfter, true
}

// Kinds lists every kind the table knows, for exhaustiveness tests.
func Kinds() []failure.Kind {
	out := make([]failure.Kind, 0, len(table))
	for k := range table {
		out = append(out, k)
	}
	return out
}

// Outcome is the machine-readable reason of a 503: a stable code from
// failure.Reasons and whether the same request may succeed later. ok is
// false for errors that are not a 503.
func Outcome(err error) (reason failure.Reason, retryable bool, ok bool) {
	kind := failure.KindOf(err)
	if Lookup(kind).HTTPStatus != http.StatusServiceUnavailable {
		return "", false, false
	}
	reason, retryable = failure.Outcome(err)
	return reason, retryable, true
}
