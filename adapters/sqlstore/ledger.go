package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"

	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/ports"
)

// WithCredits runs fn with the account row locked: FOR UPDATE on
// PostgreSQL, the writer gate on SQLite (sqliteengine).
//
// On PostgreSQL the lock is taken by the view's first statement, so a
// settle's first statement locks the row, drops the hold and checks the
// token at once (DropHold). The row also carries what the account's holds
// reserve (held, kept by a trigger on holds) and a bound before which none
// of them expires, so the held amount is read with the lock, not summed.
func (s *Store) WithCredits(ctx context.Context, accountID int64, fn func(ports.LedgerTx) error) error {
	return s.eng.withCredits(ctx, accountID, fn)
}

var _ ports.HoldPlacer = (*Store)(nil)

// PlacesHolds: on PostgreSQL. On SQLite the transactional path is the
// writer gate and holds kept in memory; there is no round trip to save.
func (s *Store) PlacesHolds() bool { return s.eng.placesHolds() }

// PlaceHold places a hold in one autocommit statement on PostgreSQL: the
// UPDATE of the account row re-evaluates its WHERE on the row's latest
// version once it holds the row lock (READ COMMITTED), so the guard is
// checked on the row as it is, and the lock is held for this statement
// only. The statement counts the hold on the row and marks it counted, so
// the trigger does not count it again; the commit is lazy, as PutHold's.
// The bound on expiries keeps the counter exact: were a hold expired, the
// transactional path deletes it.
func (s *Store) PlaceHold(ctx context.Context, h ports.Hold, g ports.HoldGuard) (bool, error) {
	return s.eng.placeHold(ctx, h, g)
}

const placeHoldSQL = `WITH placed AS (UPDATE accounts SET held = held + ?::bigint,
		holds_expire_from = LEAST(COALESCE(holds_expire_from, ?::bigint), ?::bigint)
	WHERE id = ? AND plan = ? AND plan_anchor IS NOT DISTINCT FROM ?::bigint AND period_start IS NOT DISTINCT FROM ?::bigint
		AND (holds_expire_from IS NULL OR holds_expire_from > ?::bigint)
		AND GREATEST(?::bigint - allowance_used, 0) + topup - held >= ?::bigint
	RETURNING id)
	INSERT INTO holds (id, account_id, token_id, amount, created_at, expires_at, counted)
	SELECT ?::text, placed.id, ?::bigint, ?::bigint, ?::bigint, ?::bigint, true
	FROM placed, (SELECT set_config('synchronous_commit', 'off', true)) AS lazy`

// finish takes the lock if nothing did (the account must exist), writes
// what still waits and chooses how the commit waits.
func (l *ledgerTx) finish() error {
	if err := l.lock(); err != nil {
		return err
	}
	if err := l.flush(); err != nil {
		return err
	}
	return l.commitLazily()
}

// commitLazily lets PostgreSQL acknowledge the commit of a transaction that
// only placed, shrank or dropped holds before its WAL reaches the disk. A
// hold is a reservation, never money: lost in a database crash, a call
// whose hold is gone is still charged only if its settle finds the balance
// (less the other holds) covering it, and a release that is lost leaves a
// hold that stops counting when it expires; so the balance can never go
// negative, and nothing is charged twice or charged for a failed call.
// Whatever writes money (the credit row, a transaction, a paid checkout)
// commits durably; it also makes every earlier lazy commit durable, the
// WAL being flushed in order.
func (l *ledgerTx) commitLazily() error {
	if l.durable == !l.lazy {
		return nil
	}
	setting := "OFF"
	if l.durable {
		setting = "ON" // money written after a hold was placed
	}
	_, err := l.tx.ExecContext(l.ctx, `SET LOCAL synchronous_commit TO `+setting)
	return err
}

