// Package connectapi is Trawl's Connect RPC delivery: the same core services
// as the JSON API, reachable with Connect, gRPC and gRPC-Web clients on the
// same listener. Handlers decode the message, call the core, map the error
// through errmap and encode the answer.
package connectapi

import (
	"context"
	"errors"
	"log/slog"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"connectrpc.com/connect"
	"connectrpc.com/grpcreflect"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/trawlhq/trawl/adapters/callheader"
	trawlv1 "github.com/trawlhq/trawl/adapters/connectapi/gen/trawl/v1"
	"github.com/trawlhq/trawl/adapters/connectapi/gen/trawl/v1/trawlv1connect"
	"github.com/trawlhq/trawl/adapters/errmap"
	"github.com/trawlhq/trawl/core/call"
	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/core/idempotency"
	"github.com/trawlhq/trawl/core/ratelimit"
	"github.com/trawlhq/trawl/core/service"
	"github.com/trawlhq/trawl/ports"
)

// Options are the RPC surface's transport settings.
type Options struct {
	// RequestID returns the id the HTTP layer gave the request.
	RequestID func(context.Context) string
	// Ready reports whether the service can take traffic (gRPC health).
	Ready func(context.Context) error
	// MaxBodyBytes caps a request message once decompressed, as the JSON
	// API caps a body (default 1 MiB).
	MaxBodyBytes int64
	// Logger receives the causes of internal errors (default: discarded).
	Logger *slog.Logger
	// Interceptors run around every call of Trawl's services, outermost
	// first (tracing); none by default.
	Interceptors []connect.Interceptor
}

// Server holds the handlers.
type Server struct {
	svc *service.Services
	o   Options
}

// New serves the application's services over RPC; it fails on a missing one.
func New(s *service.Services, o Options) (*Server, error) {
	if s == nil || s.Auth == nil || s.Credits == nil || s.Calls == nil || s.Content == nil || s.Sitemap == nil || s.Search == nil ||
		s.Prompt == nil || s.Bulk == nil {
		return nil, errors.New("connectapi.New: every core service and the call pipeline are required")
	}
	if o.RequestID == nil {
		o.RequestID = func(context.Context) string { return "" }
	}
	if o.Ready == nil {
		o.Ready = func(context.Context) error { return nil }
	}
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = 1 << 20
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return &Server{svc: s, o: o}, nil
}

// procedure rules: the rate-limit group of billed methods; the others are
// free and unlimited (credits, account, job status), as in the JSON API.
var groups = map[string]ratelimit.Group{
	trawlv1connect.PageServiceScrapeProcedure:               ratelimit.Scrape,
	trawlv1connect.PageServiceGetContentProcedure:           ratelimit.Content,
	trawlv1connect.PageServiceCreateBulkContentJobProcedure: ratelimit.Bulk,
	trawlv1connect.PageServiceMapProcedure:                  ratelimit.Map,
	trawlv1connect.SearchServiceSearchProcedure:             ratelimit.Serp,
	trawlv1connect.SearchServiceSearchContentProcedure:      ratelimit.SerpContent,
	trawlv1connect.PromptServicePromptProcedure:             ratelimit.Prompt,
	trawlv1connect.PromptServiceExtractProcedure:            ratelimit.Extract,
	trawlv1connect.CrawlServiceCreateCrawlProcedure:         ratelimit.Bulk,
}

// ServiceNames lists the services, for reflection.
var ServiceNames = []string{
	trawlv1connect.PageServiceName, trawlv1connect.SearchServiceName, trawlv1connect.PromptServiceName,
	trawlv1connect.CreditsServiceName, trawlv1connect.AccountServiceName, trawlv1connect.CrawlServiceName, trawlv1connect.MonitorServiceName,
}

// Route is a path prefix and its handler.
type Route struct {
	Pattern string
	Handler http.Handler
}

// Routes returns every handler: Trawl's services, gRPC reflection (v1 and
// v1alpha) and gRPC health. All of them share the message limits and the
// guard; Trawl's services also authenticate and rate-limit.
func (s *Server) Routes() []Route {
	base := s.handlerOptions()
	opts := connect.WithHandlerOptions(base, connect.WithRequestGate(s.authenticate), connect.WithInterceptors(append(slices.Clone(s.o.Interceptors), s.interceptor())...))
	var out []Route
	add := func(p string, h http.Handler) {
		procedure := ""
		if !strings.HasSuffix(p, "/") {
			procedure = p
		}
		out = append(out, Route{p, s.guard(procedure, h)})
	}
	add(trawlv1connect.NewPageServiceHandler(pageHandler{s}, opts))
	add(trawlv1connect.NewSearchServiceHandler(searchHandler{s}, opts))
	add(trawlv1connect.NewPromptServiceHandler(promptHandler{s}, opts))
	add(trawlv1connect.NewCreditsServiceHandler(creditsHandler{s}, opts))
	add(trawlv1connect.NewAccountServiceHandler(accountHandler{s}, opts))
	add(trawlv1connect.NewCrawlServiceHandler(crawlHandler{s}, opts))
	add(trawlv1connect.NewMonitorServiceHandler(monitorHandler{s}, opts))
	reflector := grpcreflect.NewStaticReflector(append([]string{"grpc.health.v1.Health"}, ServiceNames...)...)
	add(grpcreflect.NewHandlerV1(reflector, base))
	add(grpcreflect.NewHandlerV1Alpha(reflector, base))
	add("/grpc.health.v1.Health/Check", connect.NewUnaryHandler("/grpc.health.v1.Health/Check", s.healthCheck, base))
	add("/grpc.health.v1.Health/Watch", connect.NewServerStreamHandler("/grpc.health.v1.Health/Watch", s.healthWatch, base))
	return out
}

