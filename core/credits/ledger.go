// Package credits holds the money rules: the ledger (hold before work, settle
// on success, release on failure), the billing flow every billed endpoint
// goes through, and the credits endpoints' use cases.
package credits

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"log/slog"
	"time"

	"github.com/trawlhq/trawl/core/billing"
	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/ports"
)

// DefaultHoldTTL bounds how long a hold outlives a process that died holding it.
const DefaultHoldTTL = 10 * time.Minute

// Ledger implements ports.Ledger on top of a LedgerStore. Every change to a
// balance happens inside LedgerStore.WithCredits, so concurrent calls on the
// same account are serialised and can never overdraw it.
type Ledger struct {
	store ports.LedgerStore
	clock ports.Clock
	log   *slog.Logger
	plans billing.Plans
	// releaseFor bounds how long Release keeps trying while the store is
	// temporarily unavailable; releasePause is the first wait between tries.
	releaseFor, releasePause time.Duration
}

var _ ports.Ledger = (*Ledger)(nil)

// Default release retry: a hold left behind blocks its credits until it
// expires, so a release is worth a few seconds of trying.
const (
	DefaultReleaseFor   = 10 * time.Second
	DefaultReleasePause = 100 * time.Millisecond
)

// LedgerOption adjusts a ledger.
type LedgerOption func(*Ledger)

// WithLogger logs the holds that could not be released.
func WithLogger(log *slog.Logger) LedgerOption {
	return func(l *Ledger) {
		if log != nil {
			l.log = log
		}
	}
}

// WithPlans sets the plan table balances are reckoned by (default: the
// spec's).
func WithPlans(p billing.Plans) LedgerOption { return func(l *Ledger) { l.plans = p } }

// WithReleaseRetry sets how long Release keeps trying while the store is
// temporarily unavailable, and the first wait between tries (it doubles, up
// to a second).
func WithReleaseRetry(within, firstPause time.Duration) LedgerOption {
	return func(l *Ledger) {
		if within > 0 {
			l.releaseFor = within
		}
		if firstPause > 0 {
			l.releasePause = firstPause
		}
	}
}

// NewLedger builds a ledger.
func NewLedger(store ports.LedgerStore, clock ports.Clock, opts ...LedgerOption) (*Ledger, error) {
	if store == nil || clock == nil {
		return nil, errors.New("credits.NewLedger: store and clock are required")
	}
	l := &Ledger{store: store, clock: clock, log: slog.New(slog.DiscardHandler), releaseFor: DefaultReleaseFor, releasePause: DefaultReleasePause}
	for _, o := range opts {
		o(l)
	}
	return l, nil
}

func newHoldID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return "hold_" + hex.EncodeToString(b[:])
}

// Reserve holds r.Amount credits. An account without a plan gets PlanRequired;
// one whose balance, less the credits already held, is short gets
// InsufficientCredits with the amounts.
func (l *Ledger) Reserve(ctx context.Context, r ports.ReserveRequest) (ports.Hold, error) {
	const op = "ledger.Reserve"
	if r.Amount <= 0 {
		return ports.Hold{}, failure.E(op, failure.Internal, "", errors.New("reserve amount must be positive"))
	}
	ttl := r.TTL
	if ttl <= 0 {
		ttl = DefaultHoldTTL
	}
	now := l.clock.Now()
	hold := ports.Hold{ID: newHoldID(), AccountID: r.AccountID, TokenID: r.TokenID, Amount: r.Amount, CreatedAt: now, ExpiresAt: now.Add(ttl), Durable: r.Durable}
	placed, err := l.placeHold(ctx, r, hold)
	if err != nil {
		return ports.Hold{}, failure.Wrap(op, err)
	}
	if placed {
		return hold, nil
	}
	err = l.store.WithCredits(ctx, r.AccountID, func(tx ports.LedgerTx) error {
		now := l.clock.Now()
		state, renewed := billing.Renew(tx.State(), now)
		if state.Plan == "" {
			return failure.E(op, failure.PlanRequired, "Plan Required")
		}
		if err := tx.DeleteExpiredHolds(now); err != nil {
			return err
		}
		held, err := tx.HeldAmount(now)
		if err != nil {
			return err
		}
		available := l.plans.Balance(state) - held
		if available < r.Amount {
			return shortOfCredits(op, r.Amount, available)
		}
		if renewed {
			if err := tx.SaveState(state); err != nil {
				return err
			}
		}
		hold.CreatedAt, hold.ExpiresAt = now, now.Add(ttl)
		return tx.PutHold(hold)
	})
	if err != nil {
		return ports.Hold{}, failure.Wrap(op, err)
	}
	return hold, nil
}