// ledgerTx is the locked view of one account on PostgreSQL. Two writes
// wait for the next statement so that they can ride on it (one round trip
// instead of two): the credit row saved by SaveState is written with the
// next transaction inserted, and the expired holds deleted by
// DeleteExpiredHolds go with the next read of the held amount. Whatever
// still waits when the work is done is written before the commit; a
// statement about the holds first writes the deletion it would otherwise
// not see.
type ledgerTx struct {
	s         *Store
	ctx       context.Context
	tx        execer
	accountID int64
	// locked: the row is locked and state, held and expireFrom were read
	// with the lock (and kept up to date since).
	locked bool
	state  ports.CreditState
	// held is what the account's holds reserve, expired ones included;
	// heldUnknown: a change of unknown size was made since (UpdateHold).
	held        int64
	heldUnknown bool
	// expireFrom: no hold of the account expires before it (ms; invalid:
	// there are no holds).
	expireFrom sql.NullInt64
	// unsaved: state is not written yet; expiredAt: the holds expired at
	// this instant are not deleted yet.
	unsaved   bool
	expiredAt *time.Time
	// durable: money was written (the credit row, a transaction, a paid
	// checkout), so the commit waits for the disk. lazy: a statement
	// already told PostgreSQL not to wait (PutHold).
	durable, lazy bool
	// recheckToken: DropHold checked this token before the lock was
	// granted, so the charge checks it again (0: no need).
	recheckToken int64
	// err is a failure met by a method that cannot return one (State).
	err error
}

// lockedRow is the credit row with what its holds reserve.
type lockedRow struct {
	accountRow
	Held       int64         `db:"held"`
	ExpireFrom sql.NullInt64 `db:"holds_expire_from"`
}

func (l *ledgerTx) setLocked(r lockedRow) {
	l.locked, l.state, l.held, l.expireFrom = true, r.credits(), r.Held, r.ExpireFrom
}

// lock takes the row lock, unless the view holds it.
func (l *ledgerTx) lock() error {
	if l.locked {
		return nil
	}
	var r lockedRow
	if err := l.tx.GetContext(l.ctx, &r, l.s.q(`SELECT `+accountCols+`, held, holds_expire_from FROM accounts WHERE id = ? FOR UPDATE`), l.accountID); err != nil {
		return err
	}
	l.setLocked(r)
	return nil
}

func (l *ledgerTx) State() ports.CreditState {
	if !l.locked && l.err == nil {
		l.err = l.lock()
	}
	return l.state
}

const saveStateSQL = `UPDATE accounts SET plan = ?, plan_anchor = ?, period_start = ?, used = ?, allowance_used = ?, topup = ?, updated_at = ? WHERE id = ?`

func (l *ledgerTx) stateArgs() []any { return stateArgs(l.state) }

func stateArgs(c ports.CreditState) []any {
	return []any{c.Plan, msPtr(c.PlanAnchor), msPtr(c.PeriodStart), c.Used, c.AllowanceUsed, c.TopUp, ms(time.Now()), c.AccountID}
}

// SaveState keeps c as the credit row, written with the next transaction
// or before the commit.
func (l *ledgerTx) SaveState(c ports.CreditState) error {
	if err := l.lock(); err != nil {
		return err
	}
	c.AccountID = l.accountID
	l.state, l.unsaved, l.durable = c, true, true
	return nil
}

// flush writes what still waits.
func (l *ledgerTx) flush() error {
	if err := l.deleteExpired(); err != nil {
		return err
	}
	if !l.unsaved {
		return nil
	}
	if err := l.recheck(); err != nil {
		return err
	}
	if _, err := l.tx.ExecContext(l.ctx, l.s.q(saveStateSQL), l.stateArgs()...); err != nil {
		return err
	}
	l.unsaved = false
	return nil
}

// recheck checks again, now under the lock, a token DropHold checked
// before it: a token deleted meanwhile charges nothing.
func (l *ledgerTx) recheck() error {
	if l.recheckToken == 0 {
		return nil
	}
	live, err := l.TokenLive(l.recheckToken)
	if err != nil {
		return err
	}
	if !live {
		return errTokenGone
	}
	l.recheckToken = 0
	return nil
}

// errTokenGone: the token of a call was deleted before its charge.
var errTokenGone = failure.E("sqlstore.AddTransaction", failure.Unauthenticated, "Unauthenticated.")

// counted reports whether held is what the holds not expired at now
// reserve: no hold can have expired by now and no change went uncounted.
func (l *ledgerTx) counted(now time.Time) bool {
	return !l.heldUnknown && (!l.expireFrom.Valid || l.expireFrom.Int64 > ms(now))
}

