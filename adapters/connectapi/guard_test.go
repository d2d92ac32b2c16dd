package connectapi

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"connectrpc.com/connect"
)

// TestBoundedGzipStopsAtTheLimit: past the limit the decompressor fails
// instead of inflating the rest to count it.
func TestBoundedGzipStopsAtTheLimit(t *testing.T) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	chunk := bytes.Repeat([]byte("z"), 1<<20)
	for range 8 {
		_, _ = zw.Write(chunk)
	}
	_ = zw.Close()
	b := &boundedGzip{limit: 1000}
	if err := b.Reset(&buf); err != nil {
		t.Fatal(err)
	}
	n, err := io.Copy(io.Discard, b)
	if !errors.Is(err, errInflatesTooFar) || n != 1001 {
		t.Fatalf("read %d bytes, err %v; want 1001 and the limit error", n, err)
	}
	// Reset makes it usable for the next message, within the limit.
	buf.Reset()
	zw = gzip.NewWriter(&buf)
	_, _ = zw.Write([]byte("small"))
	_ = zw.Close()
	if err := b.Reset(&buf); err != nil {
		t.Fatal(err)
	}
	if got, err := io.ReadAll(b); err != nil || string(got) != "small" {
		t.Fatalf("after reset: %q %v", got, err)
	}
}

// TestGuardLogsInternalErrorsTheFrameworkAnswers: an internal error the
// RPC framework answers on its own (no interceptor saw it) is logged with
// the request id, in Connect and gRPC alike; one already logged is not
// logged twice.
func TestGuardLogsInternalErrorsTheFrameworkAnswers(t *testing.T) {
	var logs bytes.Buffer
	s := &Server{o: Options{Logger: slog.New(slog.NewJSONHandler(&logs, nil)), RequestID: func(context.Context) string { return "req_guard" }}}
	failing := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = errorWriter.Write(w, r, connect.NewError(connect.CodeInternal, errors.New("marshal failed in the framework")))
	})
	alreadyLogged := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		stateOf(r.Context()).logged = true
		_ = errorWriter.Write(w, r, connect.NewError(connect.CodeInternal, errors.New("logged by the interceptor")))
	})
	for _, ct := range []string{"application/proto", "application/grpc", "application/grpc-web+proto"} {
		for _, h := range []http.Handler{failing, alreadyLogged} {
			req := httptest.NewRequest(http.MethodPost, "/trawl.v1.X/Y", strings.NewReader(""))
			req.Header.Set("Content-Type", ct)
			s.guard("/trawl.v1.X/Y", h).ServeHTTP(httptest.NewRecorder(), req)
		}
	}
	out := logs.String()
	if n := strings.Count(out, `"request_id":"req_guard"`); n < 2 || !strings.Contains(out, "marshal failed in the framework") {
		t.Fatalf("framework errors not logged (%d lines):\n%s", n, out)
	}
	if strings.Contains(out, "logged by the interceptor") {
		t.Fatalf("an error was logged twice:\n%s", out)
	}
}
