package credits_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/trawlhq/trawl/core/billing"
	"github.com/trawlhq/trawl/core/credits"
	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/ports"
	"github.com/trawlhq/trawl/testkit/memstore"
)

// outage is a real in-memory ledger store whose database "runs out of
// connections" for a number of WithCredits calls, starting at a given call,
// the way sqlstore reports it.
type outage struct {
	*memstore.Store
	mu       sync.Mutex
	calls    int
	from     int // the first call that fails (1-based); 0: none
	failures int // how many calls fail from then on; -1: all
}

func (o *outage) WithCredits(ctx context.Context, accountID int64, fn func(ports.LedgerTx) error) error {
	o.mu.Lock()
	o.calls++
	down := o.from > 0 && o.calls >= o.from && (o.failures < 0 || o.calls < o.from+o.failures)
	o.mu.Unlock()
	if down {
		return failure.E("sqlstore.WithCredits", failure.TemporarilyUnavailable, "The service is busy right now. Please retry in a few seconds.")
	}
	return o.Store.WithCredits(ctx, accountID, fn)
}

// outageFixture bills through a ledger over an outage: call 1 is the
// reserve, call 2 the settle, call 3 onwards the release.
func outageFixture(t *testing.T, from, failures int, opts ...credits.LedgerOption) (*fixture, *outage) {
	f := newFixture(t, "basic")
	o := &outage{Store: f.store, from: from, failures: failures}
	f.ledger, _ = credits.NewLedger(o, f.clock, opts...)
	f.biller, _ = credits.NewBiller(f.ledger, f.store, f.clock, billing.DefaultPlans())
	return f, o
}

func TestRunReleasesTheHoldWhenTheSettleFails(t *testing.T) {
	// The page was fetched, then the charge could not be written: the call
	// answers "try again" and the hold is gone at once, not in 10 minutes.
	f, _ := outageFixture(t, 2, 1, credits.WithReleaseRetry(time.Second, time.Millisecond))
	_, err := f.biller.Run(context.Background(), f.call(0), charge(1, nil))
	if !failure.Is(err, failure.TemporarilyUnavailable) {
		t.Fatalf("Run = %v, want TemporarilyUnavailable", err)
	}
	if _, bal, held := mustRead(t, f); held != 0 || bal != 6000 {
		t.Fatalf("after a failed settle: balance %d, held %d; want 6000 and 0", bal, held)
	}
}

func TestReleaseRetriesWhileTheStoreIsUnavailable(t *testing.T) {
	// The settle and the first three releases meet an exhausted pool; the
	// fourth release gets through.
	f, o := outageFixture(t, 2, 4, credits.WithReleaseRetry(5*time.Second, time.Millisecond))
	if _, err := f.biller.Run(context.Background(), f.call(0), charge(1, nil)); !failure.Is(err, failure.TemporarilyUnavailable) {
		t.Fatalf("Run = %v", err)
	}
	if _, _, held := mustRead(t, f); held != 0 {
		t.Fatalf("%d credits still held after the store came back", held)
	}
	if o.calls != 6 {
		t.Fatalf("%d store calls, want 6 (reserve, settle, 3 failed releases, 1 release)", o.calls)
	}
}

func TestReleaseOutlivesACancelledRequest(t *testing.T) {
	f := newFixture(t, "basic")
	ctx, cancel := context.WithCancel(context.Background())
	_, err := f.biller.Run(ctx, f.call(0), func(context.Context) (int64, ports.TransactionMetadata, error) {
		cancel() // the client went away while the page was fetched
		return 0, ports.TransactionMetadata{}, ctx.Err()
	})
	if err == nil {
		t.Fatal("a cancelled call succeeded")
	}
	if _, _, held := mustRead(t, f); held != 0 {
		t.Fatalf("a cancelled call left %d credits held", held)
	}
}

func TestAReleaseThatCannotHappenIsLoggedAndTheHoldExpires(t *testing.T) {
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	f, _ := outageFixture(t, 2, -1, credits.WithLogger(log), credits.WithReleaseRetry(50*time.Millisecond, time.Millisecond))
	start := time.Now()
	if _, err := f.biller.Run(context.Background(), f.call(0), charge(1, nil)); !failure.Is(err, failure.TemporarilyUnavailable) {
		t.Fatalf("Run = %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("giving up on the release took %s", d)
	}
	if !strings.Contains(logs.String(), "could not be released") || !strings.Contains(logs.String(), "hold=hold_") {
		t.Fatalf("the stranded hold was not logged: %q", logs.String())
	}
	if _, _, held := mustRead(t, f); held != 2 {
		t.Fatalf("held = %d; the store was down, so the hold should remain until it expires", held)
	}
	f.clock.Advance(credits.DefaultHoldTTL)
	if _, _, held := mustRead(t, f); held != 0 {
		t.Fatalf("held = %d after the hold's expiry", held)
	}
}

func TestReleaseDoesNotRetryOtherFailures(t *testing.T) {
	f := newFixture(t, "basic")
	missing := ports.Hold{ID: "hold_x", AccountID: f.account.ID + 99, Amount: 1}
	start := time.Now()
	if err := f.ledger.Release(context.Background(), missing); !failure.Is(err, failure.NotFound) {
		t.Fatalf("release on a missing account = %v", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Fatalf("a permanent failure was retried for %s", d)
	}
}
