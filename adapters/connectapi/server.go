// Package connectapi is Trawl's Connect RPC delivery: the same core services
// as the JSON API, reachable with Connect, gRPC and gRPC-Web clients on the
// same listener. Handlers decode the message, call the core, map the error
// through errmap and encode the answer.
package connectapi

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"time"

	"connectrpc.com/connect"
	"connectrpc.com/grpcreflect"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/durationpb"

	trawlv1 "github.com/trawlhq/trawl/adapters/connectapi/gen/trawl/v1"
	"github.com/trawlhq/trawl/adapters/connectapi/gen/trawl/v1/trawlv1connect"
	"github.com/trawlhq/trawl/adapters/errmap"
	"github.com/trawlhq/trawl/core/auth"
	"github.com/trawlhq/trawl/core/billing"
	"github.com/trawlhq/trawl/core/bulk"
	"github.com/trawlhq/trawl/core/content"
	"github.com/trawlhq/trawl/core/credits"
	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/core/idempotency"
	"github.com/trawlhq/trawl/core/prompt"
	"github.com/trawlhq/trawl/core/ratelimit"
	"github.com/trawlhq/trawl/core/search"
	"github.com/trawlhq/trawl/core/sitemap"
	"github.com/trawlhq/trawl/ports"
)

// Deps is what the RPC surface needs: the core services the JSON API uses.
type Deps struct {
	Auth        *auth.Service
	Credits     *credits.Service
	Idempotency *idempotency.Service
	Content     *content.Service
	Sitemap     *sitemap.Service
	Search      *search.Service
	Prompt      *prompt.Service
	Bulk        *bulk.Service
	Limiter     ports.RateLimiter
	Limits      ratelimit.Table
	// RequestID returns the id the HTTP layer gave the request.
	RequestID func(context.Context) string
	// Ready reports whether the service can take traffic (gRPC health).
	Ready func(context.Context) error
}

// Server holds the handlers.
type Server struct{ d Deps }

// New checks the dependencies.
func New(d Deps) (*Server, error) {
	if d.Auth == nil || d.Credits == nil || d.Idempotency == nil || d.Content == nil || d.Sitemap == nil || d.Search == nil ||
		d.Prompt == nil || d.Bulk == nil || d.Limiter == nil {
		return nil, errors.New("connectapi.New: every core service and the limiter are required")
	}
	if d.Limits == nil {
		d.Limits = ratelimit.DefaultTable()
	}
	if d.RequestID == nil {
		d.RequestID = func(context.Context) string { return "" }
	}
	if d.Ready == nil {
		d.Ready = func(context.Context) error { return nil }
	}
	return &Server{d: d}, nil
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
}

// ServiceNames lists the services, for reflection.
var ServiceNames = []string{
	trawlv1connect.PageServiceName, trawlv1connect.SearchServiceName, trawlv1connect.PromptServiceName,
	trawlv1connect.CreditsServiceName, trawlv1connect.AccountServiceName,
}

// Route is a path prefix and its handler.
type Route struct {
	Pattern string
	Handler http.Handler
}

// Routes returns every handler: the five services, gRPC reflection (v1 and
// v1alpha) and gRPC health.
func (s *Server) Routes() []Route {
	opts := connect.WithInterceptors(s.interceptor())
	var out []Route
	add := func(p string, h http.Handler) { out = append(out, Route{p, h}) }
	add(trawlv1connect.NewPageServiceHandler(pageHandler{s}, opts))
	add(trawlv1connect.NewSearchServiceHandler(searchHandler{s}, opts))
	add(trawlv1connect.NewPromptServiceHandler(promptHandler{s}, opts))
	add(trawlv1connect.NewCreditsServiceHandler(creditsHandler{s}, opts))
	add(trawlv1connect.NewAccountServiceHandler(accountHandler{s}, opts))
	reflector := grpcreflect.NewStaticReflector(append([]string{"grpc.health.v1.Health"}, ServiceNames...)...)
	add(grpcreflect.NewHandlerV1(reflector))
	add(grpcreflect.NewHandlerV1Alpha(reflector))
	add("/grpc.health.v1.Health/Check", connect.NewUnaryHandler("/grpc.health.v1.Health/Check", s.healthCheck))
	add("/grpc.health.v1.Health/Watch", connect.NewServerStreamHandler("/grpc.health.v1.Health/Watch", s.healthWatch))
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
		return nil, connect.NewError(connect.CodeNotFound, fmt.Errorf("unknown service %q", name))
	}
	status := healthpb.HealthCheckResponse_SERVING
	if err := s.d.Ready(ctx); err != nil {
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

// interceptor authenticates every call and applies the per-minute limit of
// billed methods, exactly as the JSON API does.
func (s *Server) interceptor() connect.UnaryInterceptorFunc {
	return func(next connect.UnaryFunc) connect.UnaryFunc {
		return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
			p, err := s.d.Auth.Authenticate(ctx, req.Header().Get("Authorization"))
			if err != nil {
				return nil, toConnect(err)
			}
			ctx = context.WithValue(ctx, keyPrincipal, p)
			if g, billed := groups[req.Spec().Procedure]; billed {
				limit := s.d.Limits.Limit(p.Account.Plan, g)
				d, err := s.d.Limiter.Allow(ctx, ratelimit.Key(p.Account.ID, g), limit, ratelimit.Window)
				if err != nil {
					return nil, toConnect(failure.Wrap("connectapi.limit", err))
				}
				if !d.Allowed {
					e := failure.E("connectapi.limit", failure.RateLimited, "Too Many Requests")
					e.RetryAfterSeconds = max(1, int(math.Ceil(d.RetryAfter.Seconds())))
					return nil, toConnect(e)
				}
				res, err := next(ctx, req)
				if res != nil {
					h := res.Header()
					h.Set("RateLimit-Limit", strconv.Itoa(d.Limit))
					h.Set("RateLimit-Remaining", strconv.Itoa(d.Remaining))
					h.Set("RateLimit-Reset", strconv.Itoa(int(math.Ceil(d.Reset.Seconds()))))
					if ratelimit.Warn(d.Used, d.Limit) {
						h.Set("X-RateLimit-Warning", ratelimit.WarningText(d.Used, d.Limit, g))
					}
				}
				return res, err
			}
			return next(ctx, req)
		}
	}
}