// WatchInterval is how often Watch re-checks readiness.
var WatchInterval = 5 * time.Second

// healthWatch streams the health status: once at once, then on every change.
func (s *Server) healthWatch(ctx context.Context, req *connect.Request[healthpb.HealthCheckRequest], stream *connect.ServerStream[healthpb.HealthCheckResponse]) error {
	status := func() (healthpb.HealthCheckResponse_ServingStatus, error) {
		res, err := s.healthCheck(ctx, req)
		if err != nil {
			return healthpb.HealthCheckResponse_SERVICE_UNKNOWN, err
		}
		return res.Msg.Status, nil
	}
	last, err := status()
	if err != nil {
		// An unknown service is reported, not refused, as the protocol asks.
		last = healthpb.HealthCheckResponse_SERVICE_UNKNOWN
	}
	if err := stream.Send(&healthpb.HealthCheckResponse{Status: last}); err != nil {
		return err
	}
	t := time.NewTicker(WatchInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
			st, err := status()
			if err != nil {
				st = healthpb.HealthCheckResponse_SERVICE_UNKNOWN
			}
			if st != last {
				last = st
				if err := stream.Send(&healthpb.HealthCheckResponse{Status: st}); err != nil {
					return err
				}
			}
		}
	}
}

// healthCheck answers the standard gRPC health check: SERVING when the
// store answers, for the server ("") and for each Trawl service.
func (s *Server) healthCheck(ctx context.Context, req *connect.Request[healthpb.HealthCheckRequest]) (*connect.Response[healthpb.HealthCheckResponse], error) {
	name := req.Msg.GetService()
	known := name == ""
	for _, n := range ServiceNames {
		known = known || n == name
	}
	if !known {
		// The name is not quoted back: it is the caller's, of any length.
		return nil, connect.NewError(connect.CodeNotFound, errors.New("unknown service"))
	}
	status := healthpb.HealthCheckResponse_SERVING
	if err := s.o.Ready(ctx); err != nil {
		status = healthpb.HealthCheckResponse_NOT_SERVING
	}
	return connect.NewResponse(&healthpb.HealthCheckResponse{Status: status}), nil
}

type ctxKey int

const keyPrincipal ctxKey = iota

func principal(ctx context.Context) ports.Principal {
	p, _ := ctx.Value(keyPrincipal).(ports.Principal)
	return p
}

// interceptor answers a call whose caller already gave up, answers a
// failure that comes after the call's deadline passed as deadline_exceeded
// (the work failed because its time ran out, whatever the step that noticed
// says), and logs the cause of every internal error with the request id.
func (s *Server) interceptor() connect.UnaryInterceptorFunc {
	return func(next connect.UnaryFunc) connect.UnaryFunc {
		return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
			var res connect.AnyResponse
			err := ctx.Err()
			if err != nil {
				err = toConnect(err)
			} else {
				res, err = next(ctx, req)
				if err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
					err = expired(err)
				}
			}
			if err != nil {
				s.logInternal(ctx, req.Spec().Procedure, err)
			}
			return res, err
		}
	}
}

// logInternal logs the cause of an internal error, which the caller only
// sees as "Server Error".
func (s *Server) logInternal(ctx context.Context, procedure string, err error) {
	switch connect.CodeOf(err) {
	case connect.CodeInternal, connect.CodeUnknown, connect.CodeDataLoss:
	default:
		return
	}
	cause := err
	var ce *connect.Error
	if !errors.As(err, &ce) && (errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)) {
		return // the framework answers these as deadline_exceeded and canceled
	}
	if ce != nil && ce.Unwrap() != nil {
		cause = ce.Unwrap()
		if pe, ok := cause.(*publicError); ok && pe.cause != nil {
			cause = pe.cause
		}
	}
	s.o.Logger.ErrorContext(ctx, "rpc failed", "err", cause.Error(), "procedure", procedure, "request_id", s.o.RequestID(ctx))
	if st := stateOf(ctx); st != nil {
		st.logged = true
	}
}

// authenticate runs once the headers are in, before the message is read
// or decoded: a caller without a valid token costs no decoding.
func (s *Server) authenticate(ctx context.Context, spec connect.Spec, _ connect.Peer, h http.Header) (context.Context, error) {
	err := ctx.Err()
	var p ports.Principal
	if err == nil {
		p, err = s.svc.Auth.Authenticate(ctx, h.Get("Authorization"))
	}
	if err != nil {
		err = toConnect(err)
		s.logInternal(ctx, spec.Procedure, err)
		return nil, err
	}
	return context.WithValue(ctx, keyPrincipal, p), nil
}

