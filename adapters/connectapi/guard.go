package connectapi

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"runtime/debug"
	"strconv"
	"strings"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/trawlhq/trawl/adapters/errmap"
	"github.com/trawlhq/trawl/adapters/httprec"
	"github.com/trawlhq/trawl/core/failure"
)

// handlerOptions are the options every RPC handler is built with, Trawl's
// services, health and reflection alike: a message may not be larger than
// the JSON API's body limit once decompressed, and decoding errors say what
// is wrong without quoting the request or naming Go types.
func (s *Server) handlerOptions() connect.HandlerOption {
	limit := s.o.MaxBodyBytes
	return connect.WithHandlerOptions(
		connect.WithRecover(s.recovered),
		connect.WithReadMaxBytes(int(limit)),
		connect.WithCompression("gzip", nil, nil), // drop the unbounded default
		connect.WithCompression("gzip",
			func() connect.Decompressor { return &boundedGzip{limit: limit} },
			func() connect.Compressor { return gzip.NewWriter(io.Discard) }),
		connect.WithCodec(protoCodec{}),
		connect.WithCodec(jsonCodec{"json"}),
		connect.WithCodec(jsonCodec{"json; charset=utf-8"}),
	)
}

// recovered answers a panic as an internal error and logs it with its
// stack and the request id.
func (s *Server) recovered(ctx context.Context, spec connect.Spec, _ http.Header, p any) error {
	s.o.Logger.ErrorContext(ctx, "panic serving rpc", "panic", fmt.Sprint(p), "stack", string(debug.Stack()), "procedure", spec.Procedure,
		"request_id", s.o.RequestID(ctx))
	if st := stateOf(ctx); st != nil {
		st.logged = true
	}
	return connect.NewError(connect.CodeInternal, errors.New(errmap.Lookup(failure.Internal).Message))
}

// errInflatesTooFar ends the decompression of a message larger than the limit.
var errInflatesTooFar = errors.New("the decompressed message is too large")

// boundedGzip inflates at most limit+1 bytes of one message and then fails:
// Connect stops reading at the limit but then drains the rest to report its
// size, which would spend the CPU time of inflating a whole gzip bomb.
type boundedGzip struct {
	zr    gzip.Reader
	limit int64
	n     int64
}

func (b *boundedGzip) Reset(r io.Reader) error {
	b.n = 0
	return b.zr.Reset(r)
}

func (b *boundedGzip) Read(p []byte) (int, error) {
	room := b.limit + 1 - b.n
	if room <= 0 {
		return 0, errInflatesTooFar
	}
	if int64(len(p)) > room {
		p = p[:room]
	}
	n, err := b.zr.Read(p)
	b.n += int64(n)
	return n, err
}

func (b *boundedGzip) Close() error { return b.zr.Close() }

// errUndecodable replaces the decoder's own error, which quotes the input
// and names the Go type it was decoding into.
var errUndecodable = errors.New("the request message could not be decoded")

// protoCodec is the binary protobuf codec.
type protoCodec struct{}

func (protoCodec) Name() string { return "proto" }

func (protoCodec) Marshal(v any) ([]byte, error) {
	m, ok := v.(proto.Message)
	if !ok {
		return nil, fmt.Errorf("%T is not a protobuf message", v)
	}
	return proto.Marshal(m)
}

func (protoCodec) Unmarshal(b []byte, v any) error {
	m, ok := v.(proto.Message)
	if !ok {
		return errUndecodable
	}
	if proto.Unmarshal(b, m) != nil {
		return errUndecodable
	}
	return nil
}

// jsonCodec is the protobuf JSON codec; unknown fields are ignored so
// clients and server need not share one schema version.
type jsonCodec struct{ name string }

func (c jsonCodec) Name() string { return c.name }

func (jsonCodec) Marshal(v any) ([]byte, error) {
	m, ok := v.(proto.Message)
	if !ok {
		return nil, fmt.Errorf("%T is not a protobuf message", v)
	}
	return protojson.Marshal(m)
}