func (s *Server) call(ctx context.Context) credits.Call {
	return credits.Call{Principal: principal(ctx), RequestID: s.d.RequestID(ctx)}
}

// billed runs a billed method under the Idempotency-Key rules: a retry with
// the same key and request gets the stored answer without a second charge.
func billed[Req any, Res any, PRes interface {
	*Res
	proto.Message
}](s *Server, ctx context.Context, req *connect.Request[Req], run func(context.Context) (PRes, credits.Receipt, error)) (*connect.Response[Res], error) {
	respond := func(res PRes, rc credits.Receipt) *connect.Response[Res] {
		out := connect.NewResponse((*Res)(res))
		if rc.IsLow {
			limit := billing.MustPlan(principal(ctx).Account.Plan).MonthlyCredits
			out.Header().Set("X-Monthly-Quota-Warning", billing.LowBalanceWarning(rc.Balance, limit))
		}
		return out
	}
	key := req.Header().Get(idempotency.Header)
	if key == "" {
		res, rc, err := run(ctx)
		if err != nil {
			return nil, toConnect(err)
		}
		return respond(res, rc), nil
	}
	msg, _ := any(req.Msg).(proto.Message)
	raw, _ := proto.MarshalOptions{Deterministic: true}.Marshal(msg)
	p := principal(ctx)
	fp := idempotency.Fingerprint("RPC", req.Spec().Procedure, "", raw)
	replay, err := s.d.Idempotency.Begin(ctx, p.Account.ID, key, fp)
	if err != nil {
		return nil, toConnect(err)
	}
	if replay != nil {
		out := PRes(new(Res))
		if err := proto.Unmarshal(replay.Body, out); err != nil {
			return nil, toConnect(failure.Wrap("connectapi.replay", err))
		}
		resp := connect.NewResponse((*Res)(out))
		resp.Header().Set("Idempotent-Replayed", "true")
		return resp, nil
	}
	res, rc, err := run(ctx)
	if err != nil {
		_ = s.d.Idempotency.Abandon(context.WithoutCancel(ctx), p.Account.ID, key)
		return nil, toConnect(err)
	}
	body, _ := proto.Marshal(res)
	_ = s.d.Idempotency.Complete(context.WithoutCancel(ctx), p.Account.ID, key, http.StatusOK, "application/proto", body)
	return respond(res, rc), nil
}

// toConnect translates an error through the one kind table, with details a
// client can act on and without internals in the message.
func toConnect(err error) error {
	kind := failure.KindOf(err)
	entry := errmap.Lookup(kind)
	fe, _ := failure.As(err)
	ce := connect.NewError(entry.ConnectCode, errors.New(failure.Public(err, entry.Message)))
	addDetail := func(m proto.Message) {
		if d, err := connect.NewErrorDetail(m); err == nil {
			ce.AddDetail(d)
		}
	}
	addDetail(&errdetails.ErrorInfo{Reason: entry.Reason, Domain: "trawl.dev", Metadata: map[string]string{"http_status": strconv.Itoa(entry.HTTPStatus)}})
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
	case failure.RateLimited:
		secs := 1
		if fe != nil && fe.RetryAfterSeconds > 0 {
			secs = fe.RetryAfterSeconds
		}
		addDetail(&errdetails.RetryInfo{RetryDelay: durationpb.New(time.Duration(secs) * time.Second)})
		ce.Meta().Set("Retry-After", strconv.Itoa(secs))
	}
	return ce
}
