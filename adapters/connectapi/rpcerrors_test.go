package connectapi_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/protobuf/proto"

	"github.com/trawlhq/trawl/adapters/sqlstore"
	"github.com/trawlhq/trawl/ports"
	"github.com/trawlhq/trawl/testkit/apitest"
	"github.com/trawlhq/trawl/testkit/logtest"
	"github.com/trawlhq/trawl/testkit/memstore"
	"github.com/trawlhq/trawl/testkit/mocks"
)

// logSink collects a server's log lines.
type logSink struct{ logtest.Buffer }

func (l *logSink) logger() *slog.Logger { return slog.New(slog.NewJSONHandler(l, nil)) }

// answer is a raw RPC answer: status, headers and trailers together, body.
type answer struct {
	status int
	header http.Header
	body   []byte
}

// grpcStatus is the gRPC status of the answer ("" for Connect).
func (a answer) grpcStatus() string { return a.header.Get("Grpc-Status") }

// code is the RPC code of a Connect answer as its body names it.
func (a answer) text() string { return string(a.body) + " " + strings.Join(flatten(a.header), " ") }

func flatten(h http.Header) []string {
	var out []string
	for k, vs := range h {
		for _, v := range vs {
			out = append(out, k+": "+v)
		}
	}
	return out
}

// rawCall sends one message (uncompressed) to a procedure in a protocol:
// "connect" (proto), "connect-json" or "grpc".
func rawCall(t *testing.T, hc *http.Client, base string, p procedure, protocol string, msg []byte, headers ...string) answer {
	t.Helper()
	h := http.Header{}
	body := msg
	frame := func() []byte {
		out := make([]byte, 5, 5+len(msg))
		binary.BigEndian.PutUint32(out[1:], uint32(len(msg)))
		return append(out, msg...)
	}
	switch {
	case protocol == "grpc":
		body = frame()
		h.Set("Content-Type", "application/grpc")
		h.Set("Te", "trailers")
	case p.ClientStream || p.ServerStream:
		body = frame()
		h.Set("Content-Type", "application/connect+proto")
		if protocol == "connect-json" {
			h.Set("Content-Type", "application/connect+json")
		}
	default:
		h.Set("Content-Type", "application/proto")
		if protocol == "connect-json" {
			h.Set("Content-Type", "application/json")
		}
	}
	for i := 0; i+1 < len(headers); i += 2 {
		h.Set(headers[i], headers[i+1])
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, base+p.Path, bytes.NewReader(body))
	req.Header = h
	res, err := hc.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", protocol, p.Path, err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	all := res.Header.Clone()
	for k, v := range res.Trailer {
		all[k] = v
	}
	return answer{status: res.StatusCode, header: all, body: raw}
}

// serverError reports whether an answer is a server error: HTTP 500, or
// gRPC unknown, internal or data loss.
func serverError(a answer) bool {
	switch a.grpcStatus() {
	case "2", "13", "15":
		return true
	}
	return a.status == http.StatusInternalServerError || strings.Contains(string(a.body), `"internal"`) || strings.Contains(string(a.body), `"unknown"`)
}