// placeHold places the hold in one step when the store can (HoldPlacer) and
// the credit row, as the caller read it or as read now without a lock, has a
// plan and needs no renewal. The guard carries the rules' terms (plan,
// period, the plan's allowance), so the store checks them on the row as it
// is when the hold is placed: a stale read costs only time. False: the
// transactional path decides (renewal, expired holds, a refusal's amounts).
func (l *Ledger) placeHold(ctx context.Context, r ports.ReserveRequest, hold ports.Hold) (bool, error) {
	placer, ok := l.store.(ports.HoldPlacer)
	if !ok || !placer.PlacesHolds() {
		return false, nil
	}
	state := r.Credits
	if state.AccountID != r.AccountID {
		var err error
		if state, _, err = l.store.ReadCredits(ctx, r.AccountID, hold.CreatedAt); err != nil {
			return false, err
		}
	}
	if _, due := billing.Renew(state, hold.CreatedAt); due || state.Plan == "" {
		return false, nil
	}
	plan, ok := l.plans.ByName(state.Plan)
	if !ok {
		return false, nil // a plan the operator removed: the rules decide
	}
	return placer.PlaceHold(ctx, hold, ports.HoldGuard{
		Plan: state.Plan, PlanAnchor: state.PlanAnchor, PeriodStart: state.PeriodStart,
		Allowance: plan.MonthlyCredits, Now: hold.CreatedAt,
	})
}

// shortOfCredits is the refusal of a charge the spendable balance does not cover.
func shortOfCredits(op string, required, available int64) error {
	e := failure.E(op, failure.InsufficientCredits, "Insufficient Credits")
	e.Required, e.Balance = required, max(0, available)
	return e
}

// errTokenRevoked marks a settle refused because the token was deleted while
// the call ran; the hold is still dropped in the same transaction.
var errTokenRevoked = errors.New("token revoked")

// Settle charges c.Credits (at most the held amount) and writes one
// transaction. The token that made the call must still be live: a token
// deleted mid-request makes the charge fail with Unauthenticated and charges
// nothing. A hold that expired meanwhile is charged only if the balance still
// covers it.
func (l *Ledger) Settle(ctx context.Context, h ports.Hold, c ports.Charge) (ports.Transaction, error) {
	const op = "ledger.Settle"
	if c.Credits < 0 || c.Credits > h.Amount {
		return ports.Transaction{}, failure.E(op, failure.Internal, "", errors.New("charge exceeds hold"))
	}
	if c.Credits == 0 {
		return ports.Transaction{}, l.Release(ctx, h)
	}
	var out ports.Transaction
	revoked := false
	err := l.store.WithCredits(ctx, h.AccountID, func(tx ports.LedgerTx) error {
		now := l.clock.Now()
		live, held, err := tx.DropHold(h.ID, h.TokenID, now)
		if err != nil {
			return err
		}
		if !live {
			revoked = true
			return nil // commit the dropped hold, charge nothing
		}
		state, _ := billing.Renew(tx.State(), now)
		// Other holds keep their claim: this charge may use only what they leave.
		available := l.plans.Balance(state) - held
		spent, ok := l.plans.Spend(state, c.Credits)
		if !ok || available < c.Credits {
			return shortOfCredits(op, c.Credits, available)
		}
		if err := tx.SaveState(spent); err != nil {
			return err
		}
		t, err := tx.AddTransaction(ports.Transaction{
			AccountID:    h.AccountID,
			ServiceType:  c.ServiceType,
			ServiceName:  c.ServiceName,
			Credits:      c.Credits,
			BalanceAfter: l.plans.Balance(spent),
			CreatedAt:    now,
			Metadata:     c.Metadata,
		})
		out = t
		return err
	})
	if err != nil {
		return ports.Transaction{}, failure.Wrap(op, err)
	}
	if revoked {
		return ports.Transaction{}, failure.E(op, failure.Unauthenticated, "Unauthenticated.", errTokenRevoked)
	}
	return out, nil
}

// Release drops a hold; releasing one that is gone is not an error. A
// release is cleanup, so it runs to the end even when ctx is cancelled, and
// while the store is temporarily unavailable (out of connections, say) it
// tries again for a while. A hold that still cannot be released is logged; it
// stops counting against the balance when it expires.
func (l *Ledger) Release(ctx context.Context, h ports.Hold) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), l.releaseFor)
	defer cancel()
	attempts, err := failure.UntilAvailable(ctx, l.releasePause, func(ctx context.Context) error { return l.release(ctx, h) })
	if err != nil {
		l.log.ErrorContext(ctx, "a hold could not be released; it stops counting against the balance when it expires",
			"hold", h.ID, "account_id", h.AccountID, "credits", h.Amount, "expires_at", h.ExpiresAt, "attempts", attempts, "err", err)
	}
	return err
}