func (jsonCodec) Unmarshal(b []byte, v any) error {
	m, ok := v.(proto.Message)
	if !ok || len(b) == 0 {
		return errUndecodable
	}
	if (protojson.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(b, m) != nil {
		return errUndecodable
	}
	return nil
}

// callState travels with an RPC from the guard to the interceptor.
type callState struct {
	procedure string
	logged    bool // the cause of an internal error was logged already
}

type stateKey struct{}

func stateOf(ctx context.Context) *callState {
	st, _ := ctx.Value(stateKey{}).(*callState)
	return st
}

var errorWriter = connect.NewErrorWriter()

// guard checks what the RPC framework would otherwise quote back in its
// errors (deadline, compression and protocol headers) and answers those
// itself, without the request's text; it answers a deadline that has
// already passed with deadline_exceeded at once; and it logs, with the
// request id, every internal error the framework answers on its own.
func (s *Server) guard(procedure string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := checkHeaders(r.Header); err != nil {
			_ = errorWriter.Write(w, r, err)
			return
		}
		st := &callState{procedure: procedure}
		if st.procedure == "" {
			st.procedure = r.URL.Path
		}
		rec := &answerRecorder{Recorder: httprec.Recorder{ResponseWriter: w}}
		next.ServeHTTP(rec, r.WithContext(context.WithValue(r.Context(), stateKey{}, st)))
		if st.logged {
			return
		}
		h := w.Header()
		grpcStatus := h.Get("Grpc-Status") + h.Get(http.TrailerPrefix+"Grpc-Status")
		// Connect answers internal, unknown and data loss as 500; gRPC in its status.
		if rec.Status == http.StatusInternalServerError ||
			grpcStatus == strconv.Itoa(int(connect.CodeInternal)) || grpcStatus == strconv.Itoa(int(connect.CodeUnknown)) || grpcStatus == strconv.Itoa(int(connect.CodeDataLoss)) {
			msg := h.Get("Grpc-Message") + h.Get(http.TrailerPrefix+"Grpc-Message")
			if msg == "" {
				msg = rec.body.String()
			}
			s.o.Logger.ErrorContext(r.Context(), "rpc failed", "err", msg, "procedure", st.procedure, "status", rec.Status, "grpc_status", grpcStatus,
				"request_id", s.o.RequestID(r.Context()))
		}
	})
}

// checkHeaders validates the RPC headers whose bad values the framework
// would quote in its answer.
func checkHeaders(h http.Header) error {
	if v, ok := h["Connect-Timeout-Ms"]; ok && !(len(v) == 1 && v[0] == "") {
		if len(v) != 1 || !digits(v[0], 1, 10) {
			return connect.NewError(connect.CodeInvalidArgument, errors.New("the Connect-Timeout-Ms header must be a number of milliseconds of 1 to 10 digits"))
		}
		if n, _ := strconv.ParseInt(v[0], 10, 64); n == 0 {
			return connect.NewError(connect.CodeDeadlineExceeded, errors.New("the deadline passed before the call began"))
		}
	}
	if v, ok := h["Grpc-Timeout"]; ok && !(len(v) == 1 && v[0] == "") {
		if len(v) != 1 || len(v[0]) < 2 || !digits(v[0][:len(v[0])-1], 1, 8) || !strings.ContainsRune("HMSmun", rune(v[0][len(v[0])-1])) {
			return connect.NewError(connect.CodeInvalidArgument, errors.New("the grpc-timeout header must be 1 to 8 digits and a unit (H, M, S, m, u or n)"))
		}
		if n, _ := strconv.ParseInt(v[0][:len(v[0])-1], 10, 64); n == 0 {
			return connect.NewError(connect.CodeDeadlineExceeded, errors.New("the deadline passed before the call began"))
		}
	}
	if v, ok := h["Connect-Protocol-Version"]; ok && (len(v) != 1 || v[0] != "1") {
		return connect.NewError(connect.CodeInvalidArgument, errors.New("the Connect-Protocol-Version header must be 1"))
	}
	for _, name := range []string{"Content-Encoding", "Connect-Content-Encoding", "Grpc-Encoding"} {
		for _, v := range h[name] {
			if v != "gzip" && v != "identity" {
				return connect.NewError(connect.CodeUnimplemented, fmt.Errorf("the %s header must be gzip or identity", name))
			}
		}
	}
	return nil
}

func digits(s string, min, max int) bool {
	if len(s) < min || len(s) > max {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// answerRecorder notes the status of an answer and keeps the start of an
// error body, for the log.
type answerRecorder struct {
	httprec.Recorder
	body bytes.Buffer
}

func (a *answerRecorder) Write(b []byte) (int, error) {
	n, err := a.Recorder.Write(b)
	if a.Status >= 500 && a.body.Len() < 1024 {
		a.body.Write(b[:min(len(b), 1024-a.body.Len())])
	}
	return n, err
}