// TestOddDeadlinesAreNotServerErrors: a deadline of zero, one that passes
// during the call, and malformed ones are answered as expired or invalid on
// every procedure, never as a server error, and the header is not quoted.
func TestOddDeadlinesAreNotServerErrors(t *testing.T) {
	store, err := sqlstore.Open(context.Background(), sqlstore.Options{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	var logs logSink
	e := startOn(t, store, apitest.Options{Logger: logs.logger()})
	hc := h2c()
	odd := "9" + strings.Repeat("x", 300)
	cases := []struct {
		protocol, header, value string
		want                    []string // acceptable codes; nil: any but a server error
	}{
		{"connect", "Connect-Timeout-Ms", "0", []string{"deadline_exceeded"}},
		{"connect", "Connect-Timeout-Ms", "1", nil},
		{"connect", "Connect-Timeout-Ms", "-1", []string{"invalid_argument"}},
		{"connect", "Connect-Timeout-Ms", "12345678901", []string{"invalid_argument"}},
		{"connect", "Connect-Timeout-Ms", "1.5", []string{"invalid_argument"}},
		{"connect", "Connect-Timeout-Ms", odd, []string{"invalid_argument"}},
		{"grpc", "Grpc-Timeout", "0S", []string{"deadline_exceeded"}},
		{"grpc", "Grpc-Timeout", "0n", []string{"deadline_exceeded"}},
		{"grpc", "Grpc-Timeout", "1n", nil},
		{"grpc", "Grpc-Timeout", "5x", []string{"invalid_argument"}},
		{"grpc", "Grpc-Timeout", odd, []string{"invalid_argument"}},
	}
	grpcCodes := map[string]string{"0": "ok", "3": "invalid_argument", "4": "deadline_exceeded", "16": "unauthenticated"}
	for _, p := range procedures(t, e.RPC) {
		for _, c := range cases {
			a := rawCall(t, hc, e.Server.URL, p, c.protocol, nil, c.header, c.value, "Authorization", "Bearer "+e.tok)
			got := ""
			if c.protocol == "grpc" {
				got = grpcCodes[a.grpcStatus()]
			} else {
				body := string(a.body)
				if p.ClientStream || p.ServerStream {
					body = string(unenvelope(t, a.body))
				}
				for _, code := range []string{"deadline_exceeded", "invalid_argument", "unauthenticated"} {
					if strings.Contains(body, `"code":"`+code+`"`) {
						got = code
					}
				}
				if got == "" && a.status == http.StatusOK {
					got = "ok"
				}
			}
			ok := c.want == nil
			for _, w := range c.want {
				ok = ok || got == w
			}
			if !ok || serverError(a) {
				t.Errorf("%s %s %s=%.20q: status %d grpc-status %q (%s), want %v: %.300s", c.protocol, p.Path, c.header, c.value, a.status, a.grpcStatus(), got, c.want, a.body)
			}
			if strings.Contains(a.text(), "xxxxxxxx") {
				t.Errorf("%s %s: the answer quotes the header", c.protocol, p.Path)
			}
		}
	}
	if strings.Contains(logs.String(), `"level":"ERROR"`) {
		t.Errorf("odd deadlines were logged as errors:\n%s", logs.String())
	}
}

// TestErrorsNeverLeakOverRPC: an RPC error's message and details carry no
// internals (addresses, causes, panics, Go type names) in any protocol, and
// each internal error is logged with its cause and the request id.
func TestErrorsNeverLeakOverRPC(t *testing.T) {
	pay := mocks.NewPaymentProvider(t)
	pay.EXPECT().CreateCheckout(mock.Anything, mock.MatchedBy(func(r ports.CheckoutRequest) bool { return r.Credits == 100 })).
		Return(ports.Checkout{}, errors.New("dial tcp 10.0.0.7:443: secret-internal-host refused"))
	pay.EXPECT().CreateCheckout(mock.Anything, mock.MatchedBy(func(r ports.CheckoutRequest) bool { return r.Credits == 200 })).
		RunAndReturn(func(context.Context, ports.CheckoutRequest) (ports.Checkout, error) { panic("kaboom internals") })
	var logs logSink
	e := startOn(t, memstore.New(), apitest.Options{Payments: pay, Logger: logs.logger()})
	hc := h2c()
	purchase := procedure{Path: "/trawl.v1.CreditsService/PurchaseCredits"}
	getContent := procedure{Path: "/trawl.v1.PageService/GetContent"}
	auth := []string{"Authorization", "Bearer " + e.tok}
	leaks := []string{"10.0.0.7", "secret-internal-host", "dial tcp", "kaboom", "goroutine", ".go:", "trawlv1", "unmarshal into", "panic"}
	for _, protocol := range []string{"connect", "connect-json", "grpc"} {
		for _, c := range []struct {
			name     string
			p        procedure
			msg      []byte
			internal bool
		}{
			{"provider failure", purchase, []byte{0x08, 100}, true},
			{"panic", purchase, []byte{0x08, 0xc8, 0x01}, true},
			{"undecodable", getContent, []byte("\x0a\xff\xff\xff\xff\x0f{\"url\": 12}"), false},
			{"wrong json type", getContent, []byte(`{"url": {"nested": ["10.0.0.7"]}}`), false},
		} {
			msg := c.msg
			if protocol == "connect-json" && c.p == purchase {
				msg = []byte(map[bool]string{true: `{"credits": 100}`, false: `{"credits": 200}`}[c.name == "provider failure"])
			}
			if protocol != "connect-json" && c.name == "wrong json type" {
				continue
			}
			a := rawCall(t, hc, e.Server.URL, c.p, protocol, msg, auth...)
			for _, l := range leaks {
				if strings.Contains(a.text(), l) {
					t.Errorf("%s %s: the answer carries %q: %d %s", protocol, c.name, l, a.status, a.text())
				}
			}
			if c.internal {
				if !serverError(a) || !strings.Contains(a.text(), "Server Error") {
					t.Errorf("%s %s: %d %s, want an internal error", protocol, c.name, a.status, a.text())
				}
				id := a.header.Get("X-Request-Id")
				if id == "" || !strings.Contains(logs.String(), `"request_id":"`+id+`"`) {
					t.Errorf("%s %s: request %q not logged:\n%s", protocol, c.name, id, logs.String())
				}
			} else if serverError(a) {
				t.Errorf("%s %s: %d %s, want a client error", protocol, c.name, a.status, a.text())
			}
		}
	}
	for _, cause := range []string{"secret-internal-host", "kaboom internals"} {
		if !strings.Contains(logs.String(), cause) {
			t.Errorf("the cause %q was not logged", cause)
		}
	}
}

// TestHealthDoesNotQuoteTheServiceName: an unknown service is refused
// without its name, which is the caller's and of any length.
func TestHealthDoesNotQuoteTheServiceName(t *testing.T) {
	e := start(t)
	raw, _ := proto.Marshal(&healthpb.HealthCheckRequest{Service: strings.Repeat("x", 4000)})
	for _, protocol := range []string{"connect", "grpc"} {
		a := rawCall(t, h2c(), e.Server.URL, procedure{Path: "/grpc.health.v1.Health/Check"}, protocol, raw)
		if strings.Contains(a.text(), "xxxxxxxx") || !strings.Contains(a.text(), "unknown service") {
			t.Errorf("%s: %d %.300s", protocol, a.status, a.text())
		}
	}
}
