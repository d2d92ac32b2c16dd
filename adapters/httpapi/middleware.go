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

	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/ports"
)

type ctxKey int

const (
	keyRequestID ctxKey = iota
	keyPrincipal
	keyLogInfo
)

// logInfo lets inner handlers tell the access log who called.
type logInfo struct{ accountID, tokenID int64 }

// RequestID is the id of the request being served (X-Request-Id).
func RequestID(ctx context.Context) string { return requestID(ctx) }

func requestID(ctx context.Context) string {
	id, _ := ctx.Value(keyRequestID).(string)
	return id
}

func principal(ctx context.Context) ports.Principal {
	p, _ := ctx.Value(keyPrincipal).(ports.Principal)
	return p
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

// statusRecorder remembers the status a handler wrote.
type statusRecorder struct {
	http.ResponseWriter
	status int
	bytes  int
}

func (s *statusRecorder) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	n, err := s.ResponseWriter.Write(b)
	s.bytes += n
	return n, err
}

func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// Flush lets streaming responses (gRPC reflection) through the recorder.
func (s *statusRecorder) Flush() {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	if f, ok := s.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// outer wraps every request: request id, body limit, panic recovery, access log.
func (a *API) outer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		id := r.Header.Get("X-Request-Id")
		if !saneRequestID(id) {
			id = newRequestID()
		}
		w.Header().Set("X-Request-Id", id)
		info := &logInfo{}
		ctx := context.WithValue(context.WithValue(r.Context(), keyRequestID, id), keyLogInfo, info)
		r = r.WithContext(ctx)
		if r.Body != nil {
			r.Body = http.MaxBytesReader(w, r.Body, a.maxBody)
		}
		rec := &statusRecorder{ResponseWriter: w}
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				a.log.ErrorContext(ctx, "panic serving request", "panic", fmt.Sprint(p), "stack", string(debug.Stack()), "request_id", id)
				if rec.status == 0 {
					a.writeError(rec, r, failure.E("httpapi", failure.Internal, "", fmt.Errorf("panic: %v", p)))
				}
			}
			attrs := []any{
				slog.String("method", r.Method), slog.String("path", r.URL.Path), slog.Int("status", rec.status),
				slog.Duration("duration", time.Since(start)), slog.String("request_id", id), slog.Int("bytes", rec.bytes),
			}
			if info.accountID != 0 {
				attrs = append(attrs, slog.Int64("account_id", info.accountID), slog.Int64("token_id", info.tokenID))
			}
			a.log.LogAttrs(ctx, slog.LevelInfo, "request", toAttrs(attrs)...)
		}()
		next.ServeHTTP(rec, r)
	})
}

func toAttrs(args []any) []slog.Attr {
	out := make([]slog.Attr, 0, len(args))
	for _, a := range args {
		if at, ok := a.(slog.Attr); ok {
			out = append(out, at)
		}
	}
	return out
}

// authed requires a valid Bearer token and puts the principal in the context.
func (a *API) authed(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		p, err := a.auth.Authenticate(r.Context(), r.Header.Get("Authorization"))
		if err != nil {
			a.writeError(w, r, err)
			return
		}
		if info, ok := r.Context().Value(keyLogInfo).(*logInfo); ok {
			info.accountID, info.tokenID = p.Account.ID, p.Token.ID
		}
		next(w, r.WithContext(context.WithValue(r.Context(), keyPrincipal, p)))
	}
}