func (l *ledgerTx) HeldAmount(now time.Time) (int64, error) {
	if err := l.lock(); err != nil {
		return 0, err
	}
	if l.expiredAt != nil && !l.expiredAt.After(now) && l.counted(*l.expiredAt) {
		l.expiredAt = nil // none expired by then: nothing to delete
	}
	if l.expiredAt == nil && l.counted(now) {
		return l.held, nil
	}
	if err := l.deleteExpired(); err != nil {
		return 0, err
	}
	if l.counted(now) {
		return l.held, nil
	}
	var n int64
	err := l.tx.GetContext(l.ctx, &n, l.s.q(`SELECT COALESCE(SUM(amount), 0) FROM holds WHERE account_id = ? AND expires_at > ?`), l.accountID, ms(now))
	return n, err
}

// DeleteExpiredHolds deletes the account's holds expired at now, with the
// next read of the held amount or before any other statement about them.
func (l *ledgerTx) DeleteExpiredHolds(now time.Time) error {
	if err := l.lock(); err != nil {
		return err
	}
	if l.expiredAt != nil && l.expiredAt.After(now) {
		return nil // a later instant is already waiting
	}
	l.expiredAt = &now
	return nil
}

// deleteExpired deletes the holds expired at the waiting instant, if any
// can have, and moves the expiry bound to the first hold left.
func (l *ledgerTx) deleteExpired() error {
	if l.expiredAt == nil {
		return nil
	}
	at := ms(*l.expiredAt)
	l.expiredAt = nil
	if !l.heldUnknown && (!l.expireFrom.Valid || l.expireFrom.Int64 > at) {
		return nil
	}
	var r struct {
		Deleted    int64         `db:"deleted"`
		ExpireFrom sql.NullInt64 `db:"expire_from"`
	}
	err := l.tx.GetContext(l.ctx, &r, l.s.q(`WITH expired AS (DELETE FROM holds WHERE account_id = ? AND expires_at <= ? RETURNING amount)
		UPDATE accounts SET holds_expire_from = (SELECT MIN(expires_at) FROM holds WHERE account_id = ? AND expires_at > ?)
		WHERE id = ? RETURNING (SELECT COALESCE(SUM(amount), 0) FROM expired) AS deleted, holds_expire_from AS expire_from`),
		l.accountID, at, l.accountID, at, l.accountID)
	if err != nil {
		return err
	}
	l.held -= r.Deleted
	l.expireFrom = r.ExpireFrom
	return nil
}

// PutHold inserts a hold (the trigger counts it). The insert also lets the
// commit be lazy (commitLazily), unless money was written.
func (l *ledgerTx) PutHold(h ports.Hold) error {
	if err := l.lock(); err != nil {
		return err
	}
	if err := l.deleteExpired(); err != nil {
		return err
	}
	args := []any{h.ID, l.accountID, h.TokenID, h.Amount, ms(h.CreatedAt), ms(h.ExpiresAt)}
	var err error
	if !l.durable {
		_, err = l.tx.ExecContext(l.ctx, l.s.q(`INSERT INTO holds (id, account_id, token_id, amount, created_at, expires_at)
			SELECT ?::text, ?::bigint, ?::bigint, ?::bigint, ?::bigint, ?::bigint FROM (SELECT set_config('synchronous_commit', 'off', true)) AS lazy`), args...)
		if err == nil {
			l.lazy = true
		}
	} else {
		_, err = l.tx.ExecContext(l.ctx, l.s.q(`INSERT INTO holds (id, account_id, token_id, amount, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)`), args...)
	}
	if err != nil {
		return err
	}
	l.held += h.Amount
	if exp := ms(h.ExpiresAt); !l.expireFrom.Valid || exp < l.expireFrom.Int64 {
		l.expireFrom = sql.NullInt64{Int64: exp, Valid: true}
	}
	return nil
}

type holdRow struct {
	ID        string `db:"id"`
	AccountID int64  `db:"account_id"`
	TokenID   int64  `db:"token_id"`
	Amount    int64  `db:"amount"`
	CreatedAt int64  `db:"created_at"`
	ExpiresAt int64  `db:"expires_at"`
}

