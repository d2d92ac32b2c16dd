package connectapi_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	trawlv1 "github.com/trawlhq/trawl/adapters/connectapi/gen/trawl/v1"
	"github.com/trawlhq/trawl/testkit/apitest"
	"github.com/trawlhq/trawl/testkit/memstore"
)

// rpcLeakMarkers are pieces of text only internals produce.
var rpcLeakMarkers = []string{"goroutine ", ".go:", "runtime error", "panic", "dial tcp", "connection refused", "no such host", "sql:", "memstore",
	"trawlv1", "unmarshal into", "context deadline exceeded", "context canceled"}

// fuzzProtocols are the ways a message reaches a procedure.
var fuzzProtocols = []string{"connect", "connect-json", "grpc", "grpc-web"}

// FuzzRPC sends arbitrary messages to every procedure the server registers
// (health and reflection included) in every protocol, compressed or not,
// through the real router, middleware and handlers: no message may panic,
// be answered as a server error, or show internals.
func FuzzRPC(f *testing.F) {
	var logs logSink
	e := startOn(f, memstore.New(), apitest.Options{NoWorker: true, Logger: logs.logger()})
	procs := procedures(f, e.RPC)
	seeds := []proto.Message{
		&trawlv1.GetContentRequest{Url: "http://news.test/article"},
		&trawlv1.PreviewCostRequest{ServiceType: "serp", Quantity: 3},
		&trawlv1.CreateBulkContentJobRequest{Urls: []string{"http://news.test/a", "ftp://x"}, Email: true, CallbackUrl: "http://[::1]/"},
		&trawlv1.SearchContentRequest{Q: "tides", MaxContent: 51, WhitelistDomains: []string{"*.", ""}},
		&trawlv1.ListTransactionsRequest{Page: -1, PerPage: 1 << 30},
	}
	// Every procedure gets each seed once, the protocols taking turns.
	for i := range procs {
		for k, m := range seeds {
			raw, _ := proto.Marshal(m)
			f.Add(uint8(i), uint8(i+k), raw, k%2 == 0, true)
		}
		f.Add(uint8(i), uint8(1), []byte(`{"url":"http://news.test/","quantity":"3","credits":500}`), true, true)
		f.Add(uint8(i), uint8(i), []byte("\x0a\xff\xff\xff\xff\x0f"), false, false)
	}
	handler := e.API.Handler()
	f.Fuzz(func(t *testing.T, procIndex, protocolIndex uint8, msg []byte, compress, withToken bool) {
		p := procs[int(procIndex)%len(procs)]
		protocol := fuzzProtocols[int(protocolIndex)%len(fuzzProtocols)]
		req := fuzzRequest(p, protocol, msg, compress)
		if withToken {
			req.Header.Set("Authorization", "Bearer "+e.tok)
		}
		if p.ServerStream {
			// Health Watch streams until its caller leaves.
			ctx, cancel := context.WithTimeout(req.Context(), 50*time.Millisecond)
			defer cancel()
			req = req.WithContext(ctx)
		}
		e.Clock.Advance(time.Minute) // a fresh rate-limit window for every input
		rec := httptest.NewRecorder()
		handler.ServeHTTP(rec, req)
		res := rec.Result()
		body, _ := io.ReadAll(res.Body)
		all := res.Header.Clone()
		for k, v := range res.Trailer {
			all[k] = v
		}
		a := answer{status: res.StatusCode, header: all, body: body}
		text := a.text()
		if strings.Contains(protocol, "connect") && (p.ClientStream || p.ServerStream) || protocol == "grpc-web" {
			text += string(unframe(body))
		}
		if serverError(a) || strings.Contains(text, `"code":"internal"`) || strings.Contains(text, `"code":"unknown"`) ||
			strings.Contains(text, "grpc-status:2\r") || strings.Contains(text, "grpc-status:13\r") {
			t.Fatalf("%s %s: server error %d: %.500s\nlog: %s", protocol, p.Path, a.status, text, logs.String())
		}
		for _, m := range rpcLeakMarkers {
			if strings.Contains(text, m) {
				t.Fatalf("%s %s shows %q: %.500s", protocol, p.Path, m, text)
			}
		}
	})
}

// fuzzRequest frames msg for a procedure in a protocol.
func fuzzRequest(p procedure, protocol string, msg []byte, compress bool) *http.Request {
	payload := msg
	if compress {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		_, _ = zw.Write(msg)
		_ = zw.Close()
		payload = buf.Bytes()
	}
	frame := func() []byte {
		out := make([]byte, 5, 5+len(payload))
		if compress {
			out[0] = 1
		}
		binary.BigEndian.PutUint32(out[1:], uint32(len(payload)))
		return append(out, payload...)
	}
	h := http.Header{}
	var body []byte
	encodingHeader := ""
	switch protocol {
	case "grpc":
		body = frame()
		h.Set("Content-Type", "application/grpc")
		h.Set("Te", "trailers")
		encodingHeader = "Grpc-Encoding"
	case "grpc-web":
		body = frame()
		h.Set("Content-Type", "application/grpc-web+proto")
		encodingHeader = "Grpc-Encoding"
	default:
		codec := "proto"
		if protocol == "connect-json" {
			codec = "json"
		}
		if p.ClientStream || p.ServerStream {
			body = frame()
			h.Set("Content-Type", "application/connect+"+codec)
			encodingHeader = "Connect-Content-Encoding"
		} else {
			body = payload
			h.Set("Content-Type", "application/"+codec)
			encodingHeader = "Content-Encoding"
		}
		h.Set("Connect-Protocol-Version", "1")
	}
	if compress {
		h.Set(encodingHeader, "gzip")
	}
	req := httptest.NewRequest(http.MethodPost, p.Path, bytes.NewReader(body))
	req.Header = h
	req.Proto, req.ProtoMajor, req.ProtoMinor = "HTTP/2.0", 2, 0
	return req
}

// unframe joins the messages of a stream answer, inflating compressed ones.
func unframe(b []byte) []byte {
	var out []byte
	for len(b) >= 5 {
		flags, n := b[0], int(binary.BigEndian.Uint32(b[1:5]))
		if len(b) < 5+n {
			break
		}
		m := b[5 : 5+n]
		if flags&1 != 0 {
			if zr, err := gzip.NewReader(bytes.NewReader(m)); err == nil {
				m, _ = io.ReadAll(io.LimitReader(zr, 1<<20))
			}
		}
		out = append(out, m...)
		b = b[5+n:]
	}
	return out
}
