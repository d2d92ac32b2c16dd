package sqliteengine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/ports"
)

// WithCredits runs fn with the account's credits locked: the writer gate. The writer gate keeps every
// other locked view of this process out, and the holds are in memory
// (holdBook), so a view begins no transaction until it writes: placing or
// dropping a hold reads the credit row and nothing else. The first write,
// or a token check (which must see the same file the charge writes), begins
// an IMMEDIATE transaction; a credit row read before it is read again
// inside it, and should another process have changed it meanwhile the view
// starts over inside a transaction from the first statement. Hold changes
// reach the book only once the transaction (if any) has committed. Its
// statements run on the writer's connection (sqliteWriter).
func (e *Engine) WithCredits(ctx context.Context, accountID int64, fn func(ports.LedgerTx) error) error {
	const op = "sqlstore.WithCredits"
	if !e.gate.tryEnter() {
		// The wait, not the view, is bounded (a timer only when there is
		// one).
		gate, cancel := e.shared.Bound(ctx, time.Time{})
		err := e.gate.enter(gate)
		if err != nil {
			err = e.shared.Fail(gate, op, fmt.Errorf("begin: %w", err))
		}
		cancel()
		if err != nil {
			return err
		}
	}
	defer e.gate.leave()
	// Once through the gate, the view runs to its end (see Keyed).
	ctx, cancel := Keyed(ctx)
	defer cancel()
	if err := e.holds.load(ctx, e.shared); err != nil {
		return e.shared.Fail(ctx, op, err)
	}
	err := e.view(ctx, accountID, false, fn)
	if errors.Is(err, errStaleRead) {
		err = e.view(ctx, accountID, true, fn)
	}
	// The only statements that can find no row read the account's.
	return e.shared.NotFound(ctx, op, "account", err)
}

// view runs fn once; eager begins the transaction first.
func (e *Engine) view(ctx context.Context, accountID int64, eager bool, fn func(ports.LedgerTx) error) (err error) {
	l := &sqliteTx{e: e, ctx: ctx, accountID: accountID, book: e.holds.account(accountID)}
	defer func() {
		if p := recover(); p != nil {
			l.rollback()
			panic(p)
		}
		if err != nil {
			l.rollback()
		}
	}()
	if eager {
		if err := l.begin(); err != nil {
			return err
		}
	}
	if err := fn(l); err != nil {
		if l.err != nil {
			return l.err // fn failed for want of the row it could not read
		}
		// A refusal decided on a remembered row stands only if the row is
		// the file's.
		if err := l.confirm(); err != nil {
			return err
		}
		return err
	}
	return l.finish()
}

// sqliteTx is the locked view of one account on SQLite.
type sqliteTx struct {
	e         *Engine
	ctx       context.Context
	accountID int64
	open      bool // the view's transaction has begun (on the writer)
	// state is the credit row as the view has it; read is the row as read
	// from the file or remembered (creditRows) (loaded: it was; inTx: it
	// is known to be the file's row inside the transaction; remembered: it
	// came from memory and has not been checked against the file yet;
	// used: fn read it).
	state, read                             ports.CreditState
	loaded, inTx, unsaved, remembered, used bool
	// deferred is the token a charge assumed live, with read, a remembered
	// row: both are checked by the UPDATE that saves the row or, failing
	// that, before the commit (check).
	deferred int64
	// book is the account's holds in the book; holds is this view's copy
	// once it changes them (nil: unchanged).
	book, holds map[string]ports.Hold
	// err is a failure met by a method that cannot return one (State).
	err error
}

// x runs the view's statements, before and inside its transaction, on the
// writer's connection.
func (l *sqliteTx) x() Execer { return l.e.w.x() }

// begin opens the IMMEDIATE transaction, checking a row read before it
// against the file as the transaction sees it.
func (l *sqliteTx) begin() error {
	if l.open {
		return nil
	}
	if err := l.e.w.begin(l.ctx); err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	l.open = true
	if !l.loaded || l.deferred != 0 {
		return nil
	}
	return l.check()
}

