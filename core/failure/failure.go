// Package failure is Trawl's error vocabulary: every error that crosses a
// package boundary carries a Kind, and delivery adapters translate the Kind
// (never the message text) into a status code in one table.
package failure

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Kind classifies an error by what the caller can do about it.
type Kind uint8

const (
	// Internal is the zero Kind: something broke on our side.
	Internal Kind = iota
	// Invalid: the request broke a validation rule; Fields names the fields.
	Invalid
	// Unauthenticated: missing, malformed or revoked token.
	Unauthenticated
	// PlanRequired: the account has no active plan.
	PlanRequired
	// InsufficientCredits: the balance does not cover the cost.
	InsufficientCredits
	// NotFound: the addressed resource does not exist for this caller.
	NotFound
	// RateLimited: the per-minute limit is used up; RetryAfter says when to retry.
	RateLimited
	// Unavailable: the operation could not be completed (target site, engine, model).
	Unavailable
	// Conflict: the request collides with another one in flight or with stored state.
	Conflict
	// TooLarge: the request body is over the size limit.
	TooLarge
	// TemporarilyUnavailable: Trawl itself cannot serve the request right now
	// (its database is out of connections, unreachable or busy past its
	// timeout). Nothing was charged; the same request succeeds when retried
	// after a short wait.
	TemporarilyUnavailable
)

var kindNames = map[Kind]string{
	Internal:               "internal",
	Invalid:                "invalid",
	Unauthenticated:        "unauthenticated",
	PlanRequired:           "plan_required",
	InsufficientCredits:    "insufficient_credits",
	NotFound:               "not_found",
	RateLimited:            "rate_limited",
	Unavailable:            "unavailable",
	Conflict:               "conflict",
	TooLarge:               "too_large",
	TemporarilyUnavailable: "temporarily_unavailable",
}

// Kinds lists every kind, in order (for exhaustiveness tests).
func Kinds() []Kind {
	out := make([]Kind, 0, len(kindNames))
	for k := Internal; int(k) < len(kindNames); k++ {
		out = append(out, k)
	}
	return out
}

func (k Kind) String() string {
	if s, ok := kindNames[k]; ok {
		return s
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// Error is the concrete error type. Message is safe to show to the caller;
// Err is the underlying cause and is never shown.
type Error struct {
	Op      string
	Kind    Kind
	Message string
	// Fields maps a request field to its validation messages (Kind Invalid).
	Fields map[string][]string
	// Required and Balance describe an InsufficientCredits refusal.
	Required, Balance int64
	// RetryAfterSeconds says when to retry a RateLimited or
	// TemporarilyUnavailable request (0: the kind's default).
	RetryAfterSeconds int
	// Reason is the stable code of an Unavailable failure (reason.go).
	Reason Reason
	Err    error
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.Op != "" {
		b.WriteString(e.Op)
		b.WriteString(": ")
	}
	b.WriteString(e.Kind.String())
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(e.Message)
	}
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// E builds an error of a kind with a caller-safe message and an optional cause.
func E(op string, kind Kind, message string, cause ...error) *Error {
	e := &Error{Op: op, Kind: kind, Message: message}
	if len(cause) > 0 {
		e.Err = cause[0]
	}
	return e
}

// Wrap attaches an op to err, keeping its Kind; a plain error becomes Internal.
func Wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	var fe *Error
	if errors.As(err, &fe) {
		return err
	}
	return &Error{Op: op, Kind: Internal, Err: err}
}

// KindOf returns the Kind of err; Internal for plain errors.
func KindOf(err error) Kind {
	var fe *Error
	if errors.As(err, &fe) {
		return fe.Kind
	}
	return Internal
}

// Is reports whether err carries kind.
func Is(err error, kind Kind) bool { return err != nil && KindOf(err) == kind }

// As returns the *Error inside err, if any.
func As(err error) (*Error, bool) {
	var fe *Error
	ok := errors.As(err, &fe)
	return fe, ok
}

// Field is one validation failure: which field, and what is wrong with it.
type Field struct {
	Name    string
	Message string
}

// FieldErrors accumulates validation failures in the order they were found.
type FieldErrors struct {
	order  []string
	fields map[string][]string
}

// Add records a message for a field.
func (f *FieldErrors) Add(name, message string) {
	if f.fields == nil {
		f.fields = map[string][]string{}
	}
	if _, seen := f.fields[name]; !seen {
		f.order = append(f.order, name)
	}
	f.fields[name] = append(f.fields[name], message)
}

// Has reports whether a message was recorded for the field.
func (f *FieldErrors) Has(name string) bool { _, ok := f.fields[name]; return ok }

// Empty reports whether nothing was added.
func (f *FieldErrors) Empty() bool { return len(f.order) == 0 }

// Err returns nil when empty, else an Invalid error whose message is the first failure.
func (f *FieldErrors) Err(op string) error {
	if f.Empty() {
		return nil
	}
	first := f.fields[f.order[0]][0]
	return &Error{Op: op, Kind: Invalid, Message: first, Fields: f.fields}
}

// Invalidf is a shortcut for a single-field validation error.
func Invalidf(op, field, format string, args ...any) error {
	var fe FieldErrors
	fe.Add(field, fmt.Sprintf(format, args...))
	return fe.Err(op)
}

// FieldNames lists the fields of an Invalid error, sorted (for tests and logs).
func FieldNames(err error) []string {
	fe, ok := As(err)
	if !ok {
		return nil
	}
	names := make([]string, 0, len(fe.Fields))
	for n := range fe.Fields {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Public is the message of err that may be shown to a caller: its own
// message unless it is an internal error, else fallback.
func Public(err error, fallback string) string {
	if fe, ok := As(err); ok && fe.Message != "" && fe.Kind != Internal {
		return fe.Message
	}
	return fallback
}
