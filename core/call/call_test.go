package call_test

import (
	"context"
	"testing"
	"time"

	"github.com/trawlhq/trawl/adapters/limiter"
	"github.com/trawlhq/trawl/core/billing"
	"github.com/trawlhq/trawl/core/call"
	"github.com/trawlhq/trawl/core/credits"
	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/core/idempotency"
	"github.com/trawlhq/trawl/core/ratelimit"
	"github.com/trawlhq/trawl/ports"
	"github.com/trawlhq/trawl/testkit"
	"github.com/trawlhq/trawl/testkit/memstore"
)

var identity = call.Codec[call.Answer]{
	Encode: func(a call.Answer) (call.Answer, error) { return a, nil },
	Decode: func(a call.Answer) (call.Answer, error) { return a, nil },
}

func pipeline(t *testing.T) *call.Pipeline {
	clk := testkit.NewClock(time.Date(2026, 6, 15, 12, 0, 0, 0, time.UTC))
	lim, _ := limiter.NewMemory(clk)
	idem, _ := idempotency.NewService(memstore.New(), clk)
	list := billing.DefaultPlanList()
	list[0].PerMinute[string(ratelimit.Content)] = 2 // basic
	plans, err := billing.NewPlans(list)
	if err != nil {
		t.Fatal(err)
	}
	p, err := call.NewPipeline(lim, plans, idem)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func request(key string) call.Request {
	return call.Request{Principal: ports.Principal{Account: ports.PrincipalAccount{ID: 7, Plan: "basic"}}, Group: ratelimit.Content,
		IdempotencyKey: key, Fingerprint: func() (string, error) { return "fp", nil }}
}

func ok(status int) call.Work[call.Answer] {
	return func(context.Context, credits.Call) (call.Answer, credits.Receipt, error) {
		return call.Answer{Status: status, Body: []byte("x")}, credits.Receipt{}, nil
	}
}

// A panic in the work ends the key's claim: the retry runs again instead of
// being told the first call is still in progress.
func TestPanicAbandonsTheKey(t *testing.T) {
	p := pipeline(t)
	func() {
		defer func() { _ = recover() }()
		_, _ = call.Run(context.Background(), p, request("k"), identity, func(context.Context, credits.Call) (call.Answer, credits.Receipt, error) {
			panic("boom")
		})
	}()
	out, err := call.Run(context.Background(), p, request("k"), identity, ok(200))
	if err != nil || out.Replayed {
		t.Fatalf("retry after a panic = %+v %v", out, err)
	}
}

// Only a success is replayed; an answer of another status runs again.
func TestOnlySuccessIsReplayed(t *testing.T) {
	p := pipeline(t)
	if _, err := call.Run(context.Background(), p, request("k"), identity, ok(303)); err != nil {
		t.Fatal(err)
	}
	out, err := call.Run(context.Background(), p, request("k"), identity, ok(200))
	if err != nil || out.Replayed {
		t.Fatalf("second call = %+v %v", out, err)
	}
}

// A refused call still says where the caller stands.
func TestRefusalCarriesTheLimit(t *testing.T) {
	p := pipeline(t)
	for range 2 {
		if _, err := call.Run(context.Background(), p, request(""), identity, ok(200)); err != nil {
			t.Fatal(err)
		}
	}
	out, err := call.Run(context.Background(), p, request(""), identity, ok(200))
	fe, _ := failure.As(err)
	if failure.KindOf(err) != failure.RateLimited || fe == nil || fe.RetryAfterSeconds < 1 {
		t.Fatalf("third call err = %v", err)
	}
	if out.Limit == nil || out.Limit.Limit != 2 || out.Limit.Remaining != 0 || out.Limit.Warning == "" {
		t.Fatalf("limit = %+v", out.Limit)
	}
}