// check reads the credit row inside the transaction, and the deferred
// token: a row other than the one the view began from, or a token gone,
// starts the view over inside a transaction (errStaleRead), where the
// rules see them as they are.
func (l *sqliteTx) check() error {
	if err := l.reread(); err != nil {
		return err
	}
	if l.deferred != 0 {
		live, err := l.TokenLive(l.deferred)
		if err != nil {
			return err
		}
		if !live {
			return errStaleRead
		}
		l.deferred = 0
	}
	l.inTx = true
	return nil
}

func (l *sqliteTx) rollback() {
	if l.open {
		l.e.w.rollback(l.ctx)
		l.open = false
	}
}

// confirm checks, outside the transaction, a remembered row fn decided on
// (it read it) against the file: a view that writes nothing has no UPDATE
// or transaction to check it, and what it decided (a refusal, a plan
// already set) must hold for the row as it is. A row another process
// changed starts the view over inside a transaction (errStaleRead), as
// does a deferred token check.
func (l *sqliteTx) confirm() error {
	if !l.used || !l.remembered {
		return nil
	}
	if l.deferred != 0 || l.open {
		return errStaleRead
	}
	return l.reread()
}

// reread reads the credit row again, inside the transaction if one is
// open: a row other than the one the view began from starts the view over
// (errStaleRead).
func (l *sqliteTx) reread() error {
	row, err := l.e.shared.LockAccount(l.ctx, l.x(), l.accountID)
	if err != nil {
		return err
	}
	if !sameCredits(row, l.read) {
		return errStaleRead
	}
	l.remembered = false
	return nil
}

// finish checks the account exists (a view may never have read its row),
// writes a saved row, commits, and hands the hold changes to the book. A
// view that changed nothing has its remembered row confirmed; one that
// placed or dropped a hold has not: a hold placed on a row another process
// changed meanwhile is a hold placed a moment before that change, and the
// charge is decided on the row as it is.
func (l *sqliteTx) finish() error {
	if !l.loaded {
		if err := l.load(); err != nil {
			return err
		}
	}
	if !l.unsaved && l.deferred == 0 && l.holds == nil {
		if err := l.confirm(); err != nil {
			return err
		}
	}
	if l.unsaved {
		if err := l.begin(); err != nil {
			return err
		}
		if err := l.save(); err != nil {
			return err
		}
	}
	if l.deferred != 0 {
		if err := l.begin(); err != nil {
			return err
		}
		if err := l.check(); err != nil {
			return err
		}
	}
	if l.open {
		l.open = false
		if err := l.e.w.commit(l.ctx); err != nil {
			return err
		}
		if l.inTx {
			l.e.w.rows.keep(l.state, l.e.w.rows.now())
		}
	}
	if l.holds != nil {
		l.e.holds.replace(l.accountID, l.holds)
	}
	return nil
}

// save writes the view's credit row, inside its transaction. With a
// deferred check the UPDATE is a compare-and-set: it changes the row only
// if it is still the one the view began from and the token is still live,
// and when it changes nothing the view starts over (errStaleRead).
func (l *sqliteTx) save() error {
	if l.deferred == 0 {
		if _, err := l.e.shared.SaveCredits(l.ctx, l.x(), l.state, ""); err != nil {
			return err
		}
		l.unsaved = false
		return nil
	}
	r := l.read
	n, err := l.e.shared.SaveCredits(l.ctx, l.x(), l.state, saveStateIf,
		r.Plan, msPtr(r.PlanAnchor), msPtr(r.PeriodStart), r.Used, r.AllowanceUsed, r.TopUp, l.deferred, l.accountID)
	if err != nil {
		return err
	}
	if n != 1 {
		return errStaleRead
	}
	l.unsaved, l.deferred, l.inTx, l.remembered = false, 0, true, false
	return nil
}

// saveStateIf is the condition of the compare-and-set: the row is still as
// read and the token still exists, checked on the row the write changes.
const saveStateIf = ` AND plan = ? AND plan_anchor IS ? AND period_start IS ? AND used = ? AND allowance_used = ? AND topup = ?
	AND EXISTS (SELECT 1 FROM tokens WHERE id = ? AND account_id = ?)`

