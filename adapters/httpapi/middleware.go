package httpapi

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"time"

	"github.com/trawlhq/trawl/adapters/httprec"
	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/ports"
)

type ctxKey int

const keyRequest ctxKey = iota

// request is what the API knows of the request being served, kept in its
// context once (one allocation for the id, the caller and the recorder):
// the middleware fills it in as it learns, the handlers and the access log
// read it.
type request struct {
	id string
	// principal is the caller, once authed has authenticated it.
	principal ports.Principal
	authed    bool
	rec       httprec.Recorder
}

func current(ctx context.Context) *request {
	st, _ := ctx.Value(keyRequest).(*request)
	return st
}

// RequestID is the id of the request being served (X-Request-Id).
func RequestID(ctx context.Context) string { return requestID(ctx) }

func requestID(ctx context.Context) string {
	if st := current(ctx); st != nil {
		return st.id
	}
	return ""
}

func principal(ctx context.Context) ports.Principal {
	if st := current(ctx); st != nil && st.authed {
		return st.principal
	}
	return ports.Principal{}
}

// saneRequestID accepts a client's id of 1-128 characters of [A-Za-z0-9._:-].
func saneRequestID(s string) bool {
	if len(s) == 0 || len(s) > 128 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.' || c == ':') {
			return false
		}
	}
	return true
}

func newRequestID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return "req_" + hex.EncodeToString(b[:])
}

// outer wraps every request: request id, body limit, panic recovery, access log.
func (a *API) outer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		id := r.Header.Get("X-Request-Id")
		if !saneRequestID(id) {
			id = newRequestID()
		}
		w.Header()["X-Request-Id"] = []string{id}
		st := &request{id: id, rec: httprec.Recorder{ResponseWriter: w}}
		ctx := context.WithValue(r.Context(), keyRequest, st)
		r = r.WithContext(ctx)
		if r.Body != nil && r.Body != http.NoBody { // nothing to read, nothing to cap
			r.Body = http.MaxBytesReader(w, r.Body, a.maxBody)
		}
		rec := &st.rec
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				a.log.ErrorContext(ctx, "panic serving request", "panic", fmt.Sprint(p), "stack", string(debug.Stack()), "request_id", id)
				if rec.Status == 0 {
					a.writeError(rec, r, failure.E("httpapi", failure.Internal, "", fmt.Errorf("panic: %v", p)))
				}
			}
			a.accessLog(ctx, r, st, time.Since(start))
		}()
		next.ServeHTTP(rec, r)
	})
}

// accessLog writes the line of a served request, who called included once
// authed knew it.
func (a *API) accessLog(ctx context.Context, r *http.Request, st *request, took time.Duration) {
	if !a.log.Enabled(ctx, slog.LevelInfo) {
		return
	}
	attrs := [8]slog.Attr{
		slog.String("method", r.Method), slog.String("path", r.URL.Path), slog.Int("status", st.rec.Status),
		slog.Duration("duration", took), slog.String("request_id", st.id), slog.Int("bytes", st.rec.Bytes),
	}
	n := 6
	if st.authed && st.principal.Account.ID != 0 {
		attrs[6], attrs[7] = slog.Int64("account_id", st.principal.Account.ID), slog.Int64("token_id", st.principal.Token.ID)
		n = 8
	}
	a.log.LogAttrs(ctx, slog.LevelInfo, "request", attrs[:n]...)
}

// authed requires a valid Bearer token and makes its principal the
// request's.
func (a *API) authed(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		p, err := a.svc.Auth.Authenticate(r.Context(), r.Header.Get("Authorization"))
		if err != nil {
			a.writeError(w, r, err)
			return
		}
		if st := current(r.Context()); st != nil {
			st.principal, st.authed = p, true
			next(w, r)
			return
		}
		// Outside outer (a handler served on its own): a request of its own.
		st := &request{principal: p, authed: true}
		next(w, r.WithContext(context.WithValue(r.Context(), keyRequest, st)))
	}
}