func (l *ledgerTx) Hold(id string) (ports.Hold, error) {
	if err := l.lock(); err != nil {
		return ports.Hold{}, err
	}
	if err := l.deleteExpired(); err != nil {
		return ports.Hold{}, err
	}
	var r holdRow
	err := l.tx.GetContext(l.ctx, &r, l.s.q(`SELECT id, account_id, token_id, amount, created_at, expires_at FROM holds WHERE id = ? AND account_id = ?`), id, l.accountID)
	if err != nil {
		return ports.Hold{}, notFound(l.ctx, "sqlstore.Hold", "hold", err)
	}
	return ports.Hold{ID: r.ID, AccountID: r.AccountID, TokenID: r.TokenID, Amount: r.Amount, CreatedAt: fromMS(r.CreatedAt), ExpiresAt: fromMS(r.ExpiresAt), Durable: true}, nil
}

func (l *ledgerTx) DeleteHold(id string) error {
	if err := l.lock(); err != nil {
		return err
	}
	if err := l.deleteExpired(); err != nil {
		return err
	}
	var amount int64
	err := l.tx.GetContext(l.ctx, &amount, l.s.q(`DELETE FROM holds WHERE id = ? AND account_id = ? RETURNING amount`), id, l.accountID)
	if err != nil {
		return notFound(l.ctx, "sqlstore.DeleteHold", "hold", err)
	}
	l.held -= amount
	return nil
}

func (l *ledgerTx) UpdateHold(id string, amount int64) error {
	if err := l.lock(); err != nil {
		return err
	}
	if err := l.deleteExpired(); err != nil {
		return err
	}
	res, err := l.tx.ExecContext(l.ctx, l.s.q(`UPDATE holds SET amount = ? WHERE id = ? AND account_id = ?`), amount, id, l.accountID)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return failure.E("sqlstore.UpdateHold", failure.NotFound, "hold not found")
	}
	l.heldUnknown = true // the sums read the holds from now on
	return nil
}

func (l *ledgerTx) Charged(key string) (bool, error) {
	if err := l.lock(); err != nil {
		return false, err
	}
	return charged(l.ctx, l.s, l.tx, l.accountID, key)
}

// charged reports whether the account has a transaction of key.
func charged(ctx context.Context, s *Store, x execer, accountID int64, key string) (bool, error) {
	var n int
	err := x.GetContext(ctx, &n, s.q(`SELECT COUNT(*) FROM transactions WHERE account_id = ? AND charge_key = ?`), accountID, key)
	return n > 0, err
}

func (l *ledgerTx) TokenLive(tokenID int64) (bool, error) {
	if err := l.lock(); err != nil {
		return false, err
	}
	return tokenLive(l.ctx, l.s, l.tx, l.accountID, tokenID)
}

// tokenLive reports whether the token is the account's and not deleted.
func tokenLive(ctx context.Context, s *Store, x execer, accountID, tokenID int64) (bool, error) {
	var n int
	err := x.GetContext(ctx, &n, s.q(`SELECT COUNT(*) FROM tokens WHERE id = ? AND account_id = ?`), tokenID, accountID)
	return n > 0, err
}

// DropHold deletes the hold, checks the token and tells what the other
// live holds reserve. As the view's first statement it also takes the row
// lock: the lock is granted before the hold is deleted, but the token is
// read as it was when the statement began, before any wait for the lock,
// so the charge checks the token again under the lock, with the credit row
// it writes (recheck).
func (l *ledgerTx) DropHold(holdID string, tokenID int64, now time.Time) (bool, int64, error) {
	var dropped, live int64
	if !l.locked {
		var r struct {
			lockedRow
			Dropped int64 `db:"dropped"`
			Live    int64 `db:"live"`
		}
		err := l.tx.GetContext(l.ctx, &r, l.s.q(`WITH acct AS (SELECT `+accountCols+`, held, holds_expire_from FROM accounts WHERE id = ? FOR UPDATE),
			dropped AS (DELETE FROM holds WHERE id = ? AND account_id = (SELECT id FROM acct) RETURNING amount)
			SELECT acct.*, COALESCE((SELECT amount FROM dropped), 0) AS dropped,
				CASE WHEN ?::bigint = 0 OR EXISTS (SELECT 1 FROM tokens WHERE id = ? AND account_id = acct.id) THEN 1 ELSE 0 END AS live
			FROM acct`), l.accountID, holdID, tokenID, tokenID)
		if err != nil {
			return false, 0, err
		}
		l.setLocked(r.lockedRow)
		dropped, live = r.Dropped, r.Live
		if live == 1 && tokenID != 0 {
			l.recheckToken = tokenID
		}
	} else {
		if err := l.deleteExpired(); err != nil {
			return false, 0, err
		}
		var r struct {
			Dropped int64 `db:"dropped"`
			Live    int64 `db:"live"`
		}
		err := l.tx.GetContext(l.ctx, &r, l.s.q(`WITH dropped AS (DELETE FROM holds WHERE id = ? AND account_id = ? RETURNING amount)
			SELECT COALESCE((SELECT amount FROM dropped), 0) AS dropped,
				CASE WHEN ?::bigint = 0 OR EXISTS (SELECT 1 FROM tokens WHERE id = ? AND account_id = ?) THEN 1 ELSE 0 END AS live`),
			holdID, l.accountID, tokenID, tokenID, l.accountID)
		if err != nil {
			return false, 0, err
		}
		dropped, live = r.Dropped, r.Live
	}
	l.held -= dropped
	held, err := l.HeldAmount(now)
	return live == 1, held, err
}