func (l *Ledger) release(ctx context.Context, h ports.Hold) error {
	err := l.store.WithCredits(ctx, h.AccountID, func(tx ports.LedgerTx) error {
		if err := tx.DeleteHold(h.ID); err != nil && !failure.Is(err, failure.NotFound) {
			return err
		}
		return nil
	})
	return failure.Wrap("ledger.Release", err)
}

// ChargeHold charges c.Credits from an open hold, at most once per key: a
// job's URL retried after a crash finds its key charged and pays nothing.
// The hold shrinks by the amount and stays open. A hold that expired
// meanwhile is charged only if the balance still covers it.
func (l *Ledger) ChargeHold(ctx context.Context, h ports.Hold, c ports.Charge, key string) (ports.Transaction, bool, error) {
	const op = "ledger.ChargeHold"
	if err := checkKeyed(op, c, key); err != nil {
		return ports.Transaction{}, false, err
	}
	var out ports.Transaction
	charged := false
	err := l.store.WithCredits(ctx, h.AccountID, func(tx ports.LedgerTx) (err error) {
		out, charged, err = l.chargeKeyed(op, tx, h, c, key)
		return err
	})
	if err != nil {
		return ports.Transaction{}, false, failure.Wrap(op, err)
	}
	return out, charged, nil
}

// ChargeEach writes several charges of one hold in one transaction, each
// decided as ChargeHold decides one, in order: the rules see the credit
// row and the hold as the items before it left them. Pages that finish
// together pay for one commit instead of one each.
//
// An item that fails of itself (refused for want of credits, its lease
// lost, its write refused) is left out and the group is written again
// without it, in a new transaction: what the items before it wrote is
// written again the same way, and the items after it see what they would
// have seen had it not been asked. That is what a savepoint per item
// would give; a savepoint costs SQLite a copy of every page the item
// changes (its sub-journal), which is most of what the group commit
// saves, where a failed item is rare (a crawl's last pages once the
// balance is spent) and costs a rollback.
//
// A failure of the transaction itself (the store busy or out of time, a
// lost connection, a failed commit) is no item's: it is not held against
// the item that happened to be running. The items left are then written
// one transaction each, as they would have been without the group, so a
// group too long for the store's time limit still gets written and a
// store that is down tells each item so in its result. When ctx ends
// first, err is ctx's: nothing was written, and no item is told another's
// failure.
func (l *Ledger) ChargeEach(ctx context.Context, h ports.Hold, items []ports.KeyedCharge) ([]ports.ChargeResult, error) {
	const op = "ledger.ChargeEach"
	failed := make([]error, len(items))
	for left := len(items); ; left-- {
		results := make([]ports.ChargeResult, len(items))
		if left == 0 {
			return fill(results, failed), nil // nothing left to write
		}
		bad, badErr := -1, error(nil)
		err := l.store.WithCredits(ctx, h.AccountID, func(tx ports.LedgerTx) error {
			bad, badErr = -1, nil // a view started over decides every item again
			for i, it := range items {
				if failed[i] != nil {
					continue
				}
				r, err := l.chargeItem(op, tx, h, it)
				if err != nil {
					bad, badErr = i, err
					return err
				}
				results[i] = r
			}
			return nil
		})
		switch {
		case err == nil:
			return fill(results, failed), nil
		case ctx.Err() != nil:
			return nil, failure.Wrap(op, ctx.Err())
		case bad >= 0 && errors.Is(err, badErr) && !failure.Is(err, failure.TemporarilyUnavailable):
			failed[bad] = failure.Wrap(op, err)
			continue
		case len(items) == 1:
			return nil, failure.Wrap(op, err)
		}
		return l.chargeAlone(ctx, h, items, failed), nil
	}
}

// chargeAlone writes each item not failed yet in a transaction of its
// own, after the group's transaction failed of itself; an item's result
// carries its own failure.
func (l *Ledger) chargeAlone(ctx context.Context, h ports.Hold, items []ports.KeyedCharge, failed []error) []ports.ChargeResult {
	results := make([]ports.ChargeResult, len(items))
	for i, it := range items {
		if failed[i] != nil {
			continue
		}
		r, err := l.ChargeEach(ctx, h, []ports.KeyedCharge{it})
		if err != nil {
			failed[i] = err
			continue
		}
		results[i] = r[0]
	}
	return fill(results, failed)
}

