package credits

import (
	"context"
	"errors"

	"github.com/trawlhq/trawl/core/billing"
	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/ports"
)

// Biller runs a billed call: reserve the largest possible cost, do the work,
// settle what the work says it cost, release everything on failure. It is the
// one way a billed endpoint touches credits.
type Biller struct {
	ledger ports.Ledger
	store  ports.LedgerStore
	clock  ports.Clock
	plans  billing.Plans
}

// NewBiller builds a biller.
func NewBiller(ledger ports.Ledger, store ports.LedgerStore, clock ports.Clock, plans billing.Plans) (*Biller, error) {
	if ledger == nil || store == nil || clock == nil {
		return nil, errors.New("credits.NewBiller: ledger, store and clock are required")
	}
	return &Biller{ledger: ledger, store: store, clock: clock, plans: plans}, nil
}

// Call describes a billed call before it runs.
type Call struct {
	Principal ports.Principal
	Service   billing.ServiceType
	// MaxCredits is the largest cost the call can reach; 0 means the
	// service's cost per call.
	MaxCredits int64
	RequestID  string
}

// Work is the billed work. It returns how many credits it actually cost (at
// most Call.MaxCredits; 0 charges nothing) and what to record about it. An
// error charges nothing.
type Work func(ctx context.Context) (credits int64, meta ports.TransactionMetadata, err error)

// Receipt says what a billed call was charged and where the balance stands.
type Receipt struct {
	Transaction ports.Transaction
	Charged     int64
	Balance     int64
	IsLow       bool
}

type serviceKey struct{}

// WithService marks ctx as the context of a billed call of service, so
// what observes the ledger (metrics) can tell which service a hold or a
// release was for.
func WithService(ctx context.Context, service billing.ServiceType) context.Context {
	return context.WithValue(ctx, serviceKey{}, service)
}

// ServiceOf is the service of the billed call ctx belongs to; "" outside one.
func ServiceOf(ctx context.Context) billing.ServiceType {
	s, _ := ctx.Value(serviceKey{}).(billing.ServiceType)
	return s
}

// Run performs a billed call.
func (b *Biller) Run(ctx context.Context, c Call, work Work) (Receipt, error) {
	const op = "credits.Run"
	svc, ok := billing.ServiceByType(c.Service)
	if !ok {
		return Receipt{}, failure.E(op, failure.Internal, "", errors.New("unknown service "+string(c.Service)))
	}
	ctx = WithService(ctx, svc.Type)
	maxCredits := c.MaxCredits
	if maxCredits <= 0 {
		maxCredits = svc.Credits
	}
	hold, err := b.ledger.Reserve(ctx, ports.ReserveRequest{
		AccountID: c.Principal.Account.ID,
		TokenID:   c.Principal.Token.ID,
		Amount:    maxCredits,
		Credits:   c.Principal.Credits,
	})
	if err != nil {
		return Receipt{}, err
	}
	settled := false
	defer func() {
		if !settled {
			// The call ends without a charge: the work failed or panicked, or
			// the charge itself failed (the database out of connections, say).
			// Free the hold now, not at its expiry, even if ctx is done.
			_ = b.ledger.Release(context.WithoutCancel(ctx), hold)
		}
	}()

	credits, meta, err := work(ctx)
	if err != nil {
		return Receipt{}, err
	}
	if credits > maxCredits {
		return Receipt{}, failure.E(op, failure.Internal, "", errors.New("work cost more than its maximum"))
	}
	meta.RequestID = c.RequestID
	tx, err := b.ledger.Settle(context.WithoutCancel(ctx), hold, ports.Charge{
		Credits:     credits,
		ServiceType: string(svc.Type),
		ServiceName: svc.DisplayName,
		Metadata:    meta,
	})
	if err != nil {
		// A failed settle rolled back, hold included, so the hold is
		// released below. (Should a commit have succeeded with its answer
		// lost, the hold went with it and the release finds nothing.)
		return Receipt{}, err
	}
	settled = true
	r := Receipt{Transaction: tx, Charged: credits}
	if credits > 0 {
		r.Balance = tx.BalanceAfter
	} else {
		state, _, err := b.store.ReadCredits(ctx, c.Principal.Account.ID, b.clock.Now())
		if err == nil {
			r.Balance = b.plans.StatusOf(state, b.clock.Now()).Balance
		}
	}
	limit := b.plans.Must(c.Principal.Account.Plan).MonthlyCredits
	r.IsLow = r.Balance < billing.Threshold(limit)
	return r, nil
}