func (l *ledgerTx) AddTransaction(t ports.Transaction) (ports.Transaction, error) {
	if err := l.lock(); err != nil {
		return t, err
	}
	l.durable = true
	if err := l.deleteExpired(); err != nil {
		return t, err
	}
	if !l.unsaved {
		if err := l.recheck(); err != nil {
			return t, err
		}
		return addTransaction(l.ctx, l.s, l.tx, l.accountID, t)
	}
	// The credit row and the transaction in one statement, the row written
	// only while the token rechecked is live (0: no recheck).
	meta, err := json.Marshal(t.Metadata)
	if err != nil {
		return t, err
	}
	t.AccountID = l.accountID
	err = l.tx.GetContext(l.ctx, &t.ID, l.s.q(`WITH saved AS (`+saveStateSQL+`
			AND (?::bigint = 0 OR EXISTS (SELECT 1 FROM tokens WHERE id = ? AND account_id = ?)) RETURNING id)
		INSERT INTO transactions (account_id, service_type, service_name, credits, balance_after, created_at, metadata, charge_key)
		SELECT id, ?, ?, ?, ?, ?, ?, ? FROM saved RETURNING id`),
		append(l.stateArgs(), l.recheckToken, l.recheckToken, l.accountID,
			t.ServiceType, t.ServiceName, t.Credits, t.BalanceAfter, ms(t.CreatedAt), string(meta), chargeKey(t.ChargeKey))...)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return t, errTokenGone // the row is always there: the token is not
	case isUnique(err):
		return t, failure.E("sqlstore.AddTransaction", failure.Conflict, "already charged")
	case err != nil:
		return t, err
	}
	l.unsaved, l.recheckToken = false, 0
	t.CreatedAt = fromMS(ms(t.CreatedAt))
	return t, nil
}

func chargeKey(key string) sql.NullString {
	return sql.NullString{String: key, Valid: key != ""}
}

// addTransaction inserts t as a transaction of the account.
func addTransaction(ctx context.Context, s *Store, x execer, accountID int64, t ports.Transaction) (ports.Transaction, error) {
	meta, err := json.Marshal(t.Metadata)
	if err != nil {
		return t, err
	}
	t.AccountID = accountID
	err = x.GetContext(ctx, &t.ID, s.q(insertTransactionSQL),
		t.AccountID, t.ServiceType, t.ServiceName, t.Credits, t.BalanceAfter, ms(t.CreatedAt), string(meta), chargeKey(t.ChargeKey))
	if isUnique(err) {
		return t, failure.E("sqlstore.AddTransaction", failure.Conflict, "already charged")
	}
	t.CreatedAt = fromMS(ms(t.CreatedAt))
	return t, err
}

func (l *ledgerTx) MarkCheckoutPaid(sessionID string, at time.Time) (bool, error) {
	if err := l.lock(); err != nil {
		return false, err
	}
	l.durable = true
	return markCheckoutPaid(l.ctx, l.s, l.tx, l.accountID, sessionID, at)
}

// FinishCrawlPage writes a crawl page's outcome after the account's lock:
// credits, then the crawl's row (lockCrawlSeq), in every transaction that
// takes both.
func (l *ledgerTx) FinishCrawlPage(o ports.CrawlOutcome) error {
	if err := l.lock(); err != nil {
		return err
	}
	_, err := l.s.finishCrawlPage(l.ctx, l.tx, o)
	return err
}

