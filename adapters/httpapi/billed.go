package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"

	"github.com/trawlhq/trawl/adapters/callheader"
	"github.com/trawlhq/trawl/core/call"
	"github.com/trawlhq/trawl/core/credits"
	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/core/idempotency"
	"github.com/trawlhq/trawl/core/ratelimit"
)

// billedFunc is a billed endpoint: it decodes the request, runs the use
// case for c and returns the status and value to encode.
type billedFunc func(r *http.Request, c credits.Call) (status int, v any, rc credits.Receipt, err error)

// answerCodec keeps the JSON answer as written: a replay sends the same bytes.
var answerCodec = call.Codec[call.Answer]{
	Encode: func(a call.Answer) (call.Answer, error) { return a, nil },
	Decode: func(a call.Answer) (call.Answer, error) { return a, nil },
}

// billed mounts a billed endpoint: authenticated, then run through the
// billed-call pipeline of its rate-limit group.
func (a *API) billed(pattern string, group ratelimit.Group, h billedFunc) {
	a.mux.HandleFunc(pattern, a.authed(func(w http.ResponseWriter, r *http.Request) {
		req := call.Request{
			Principal:      principal(r.Context()),
			Group:          group,
			RequestID:      requestID(r.Context()),
			IdempotencyKey: r.Header.Get(idempotency.Header),
			Fingerprint:    func() (string, error) { return fingerprint(r) },
		}
		out, err := call.Run(r.Context(), a.svc.Calls, req, answerCodec, func(ctx context.Context, c credits.Call) (call.Answer, credits.Receipt, error) {
			status, v, rc, err := h(r.WithContext(ctx), c)
			if err != nil {
				return call.Answer{}, rc, err
			}
			return call.Answer{Status: status, ContentType: "application/json", Body: encodeJSON(v)}, rc, nil
		})
		callheader.Set(w.Header(), out)
		if err != nil {
			a.writeError(w, r, err)
			return
		}
		// The answer is whole: its length goes with it, so it is sent as it
		// is, not in chunks.
		w.Header().Set("Content-Type", out.Value.ContentType)
		w.Header().Set("Content-Length", strconv.Itoa(len(out.Value.Body)))
		w.WriteHeader(out.Value.Status)
		_, _ = w.Write(out.Value.Body)
	}))
}

// fingerprint reads the body (leaving it readable again) and identifies
// the request for the Idempotency-Key rules.
func fingerprint(r *http.Request) (string, error) {
	var raw []byte
	if r.Body != nil {
		b, err := io.ReadAll(r.Body)
		if err != nil {
			return "", failure.E("httpapi.fingerprint", failure.TooLarge, "The request body is too large.")
		}
		raw = b
		r.Body = io.NopCloser(bytes.NewReader(raw))
	}
	return idempotency.Fingerprint(r.Method, r.URL.Path, r.URL.RawQuery, raw), nil
}

// encodeJSON encodes v as writeJSON does.
func encodeJSON(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return buf.Bytes()
}
