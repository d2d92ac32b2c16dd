package bulk

import (
	"context"

	"github.com/trawlhq/trawl/core/billing"
	"github.com/trawlhq/trawl/core/credits"
	"github.com/trawlhq/trawl/ports"
)

// TagLedger marks every ledger call made through it as the bulk service's,
// as a billed call's context is marked with its own, so that what observes
// the ledger (credit metrics, spans) counts bulk jobs and crawls apart.
func TagLedger(next ports.Ledger) ports.Ledger { return taggedLedger{next} }

type taggedLedger struct{ next ports.Ledger }

func bulkCtx(ctx context.Context) context.Context {
	return credits.WithService(ctx, billing.BulkContent)
}

func (b taggedLedger) Reserve(ctx context.Context, r ports.ReserveRequest) (ports.Hold, error) {
	return b.next.Reserve(bulkCtx(ctx), r)
}

func (b taggedLedger) Settle(ctx context.Context, h ports.Hold, c ports.Charge) (ports.Transaction, error) {
	return b.next.Settle(bulkCtx(ctx), h, c)
}

func (b taggedLedger) Release(ctx context.Context, h ports.Hold) error {
	return b.next.Release(bulkCtx(ctx), h)
}

func (b taggedLedger) ChargeHold(ctx context.Context, h ports.Hold, c ports.Charge, key string) (ports.Transaction, bool, error) {
	return b.next.ChargeHold(bulkCtx(ctx), h, c, key)
}

func (b taggedLedger) ChargeEach(ctx context.Context, h ports.Hold, items []ports.KeyedCharge) ([]ports.ChargeResult, error) {
	return b.next.ChargeEach(bulkCtx(ctx), h, items)
}

func (b taggedLedger) ReleasePart(ctx context.Context, h ports.Hold, n int64) error {
	return b.next.ReleasePart(bulkCtx(ctx), h, n)
}
