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
	plans   billing.Plans
	idem    *idempotency.Service
	balance BalanceFunc
}

// BalanceFunc reads an account's balance, for the answers that charged
// nothing (a failure or a replay) and still say where the balance stands.
type BalanceFunc func(ctx context.Context, accountID int64) (int64, error)

// Option configures a pipeline.
type Option func(*Pipeline)

// WithBalance makes answers without a charge report the balance too.
func WithBalance(f BalanceFunc) Option { return func(p *Pipeline) { p.balance = f } }

// NewPipeline builds a pipeline over a plan table (its per-minute limits).
func NewPipeline(limiter ports.RateLimiter, plans billing.Plans, idem *idempotency.Service, opts ...Option) (*Pipeline, error) {
	if limiter == nil || idem == nil {
		return nil, errors.New("call.NewPipeline: limiter and idempotency service are required")
	}
	p := &Pipeline{limiter: limiter, plans: plans, idem: idem}
	for _, o := range opts {
		o(p)
	}
	return p, nil
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
	// Credits is what the call charged and the balance after; nil before
	// the call got that far (no principal).
	Credits *Credits
}

// Credits is the money side of an answer: what this call charged (0 on
// any failure and on a replay) and the balance after it. Remaining is nil
// when the balance was not read: the call was refused by the rate limit,
// Trawl's database was busy, or the read itself failed.
type Credits struct {
	Charged   int64
	Remaining *int64
}

// Run performs a billed call. On error the Outcome still carries the limit
// state, which a delivery writes next to the error.
func Run[T any](ctx context.Context, p *Pipeline, req Request, codec Codec[T], work Work[T]) (out Outcome[T], err error) {
	defer func() { p.account(ctx, req, &out, err) }()
	return run(ctx, p, req, codec, work)
}

// account fills the money side of the outcome.
func (p *Pipeline) account(ctx context.Context, req Request, out interface{ credits() **Credits }, err error) {
	c := out.credits()
	if err == nil && *c != nil {
		return // settled: the receipt said it
	}
	*c = &Credits{}
	if p.balance == nil || failure.Is(err, failure.RateLimited) || failure.Is(err, failure.TemporarilyUnavailable) {
		return
	}
	if b, berr := p.balance(context.WithoutCancel(ctx), req.Principal.Account.ID); berr == nil {
		(*c).Remaining = &b
	}
}

func (o *Outcome[T]) credits() **Credits { return &o.Credits }

func run[T any](ctx context.Context, p *Pipeline, req Request, codec Codec[T], work Work[T]) (Outcome[T], error) {
	const op = "call.Run"
	var out Outcome[T]
	acct := req.Principal.Account
	limit := ratelimit.Limit(p.plans, acct.Plan, req.Group)
	d, err := p.limiter.Allow(ctx, ratelimit.Key(acct.ID, req.Group), limit, ratelimit.Window)
	if err != nil {
		return out, ratelimit.Failure(op, err)
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
		return finish(p, out, req)(work(ctx, c))
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
	out, err = finish(p, out, req)(work(ctx, c))
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
func finish[T any](p *Pipeline, out Outcome[T], req Request) func(T, credits.Receipt, error) (Outcome[T], error) {
	return func(v T, rc credits.Receipt, err error) (Outcome[T], error) {
		if err != nil {
			return out, err
		}
		out.Value, out.Receipt = v, rc
		out.QuotaWarning = QuotaWarning(p.plans, req.Principal.Account.Plan, rc)
		if rc.Transaction.ID != 0 || rc.Charged > 0 {
			bal := rc.Balance
			out.Credits = &Credits{Charged: rc.Charged, Remaining: &bal}
		}
		return out, nil
	}
}

// QuotaWarning is the low-balance text of a receipt on a plan of the table,
// "" when the balance is above the plan's threshold.
func QuotaWarning(plans billing.Plans, plan string, rc credits.Receipt) string {
	if !rc.IsLow {
		return ""
	}
	return billing.LowBalanceWarning(rc.Balance, plans.Must(plan).MonthlyCredits)
}

func ceilSeconds(d time.Duration) int {
	if d <= 0 {
		return 0
	}
	return int(math.Ceil(d.Seconds()))
}