// fill sets the result of every failed item to its failure.
func fill(results []ports.ChargeResult, failed []error) []ports.ChargeResult {
	for i, err := range failed {
		if err != nil {
			results[i] = ports.ChargeResult{Err: err}
		}
	}
	return results
}

// chargeItem is one item of ChargeEach: a keyed charge, or an outcome
// written alone.
func (l *Ledger) chargeItem(op string, tx ports.LedgerTx, h ports.Hold, it ports.KeyedCharge) (ports.ChargeResult, error) {
	if it.Key == "" && it.Charge.Credits == 0 {
		return ports.ChargeResult{}, finishOutcome(tx, it.Charge) // a page not charged
	}
	if err := checkKeyed(op, it.Charge, it.Key); err != nil {
		return ports.ChargeResult{}, err
	}
	t, charged, err := l.chargeKeyed(op, tx, h, it.Charge, it.Key)
	return ports.ChargeResult{Transaction: t, Charged: charged}, err
}

// checkKeyed refuses a keyed charge without a key or a positive amount.
func checkKeyed(op string, c ports.Charge, key string) error {
	if key == "" || c.Credits <= 0 {
		return failure.E(op, failure.Internal, "", errors.New("a keyed charge needs a key and a positive amount"))
	}
	return nil
}

// chargeKeyed is the rule of a keyed charge, in the account's view: a key
// charged before charges nothing and writes the outcome (the page keeps
// its first); else the hold's own reservation covers the charge, other
// holds keep theirs, and the charge, the credit row and the outcome are
// written.
func (l *Ledger) chargeKeyed(op string, tx ports.LedgerTx, h ports.Hold, c ports.Charge, key string) (ports.Transaction, bool, error) {
	done, err := tx.Charged(key)
	if err != nil {
		return ports.Transaction{}, false, err
	}
	if done {
		return ports.Transaction{}, false, finishOutcome(tx, c)
	}
	now := l.clock.Now()
	state, _ := billing.Renew(tx.State(), now)
	held, err := tx.HeldAmount(now)
	if err != nil {
		return ports.Transaction{}, false, err
	}
	// This hold's own reservation covers the charge; other holds keep theirs.
	own := int64(0)
	if cur, err := tx.Hold(h.ID); err == nil && cur.ExpiresAt.After(now) {
		own = min(cur.Amount, c.Credits)
		if err := shrinkHold(tx, cur, own); err != nil {
			return ports.Transaction{}, false, err
		}
	}
	available := l.plans.Balance(state) - (held - own)
	spent, ok := l.plans.Spend(state, c.Credits)
	if !ok || available < c.Credits {
		return ports.Transaction{}, false, shortOfCredits(op, c.Credits, available)
	}
	if err := tx.SaveState(spent); err != nil {
		return ports.Transaction{}, false, err
	}
	t, err := tx.AddTransaction(ports.Transaction{
		AccountID: h.AccountID, ServiceType: c.ServiceType, ServiceName: c.ServiceName, Credits: c.Credits,
		BalanceAfter: l.plans.Balance(spent), CreatedAt: now, Metadata: c.Metadata, ChargeKey: key,
	})
	if err != nil {
		return ports.Transaction{}, false, err
	}
	if err := finishOutcome(tx, c); err != nil {
		return ports.Transaction{}, false, err
	}
	return t, true, nil
}

// finishOutcome writes what a charge pays for, if it names it, in the
// charge's transaction.
func finishOutcome(tx ports.LedgerTx, c ports.Charge) error {
	if c.Outcome == nil {
		return nil
	}
	return tx.FinishCrawlPage(*c.Outcome)
}

// ReleasePart gives back part of an open hold (a job's URL that failed).
func (l *Ledger) ReleasePart(ctx context.Context, h ports.Hold, credits int64) error {
	err := l.store.WithCredits(ctx, h.AccountID, func(tx ports.LedgerTx) error {
		cur, err := tx.Hold(h.ID)
		if failure.Is(err, failure.NotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		return shrinkHold(tx, cur, credits)
	})
	return failure.Wrap("ledger.ReleasePart", err)
}

// shrinkHold lowers a hold by n credits, dropping it when nothing is left.
func shrinkHold(tx ports.LedgerTx, h ports.Hold, n int64) error {
	if h.Amount-n <= 0 {
		return tx.DeleteHold(h.ID)
	}
	return tx.UpdateHold(h.ID, h.Amount-n)
}