// billed runs a billed method through the billed-call pipeline of its
// rate-limit group and spells the outcome as response or error metadata.
func billed[Req any, Res any, PRes interface {
	*Res
	proto.Message
}](s *Server, ctx context.Context, req *connect.Request[Req], run call.Work[PRes]) (*connect.Response[Res], error) {
	procedure := req.Spec().Procedure
	creq := call.Request{
		Principal:      principal(ctx),
		Group:          groups[procedure],
		RequestID:      s.o.RequestID(ctx),
		IdempotencyKey: req.Header().Get(idempotency.Header),
		Fingerprint: func() (string, error) {
			msg, _ := any(req.Msg).(proto.Message)
			raw, err := proto.MarshalOptions{Deterministic: true}.Marshal(msg)
			return idempotency.Fingerprint("RPC", procedure, "", raw), err
		},
	}
	out, err := call.Run(ctx, s.svc.Calls, creq, answerCodec[Res, PRes](), run)
	if err != nil {
		err = toConnect(err)
		if ce := (*connect.Error)(nil); errors.As(err, &ce) {
			callheader.Set(ce.Meta(), out)
		}
		return nil, err
	}
	res := connect.NewResponse((*Res)(out.Value))
	callheader.Set(res.Header(), out)
	return res, nil
}

// answerCodec stores an answer as its binary message.
func answerCodec[Res any, PRes interface {
	*Res
	proto.Message
}]() call.Codec[PRes] {
	return call.Codec[PRes]{
		Encode: func(m PRes) (call.Answer, error) {
			b, err := proto.Marshal(m)
			return call.Answer{Status: http.StatusOK, ContentType: "application/proto", Body: b}, err
		},
		Decode: func(a call.Answer) (PRes, error) {
			m := PRes(new(Res))
			return m, proto.Unmarshal(a.Body, m)
		},
	}
}

// publicError is the message a caller sees; the cause stays on the server
// for the log.
type publicError struct {
	msg   string
	cause error
}

func (e *publicError) Error() string { return e.msg }
func (e *publicError) Unwrap() error { return e.cause }

// expired answers a call whose deadline passed while it ran: deadline
// exceeded, with the metadata the failure carried (what it charged).
func expired(err error) error {
	if connect.CodeOf(err) == connect.CodeDeadlineExceeded {
		return err
	}
	ce := connect.NewError(connect.CodeDeadlineExceeded, &publicError{"The deadline passed before the call finished.", err})
	if prev := (*connect.Error)(nil); errors.As(err, &prev) {
		maps.Copy(ce.Meta(), prev.Meta())
		ce.Meta().Del("Retry-After")
	}
	return ce
}

// toConnect translates an error through the one kind table, with details a
// client can act on and without internals in the message. A call whose
// deadline passed, or that its caller gave up, is answered as such: the
// store's "context deadline exceeded" is not a server error.
func toConnect(err error) error {
	kind := failure.KindOf(err)
	if kind == failure.Internal {
		switch {
		case errors.Is(err, context.DeadlineExceeded):
			return expired(err)
		case errors.Is(err, context.Canceled):
			return connect.NewError(connect.CodeCanceled, &publicError{"The call was canceled.", err})
		}
	}
	entry := errmap.Lookup(kind)
	fe, _ := failure.As(err)
	msg := failure.Public(err, entry.Message)
	if entry.ConnectCode == connect.CodeInternal {
		msg = entry.Message // a kind the table does not know shows nothing of itself either
	}
	ce := connect.NewError(entry.ConnectCode, &publicError{msg, err})
	addDetail := func(m proto.Message) {
		if d, err := connect.NewErrorDetail(m); err == nil {
			ce.AddDetail(d)
		}
	}
	info := &errdetails.ErrorInfo{Reason: entry.Reason, Domain: "trawl.dev", Metadata: map[string]string{"http_status": strconv.Itoa(entry.HTTPStatus)}}
	if reason, retryable, ok := errmap.Outcome(err); ok {
		// The kind stays the ErrorInfo reason (it tells the two 402s apart);
		// the stable code of a 503 and whether to retry are its metadata.
		info.Metadata["reason"] = string(reason)
		info.Metadata["retryable"] = strconv.FormatBool(retryable)
	}
	addDetail(info)
	switch kind {
	case failure.Invalid:
		br := &errdetails.BadRequest{}
		if fe != nil {
			for field, msgs := range fe.Fields {
				for _, m := range msgs {
					br.FieldViolations = append(br.FieldViolations, &errdetails.BadRequest_FieldViolation{Field: field, Description: m})
				}
			}
		}
		addDetail(br)
	case failure.InsufficientCredits:
		if fe != nil {
			addDetail(&trawlv1.InsufficientCredits{Required: fe.Required, Balance: fe.Balance})
		}
	}
	if secs, ok := errmap.RetryAfter(err); ok {
		addDetail(&errdetails.RetryInfo{RetryDelay: durationpb.New(time.Duration(secs) * time.Second)})
		ce.Meta().Set("Retry-After", strconv.Itoa(secs))
	}
	return ce
}
