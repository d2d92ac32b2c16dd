package httpapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/trawlhq/trawl/adapters/errmap"
	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/ports"
)

// writeJSON encodes v with a status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(encodeJSON(v))
}

// writeError maps err through the one kind table and writes the body shape
// of DECISIONS.md for that status. Internal details are logged, never sent.
func (a *API) writeError(w http.ResponseWriter, r *http.Request, err error) {
	kind := failure.KindOf(err)
	entry := errmap.Lookup(kind)
	fe, _ := failure.As(err)
	msg := failure.Public(err, entry.Message)
	if entry.HTTPStatus == http.StatusInternalServerError {
		msg = entry.Message // a kind the table does not know shows nothing of itself either
	}
	body := map[string]any{"message": msg}
	switch kind {
	case failure.Invalid:
		errs := map[string][]string{}
		if fe != nil {
			errs = fe.Fields
		}
		body["errors"] = errs
	case failure.InsufficientCredits:
		if fe != nil {
			body["required"], body["balance"] = fe.Required, fe.Balance
		}
	case failure.NotFound:
		// The credits endpoints promise {"error": ...}; every 404 carries both keys.
		body["error"] = msg
	}
	if reason, retryable, ok := errmap.Outcome(err); ok {
		body["reason"], body["retryable"] = reason, retryable
	}
	switch {
	case entry.HTTPStatus == http.StatusInternalServerError:
		// Internal errors, and kinds the table does not know, which it answers as such.
		a.log.ErrorContext(r.Context(), "request failed", "err", err, "request_id", requestID(r.Context()))
	case kind == failure.TemporarilyUnavailable:
		a.log.WarnContext(r.Context(), "request refused for now", "err", err, "request_id", requestID(r.Context()))
	}
	if secs, ok := errmap.RetryAfter(err); ok {
		w.Header().Set("Retry-After", strconv.Itoa(secs))
	}
	writeJSON(w, entry.HTTPStatus, body)
}

func isoPtr(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := ports.FormatTime(*t)
	return &s
}

// body is a decoded JSON object whose fields are read one by one, so each
// type error names its field. Unknown fields are ignored.
type body map[string]json.RawMessage

func decodeBody(r *http.Request) (body, error) {
	const op = "httpapi.decode"
	b := body{}
	if r.Body == nil {
		return b, nil
	}
	dec := json.NewDecoder(r.Body)
	if err := dec.Decode(&b); err != nil {
		var tooBig *http.MaxBytesError
		switch {
		case errors.As(err, &tooBig):
			return nil, failure.E(op, failure.TooLarge, fmt.Sprintf("The request body may not be larger than %d bytes.", tooBig.Limit))
		case errors.Is(err, io.EOF):
			return body{}, nil
		default:
			return nil, failure.Invalidf(op, "body", "The request body must be a JSON object.")
		}
	}
	return b, nil
}

func humanField(name string) string { return strings.ReplaceAll(name, "_", " ") }

// Int reads an integer field; JSON numbers and numeric strings are accepted
// (as form-minded clients send them), fractions are not.
func (b body) Int(fe *failure.FieldErrors, name string, def int64) (int64, bool) {
	raw, ok := b[name]
	if !ok || string(raw) == "null" {
		return def, false
	}
	v, good := parseInt(raw)
	if !good {
		fe.Add(name, fmt.Sprintf("The %s field must be an integer.", humanField(name)))
		return def, true
	}
	return v, true
}

func parseInt(raw json.RawMessage) (int64, bool) {
	var f float64
	if err := json.Unmarshal(raw, &f); err != nil {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return 0, false
		}
		n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		return n, err == nil
	}
	if f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return 0, false
	}
	return int64(f), true
}

// String reads a string field.
func (b body) String(fe *failure.FieldErrors, name string) (string, bool) {
	raw, ok := b[name]
	if !ok || string(raw) == "null" {
		return "", false
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		fe.Add(name, fmt.Sprintf("The %s field must be a string.", humanField(name)))
		return "", true
	}
	return s, true
}

// queryInt reads an integer query parameter.
func queryInt(fe *failure.FieldErrors, r *http.Request, name string) *int {
	return queryIntWording(fe, r, name, fmt.Sprintf("The %s field must be an integer.", humanField(name)))
}

// queryIntWording reads an integer query parameter: nil when absent (core
// applies its default); one that is not an integer adds notInt to fe.
func queryIntWording(fe *failure.FieldErrors, r *http.Request, name, notInt string) *int {
	s := strings.TrimSpace(r.URL.Query().Get(name))
	if s == "" {
		return nil
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		fe.Add(name, notInt)
		return nil
	}
	return &n
}

// Bool reads a boolean field; true/false, 1/0 and "true"/"false" are accepted.
func (b body) Bool(fe *failure.FieldErrors, name string) bool {
	raw, ok := b[name]
	if !ok || string(raw) == "null" {
		return false
	}
	return readBool(fe, name, strings.Trim(string(raw), `"`), false)
}

// queryBool reads the boolean query parameter name, def when it is absent
// or empty.
func queryBool(fe *failure.FieldErrors, r *http.Request, name string, def bool) bool {
	return readBool(fe, name, r.URL.Query().Get(name), def)
}

// readBool reads a boolean given as text, in a query parameter or a JSON
// body: true or 1, false or 0, in any case; def when empty. Anything else
// is added to fe, naming the field, and reads as def.
func readBool(fe *failure.FieldErrors, name, text string, def bool) bool {
	switch strings.ToLower(strings.TrimSpace(text)) {
	case "":
		return def
	case "true", "1":
		return true
	case "false", "0":
		return false
	}
	fe.Add(name, fmt.Sprintf("The %s field must be true or false.", humanField(name)))
	return def
}
