package credits_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/trawlhq/trawl/core/credits"
	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/ports"
)

// endsMidView is a real in-memory ledger store whose caller's context
// ends while the account's view runs, as a crawl's does when its lease is
// lost or the node stops (SQLite's view runs on, detached from it).
type endsMidView struct {
	ports.LedgerStore
	cancel context.CancelFunc
}

func (e endsMidView) WithCredits(ctx context.Context, accountID int64, fn func(ports.LedgerTx) error) error {
	return e.LedgerStore.WithCredits(context.WithoutCancel(ctx), accountID, func(tx ports.LedgerTx) error {
		e.cancel()
		return fn(tx)
	})
}

// A group whose context ends while one of its items is refused tells no
// item that refusal: the others were not refused, and a page told it
// cannot be paid for would be recorded failed for good.
func TestChargeEachEndedContextTellsNoItemAnothersRefusal(t *testing.T) {
	f := newFixture(t, "basic")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ledger, _ := credits.NewLedger(endsMidView{f.store, cancel}, f.clock)
	h, err := ledger.Reserve(context.Background(), ports.ReserveRequest{AccountID: f.account.ID, Amount: 2, TTL: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	items := []ports.KeyedCharge{
		{Key: "covered", Charge: ports.Charge{Credits: 2, ServiceType: "crawl", ServiceName: "Crawl"}},
		{Key: "refused", Charge: ports.Charge{Credits: 1 << 40, ServiceType: "crawl", ServiceName: "Crawl"}},
	}
	res, err := ledger.ChargeEach(ctx, h, items)
	if err == nil || failure.Is(err, failure.InsufficientCredits) || !errors.Is(err, context.Canceled) {
		t.Fatalf("ChargeEach = %+v, %v; want the context's end, not an item's refusal", res, err)
	}
	if _, total, _ := f.store.Transactions(context.Background(), f.account.ID, 10, 0); total != 0 {
		t.Fatalf("%d transactions written", total)
	}
}

// A group whose transaction fails of itself (the store busy) holds it
// against no item: the items are written one transaction each.
func TestChargeEachStoreBusyWritesEachAlone(t *testing.T) {
	f, o := outageFixture(t, 2, 1) // call 1: the reserve; call 2: the group
	h, err := f.ledger.Reserve(context.Background(), ports.ReserveRequest{AccountID: f.account.ID, Amount: 4, TTL: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	items := []ports.KeyedCharge{
		{Key: "a", Charge: ports.Charge{Credits: 2, ServiceType: "crawl", ServiceName: "Crawl"}},
		{Key: "b", Charge: ports.Charge{Credits: 2, ServiceType: "crawl", ServiceName: "Crawl"}},
	}
	res, err := f.ledger.ChargeEach(context.Background(), h, items)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range res {
		if !r.Charged || r.Err != nil {
			t.Fatalf("item %d = %+v; want charged", i, r)
		}
	}
	if o.calls != 4 {
		t.Fatalf("%d transactions, want 4 (the reserve, the failed group, one an item)", o.calls)
	}
}
