// Package call is the one sequence every billed call goes through, whatever
// delivers it (REST JSON or Connect RPC): count it against the account's
// per-minute limit, claim its Idempotency-Key (or replay the stored answer),
// run the billed work (which holds, settles or releases credits through
// core/credits), store the answer for retries and say what the caller should
// be warned about. A delivery decodes, calls Run, maps the error and encodes
// the Outcome in its own header or metadata spelling.
package call

import (
	"context"
	"errors"
	"math"
	"time"

	"github.com/trawlhq/trawl/core/billing"
	"github.com/trawlhq/trawl/core/credits"
	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/core/idempotency"
	"github.com/trawlhq/trawl/core/ratelimit"
	"github.com/trawlhq/trawl/ports"
)

// Pipeline runs billed calls.
type Pipeline struct {
	limiter ports.RateLimiter
	limits  ratelimit.Table
	idem    *idempotency.Service
}

// NewPipeline builds a pipeline; limits nil means the default table.
func NewPipeline(limiter ports.RateLimiter, limits ratelimit.Table, idem *idempotency.Service) (*Pipeline, error) {
	if limiter == nil || idem == nil {
		return nil, errors.New("call.NewPipeline: limiter and idempotency service are required")
	}
	if limits == nil {
		limits = ratelimit.DefaultTable()
	}
	return &Pipeline{limiter: limiter, limits: limits, idem: idem}, nil
}

// Request describes a billed call as it arrives.
type Request struct {
	Principal ports.Principal
	Group     ratelimit.Group
	RequestID string
	// IdempotencyKey is the caller's key; "" runs the call without one.
	IdempotencyKey string
	// Fingerprint identifies the request (idempotency.Fingerprint); it is
	// asked for only when a key is given, after the limit let the call in.
	Fingerprint func() (string, error)
}

// Answer is an encoded answer as the idempotency store keeps it.
type Answer struct {
	Status      int
	ContentType string
	Body        []byte
}

// Codec turns a delivery's value into the stored Answer and back.
type Codec[T any] struct {
	Encode func(T) (Answer, error)
	Decode func(Answer) (T, error)
}

// Work is the call itself: it runs the billed use case for c and returns
// its value with the receipt of the charge.
type Work[T any] func(ctx context.Context, c credits.Call) (T, credits.Receipt, error)

// Limit is where the caller stands against its per-minute limit.
type Limit struct {
	Limit, Remaining int
	// ResetSeconds is when the window holds no request of now.
	ResetSeconds int
	// Warning is the approaching-limit text, "" below the threshold.
	Warning string
}

// Outcome is what a delivery writes: the limit state (also on failure, once
// the limiter answered), and on success the value, the receipt, whether it
// is a replay and the low-balance warning.
type Outcome[T any] struct {
	Value    T
	Receipt  credits.Receipt
	Limit    *Limit
	Replayed bool
	// QuotaWarning is the low-balance text, "" when the balance is fine.
	QuotaWarning string
}

// Run performs a billed call. On error the Outcome still carries the limit
// state, which a delivery writes next to the error.
func Run[T any](ctx context.Context, p *Pipeline, req Request, codec Codec[T], work Work[T]) (Outcome[T], error) {
	const op = "call.Run"
	var out Outcome[T]
	acct := req.Principal.Account
	limit := p.limits.Limit(acct.Plan, req.Group)
	d, err := p.limiter.Allow(ctx, ratelimit.Key(acct.ID, req.Group), limit, ratelimit.Window)
	if err != nil {
		return out, failure.Wrap(op, err)
	}
	out.Limit = &Limit{Limit: d.Limit, Remaining: d.Remaining, ResetSeconds: ceilSeconds(d.Reset)}
	if ratelimit.Warn(d.Used, d.Limit) {
		out.Limit.Warning = ratelimit.WarningText(d.Used, d.Limit, req.Group)
	}
	if !d.Allowed {
		e := failure.E(op, failure.RateLimited, "Too Many Requests")
		e.RetryAfterSeconds = max(1, ceilSeconds(d.RetryAfter))
		return out, e
	}

	c := credits.Call{Principal: req.Principal, RequestID: req.RequestID}
	key := req.IdempotencyKey
	if key == "" {
		return finish(out, req)(work(ctx, c))
	}
	fp, err := req.Fingerprint()
	if err != nil {
		return out, err
	}
	replay, err := p.idem.Begin(ctx, acct.ID, key, fp)
	if err != nil {
		return out, err
	}
	if replay != nil {
		v, err := codec.Decode(Answer{Status: replay.Status, ContentType: replay.ContentType, Body: replay.Body})
		if err != nil {
			return out, failure.Wrap(op, err)
		}
		out.Value, out.Replayed = v, true
		return out, nil
	}
	// The claim ends whatever happens, a panic in the work included: a claim
	// left open would answer every retry "still in progress" until it expires.
	completed := false
	defer func() {
		if !completed {
			_ = p.idem.Abandon(context.WithoutCancel(ctx), acct.ID, key)
		}
	}()
	out, err = finish(out, req)(work(ctx, c))
	if err != nil {
		return out, err
	}
	ans, err := codec.Encode(out.Value)
	if err != nil {
		return out, failure.Wrap(op, err)
	}
	completed = true
	if ans.Status < 200 || ans.Status > 299 {
		// Only a success is worth replaying; anything else runs again.
		_ = p.idem.Abandon(context.WithoutCancel(ctx), acct.ID, key)
		return out, nil
	}
	_ = p.idem.Complete(context.WithoutCancel(ctx), acct.ID, key, ans.Status, ans.ContentType, ans.Body)
	return out, nil
}

// finish fills the outcome of the work.
func finish[T any](out Outcome[T], req Request) func(T, credits.Receipt, error) (Outcome[T], error) {
	return func(v T, rc credits.Receipt, err error) (Outcome[T], error) {
		if err != nil {
			return out, err
		}
		out.Value, out.Receipt = v, rc
		out.QuotaWarning = QuotaWarning(req.Principal.Account.Plan, rc)
		return out, nil
	}
}

// QuotaWarning is the low-balance text of a receipt on a plan, "" when the
// balance is above the plan's threshold.
func QuotaWarning(plan string, rc credits.Receipt) string {
	if !rc.IsLow {
		return ""
	}
	return billing.LowBalanceWarning(rc.Balance, billing.MustPlan(plan).MonthlyCredits)
}

func ceilSeconds(d time.Duration) int {
	if d <= 0 {
		return 0
	}
	return int(math.Ceil(d.Seconds()))
}