func markCheckoutPaid(ctx context.Context, s *Store, x execer, accountID int64, sessionID string, at time.Time) (bool, error) {
	res, err := x.ExecContext(ctx, s.q(`UPDATE checkout_sessions SET paid_at = ? WHERE id = ? AND account_id = ? AND paid_at IS NULL`),
		ms(at), sessionID, accountID)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

const insertTransactionSQL = `INSERT INTO transactions (account_id, service_type, service_name, credits, balance_after, created_at, metadata, charge_key)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`

type transactionRow struct {
	ID           int64  `db:"id"`
	AccountID    int64  `db:"account_id"`
	ServiceType  string `db:"service_type"`
	ServiceName  string `db:"service_name"`
	Credits      int64  `db:"credits"`
	BalanceAfter int64  `db:"balance_after"`
	CreatedAt    int64  `db:"created_at"`
	Metadata     string `db:"metadata"`
}

// Transactions lists newest first.
func (s *Store) Transactions(ctx context.Context, accountID int64, limit, offset int) ([]ports.Transaction, int, error) {
	const op = "sqlstore.Transactions"
	var total int
	if err := s.x().GetContext(ctx, &total, s.q(`SELECT COUNT(*) FROM transactions WHERE account_id = ?`), accountID); err != nil {
		return nil, 0, fail(ctx, op, err)
	}
	var rows []transactionRow
	err := s.x().SelectContext(ctx, &rows, s.q(`SELECT id, account_id, service_type, service_name, credits, balance_after, created_at, metadata
		FROM transactions WHERE account_id = ? ORDER BY id DESC LIMIT ? OFFSET ?`), accountID, limit, offset)
	if err != nil {
		return nil, 0, fail(ctx, op, err)
	}
	out := make([]ports.Transaction, len(rows))
	for i, r := range rows {
		out[i] = ports.Transaction{ID: r.ID, AccountID: r.AccountID, ServiceType: r.ServiceType, ServiceName: r.ServiceName,
			Credits: r.Credits, BalanceAfter: r.BalanceAfter, CreatedAt: fromMS(r.CreatedAt)}
		_ = json.Unmarshal([]byte(r.Metadata), &out[i].Metadata)
	}
	return out, total, nil
}

// ReadCredits reads the credit row and the live holds without locking, in
// one statement (on SQLite the holds are in memory).
func (s *Store) ReadCredits(ctx context.Context, accountID int64, now time.Time) (ports.CreditState, int64, error) {
	return s.eng.readCredits(ctx, accountID, now)
}

// CreateCheckoutSession stores a new checkout session.
func (s *Store) CreateCheckoutSession(ctx context.Context, cs ports.CheckoutSession) error {
	_, err := s.w().ExecContext(ctx, s.q(`INSERT INTO checkout_sessions (id, account_id, credits, amount_cents, currency, created_at) VALUES (?, ?, ?, ?, ?, ?)`),
		cs.ID, cs.AccountID, cs.Credits, cs.AmountCents, cs.Currency, ms(cs.CreatedAt))
	if isUnique(err) {
		return failure.E("sqlstore.CreateCheckoutSession", failure.Conflict, "session exists")
	}
	return fail(ctx, "sqlstore.CreateCheckoutSession", err)
}

type sessionRow struct {
	ID          string        `db:"id"`
	AccountID   int64         `db:"account_id"`
	Credits     int64         `db:"credits"`
	AmountCents int64         `db:"amount_cents"`
	Currency    string        `db:"currency"`
	CreatedAt   int64         `db:"created_at"`
	PaidAt      sql.NullInt64 `db:"paid_at"`
}

// CheckoutSession finds a checkout session.
func (s *Store) CheckoutSession(ctx context.Context, id string) (ports.CheckoutSession, error) {
	var r sessionRow
	err := s.x().GetContext(ctx, &r, s.q(`SELECT id, account_id, credits, amount_cents, currency, created_at, paid_at FROM checkout_sessions WHERE id = ?`), id)
	if err != nil {
		return ports.CheckoutSession{}, notFound(ctx, "sqlstore.CheckoutSession", "checkout session", err)
	}
	return ports.CheckoutSession{ID: r.ID, AccountID: r.AccountID, Credits: r.Credits, AmountCents: r.AmountCents,
		Currency: r.Currency, CreatedAt: fromMS(r.CreatedAt), PaidAt: timePtr(r.PaidAt)}, nil
}
