package idempotency_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/core/idempotency"
	"github.com/trawlhq/trawl/ports"
	"github.com/trawlhq/trawl/testkit"
	"github.com/trawlhq/trawl/testkit/memstore"
)

func TestValidKey(t *testing.T) {
	for k, want := range map[string]bool{"a": true, "order-42:retry": true, strings.Repeat("x", 255): true, "": false, strings.Repeat("x", 256): false, "has space": false, "tab\t": false, "é": false} {
		if got := idempotency.ValidKey(k); got != want {
			t.Errorf("ValidKey(%q) = %v", k, got)
		}
	}
}

func TestFingerprintSeparatesParts(t *testing.T) {
	a := idempotency.Fingerprint("GET", "/v1/content", "url=x", nil)
	if a == idempotency.Fingerprint("GET", "/v1/content", "url=y", nil) || a == idempotency.Fingerprint("GET", "/v1/contenturl=x", "", nil) {
		t.Fatal("different requests share a fingerprint")
	}
	if a != idempotency.Fingerprint("GET", "/v1/content", "url=x", nil) {
		t.Fatal("fingerprint is not stable")
	}
}

func TestLifecycle(t *testing.T) {
	store := memstore.New()
	clock := testkit.NewClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	acct, _ := store.CreateAccount(context.Background(), ports.Account{Email: "a@example.com", CreatedAt: clock.Now()})
	svc, _ := idempotency.NewService(store, clock)
	ctx := context.Background()

	if _, err := svc.Begin(ctx, acct.ID, "bad key", "fp"); !failure.Is(err, failure.Invalid) {
		t.Fatalf("bad key: %v", err)
	}
	if r, err := svc.Begin(ctx, acct.ID, "k", "fp"); err != nil || r != nil {
		t.Fatalf("claim: %v %v", r, err)
	}
	if _, err := svc.Begin(ctx, acct.ID, "k", "fp"); !failure.Is(err, failure.Conflict) {
		t.Fatalf("in flight: %v", err)
	}
	if err := svc.Complete(ctx, acct.ID, "k", 200, "application/json", []byte("{}")); err != nil {
		t.Fatal(err)
	}
	r, err := svc.Begin(ctx, acct.ID, "k", "fp")
	if err != nil || r == nil || r.Status != 200 || string(r.Body) != "{}" {
		t.Fatalf("replay: %+v %v", r, err)
	}
	if _, err := svc.Begin(ctx, acct.ID, "k", "other"); !failure.Is(err, failure.Invalid) || failure.FieldNames(err)[0] != idempotency.Header {
		t.Fatalf("reuse with another request: %v", err)
	}
	clock.Advance(idempotency.TTL)
	if r, err := svc.Begin(ctx, acct.ID, "k", "other"); err != nil || r != nil {
		t.Fatalf("after 24h the key is free: %v %v", r, err)
	}
	if err := svc.Abandon(ctx, acct.ID, "k"); err != nil {
		t.Fatal(err)
	}
	if r, err := svc.Begin(ctx, acct.ID, "k", "fp"); err != nil || r != nil {
		t.Fatalf("abandoned key is free: %v %v", r, err)
	}
}

// busyStore is a real in-memory store whose Complete and Abandon meet an
// exhausted database pool a number of times first.
type busyStore struct {
	*memstore.Store
	busyFor int
	calls   int
}

func (b *busyStore) busy() error {
	if b.calls++; b.calls <= b.busyFor {
		return failure.E("sqlstore", failure.TemporarilyUnavailable, "The service is busy right now. Please retry in a few seconds.")
	}
	return nil
}

func (b *busyStore) AbandonIdempotent(ctx context.Context, accountID int64, key string) error {
	if err := b.busy(); err != nil {
		return err
	}
	return b.Store.AbandonIdempotent(ctx, accountID, key)
}

func (b *busyStore) CompleteIdempotent(ctx context.Context, accountID int64, key string, status int, contentType string, body []byte) error {
	if err := b.busy(); err != nil {
		return err
	}
	return b.Store.CompleteIdempotent(ctx, accountID, key, status, contentType, body)
}

func TestAbandonAndCompleteRideOutABusyStore(t *testing.T) {
	// A call failed with 503 because the database was out of connections;
	// giving its key back must not fail for the same reason, or every retry
	// with that key would hear "still in progress" for a day.
	store := &busyStore{Store: memstore.New(), busyFor: 3}
	clock := testkit.NewClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	acct, _ := store.CreateAccount(context.Background(), ports.Account{Email: "a@example.com", CreatedAt: clock.Now()})
	svc, _ := idempotency.NewService(store, clock, idempotency.WithRetry(5*time.Second, time.Millisecond))
	ctx, cancel := context.WithCancel(context.Background())
	if _, err := svc.Begin(ctx, acct.ID, "k", "fp"); err != nil {
		t.Fatal(err)
	}
	cancel() // the client is gone too
	if err := svc.Abandon(ctx, acct.ID, "k"); err != nil {
		t.Fatalf("Abandon = %v", err)
	}
	if r, err := svc.Begin(context.Background(), acct.ID, "k", "fp"); err != nil || r != nil {
		t.Fatalf("the retry after a 503 could not claim its key: %v %v", r, err)
	}
	store.busyFor, store.calls = 2, 0
	if err := svc.Complete(context.Background(), acct.ID, "k", 200, "application/json", []byte(`{}`)); err != nil {
		t.Fatalf("Complete = %v", err)
	}
	if r, err := svc.Begin(context.Background(), acct.ID, "k", "fp"); err != nil || r == nil || r.Status != 200 {
		t.Fatalf("replay after a busy Complete: %+v %v", r, err)
	}
}