// load reads the credit row, inside the transaction if there is one;
// before it, the row remembered since the last transaction ended, if any,
// is the row (creditRows).
func (l *sqliteTx) load() error {
	if !l.open {
		if row, ok := l.e.w.rows.current(l.accountID); ok {
			l.setRow(row, true)
			return nil
		}
	}
	row, err := l.e.shared.LockAccount(l.ctx, l.x(), l.accountID)
	if err != nil {
		return err
	}
	l.setRow(row, false)
	return nil
}

func (l *sqliteTx) setRow(c ports.CreditState, remembered bool) {
	l.state, l.read, l.loaded, l.inTx, l.remembered = c, c, true, l.open, remembered
}

func (l *sqliteTx) State() ports.CreditState {
	if !l.loaded && l.err == nil {
		l.err = l.load()
	}
	l.used = true
	return l.state
}

// SaveState keeps c as the credit row, written before the commit (or with
// the next transaction).
func (l *sqliteTx) SaveState(c ports.CreditState) error {
	if !l.loaded {
		if err := l.load(); err != nil {
			return err
		}
	}
	c.AccountID = l.accountID
	// The file keeps whole milliseconds: the row kept after the commit
	// (creditRows) must be the file's, to the nanosecond the rules compare.
	c.PlanAnchor, c.PeriodStart = inMS(c.PlanAnchor), inMS(c.PeriodStart)
	l.state, l.unsaved = c, true
	return nil
}

// inMS is *t as the file keeps it: whole milliseconds, in UTC.
func inMS(t *time.Time) *time.Time {
	if t == nil || (t.Nanosecond()%int(time.Millisecond) == 0 && t.Location() == time.UTC) {
		return t
	}
	v := fromMS(ms(*t))
	return &v
}

// mine is the account's holds as this view sees them.
func (l *sqliteTx) mine() map[string]ports.Hold {
	if l.holds != nil {
		return l.holds
	}
	return l.book
}

// change is the view's own copy of the holds, to change.
func (l *sqliteTx) change() map[string]ports.Hold {
	if l.holds == nil {
		l.holds = cloneHolds(l.book)
	}
	return l.holds
}

func (l *sqliteTx) HeldAmount(now time.Time) (int64, error) {
	return liveSum(l.mine(), now, ""), nil
}

func (l *sqliteTx) DeleteExpiredHolds(now time.Time) error {
	for id, h := range l.mine() {
		if !h.ExpiresAt.After(now) {
			if err := l.DeleteHold(id); err != nil {
				return err
			}
		}
	}
	return nil
}

// PutHold keeps the hold in memory; a durable one goes to the table too.
func (l *sqliteTx) PutHold(h ports.Hold) error {
	h.AccountID = l.accountID
	h.CreatedAt, h.ExpiresAt = fromMS(ms(h.CreatedAt)), fromMS(ms(h.ExpiresAt))
	if h.Durable {
		if err := l.writeHold(`INSERT INTO holds (id, account_id, token_id, amount, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)`,
			h.ID, h.AccountID, h.TokenID, h.Amount, ms(h.CreatedAt), ms(h.ExpiresAt)); err != nil {
			if l.e.shared.IsUnique(err) {
				return failure.E("sqlstore.PutHold", failure.Conflict, "hold exists")
			}
			return err
		}
	} else if _, ok := l.mine()[h.ID]; ok {
		return failure.E("sqlstore.PutHold", failure.Conflict, "hold exists")
	}
	l.change()[h.ID] = h
	return nil
}

// writeHold writes a durable hold's change to the holds table, inside the
// view's transaction (begun here if it was not yet).
func (l *sqliteTx) writeHold(query string, args ...any) error {
	if err := l.begin(); err != nil {
		return err
	}
	_, err := l.x().ExecContext(l.ctx, query, args...)
	return err
}

func (l *sqliteTx) Hold(id string) (ports.Hold, error) {
	h, ok := l.mine()[id]
	if !ok {
		return ports.Hold{}, failure.E("sqlstore.Hold", failure.NotFound, "hold not found")
	}
	return h, nil
}

func (l *sqliteTx) DeleteHold(id string) error {
	h, err := l.Hold(id)
	if err != nil {
		return err
	}
	if h.Durable {
		if err := l.writeHold(`DELETE FROM holds WHERE id = ? AND account_id = ?`, id, l.accountID); err != nil {
			return err
		}
	}
	delete(l.change(), id)
	return nil
}

func (l *sqliteTx) UpdateHold(id string, amount int64) error {
	h, err := l.Hold(id)
	if err != nil {
		return err
	}
	if h.Durable {
		if err := l.writeHold(`UPDATE holds SET amount = ? WHERE id = ? AND account_id = ?`, amount, id, l.accountID); err != nil {
			return err
		}
	}
	h.Amount = amount
	l.change()[id] = h
	return nil
}

// Charged reads inside the transaction: the charge it guards follows.
func (l *sqliteTx) Charged(key string) (bool, error) {
	if err := l.begin(); err != nil {
		return false, err
	}
	return l.e.shared.Charged(l.ctx, l.x(), l.accountID, key)
}

// FinishCrawlPage writes inside the transaction: the page commits with
// the charge that pays for it.
func (l *sqliteTx) FinishCrawlPage(o ports.CrawlOutcome) error {
	if err := l.begin(); err != nil {
		return err
	}
	return l.e.shared.FinishCrawlPage(l.ctx, l.x(), o)
}

// TokenLive reads inside the transaction, so a token deleted after the
// check waits for the commit of whatever the check allowed.
func (l *sqliteTx) TokenLive(tokenID int64) (bool, error) {
	if err := l.begin(); err != nil {
		return false, err
	}
	return l.e.shared.TokenLive(l.ctx, l.x(), l.accountID, tokenID)
}

// DropHold drops the hold from memory and, for a call's token, begins the
// transaction that will charge it, reading the credit row and checking the
// token in one statement; or, with a row remembered since the last
// transaction ended, reads nothing and defers both checks to the UPDATE
// that saves the charged row (save).
func (l *sqliteTx) DropHold(holdID string, tokenID int64, now time.Time) (bool, int64, error) {
	if err := l.DeleteHold(holdID); err != nil && !failure.Is(err, failure.NotFound) {
		return false, 0, err
	}
	live := true
	if tokenID != 0 && !l.open && !l.loaded {
		if row, ok := l.e.w.rows.current(l.accountID); ok {
			l.setRow(row, true)
			l.deferred = tokenID
			return true, liveSum(l.mine(), now, ""), nil
		}
	}
	if tokenID != 0 {
		if err := l.begin(); err != nil {
			return false, 0, err
		}
		if l.loaded {
			var err error
			if live, err = l.TokenLive(tokenID); err != nil {
				return false, 0, err
			}
		} else {
			row, ok, err := l.e.shared.CreditsAndToken(l.ctx, l.x(), l.accountID, tokenID)
			if err != nil {
				return false, 0, err
			}
			l.setRow(row, false)
			live = ok
		}
	}
	return live, liveSum(l.mine(), now, ""), nil
}

func (l *sqliteTx) AddTransaction(t ports.Transaction) (ports.Transaction, error) {
	if err := l.begin(); err != nil {
		return t, err
	}
	if l.unsaved {
		if err := l.save(); err != nil {
			return t, err
		}
	}
	return l.e.shared.AddTransaction(l.ctx, l.x(), l.accountID, t)
}

func (l *sqliteTx) MarkCheckoutPaid(sessionID string, at time.Time) (bool, error) {
	if err := l.begin(); err != nil {
		return false, err
	}
	return l.e.shared.MarkCheckoutPaid(l.ctx, l.x(), l.accountID, sessionID, at)
}

// sameCredits reports whether two credit rows are the same.
func sameCredits(a, b ports.CreditState) bool {
	return a.AccountID == b.AccountID && a.Plan == b.Plan && sameTime(a.PlanAnchor, b.PlanAnchor) &&
		sameTime(a.PeriodStart, b.PeriodStart) && a.Used == b.Used && a.AllowanceUsed == b.AllowanceUsed && a.TopUp == b.TopUp
}

func sameTime(a, b *time.Time) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Equal(*b)
}
