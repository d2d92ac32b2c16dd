package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"

	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/ports"
)

// WithCredits runs fn with the account row locked (FOR UPDATE on Postgres,
// an IMMEDIATE transaction on SQLite).
func (s *Store) WithCredits(ctx context.Context, accountID int64, fn func(ports.LedgerTx) error) error {
	const op = "sqlstore.WithCredits"
	ctx, cancel := s.bounded(ctx)
	defer cancel()
	if s.dialect == SQLite {
		return s.withCreditsSQLite(ctx, accountID, fn)
	}
	return fail(ctx, op, s.inTx(ctx, func(tx execer) error {
		row, err := s.lockAccount(ctx, tx, accountID)
		if err != nil {
			return notFound(ctx, op, "account", err)
		}
		l := &ledgerTx{s: s, ctx: ctx, tx: tx, state: row.credits()}
		if err := fn(l); err != nil {
			return err
		}
		return l.finish()
	}))
}

// finish writes what still waits and chooses how the commit waits.
func (l *ledgerTx) finish() error {
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
// WAL being flushed in order. SQLite commits in WAL mode with
// synchronous=NORMAL do not wait for the disk either way.
func (l *ledgerTx) commitLazily() error {
	if l.s.dialect != Postgres || l.durable == !l.lazy {
		return nil
	}
	setting := "OFF"
	if l.durable {
		setting = "ON" // money written after a hold was placed
	}
	_, err := l.tx.ExecContext(l.ctx, `SET LOCAL synchronous_commit TO `+setting)
	return err
}

// ledgerTx is the locked view of one account. Two writes wait for the next
// statement so that they can ride on it (on PostgreSQL, one round trip
// instead of two): the credit row saved by SaveState is written with the
// next transaction inserted, and the expired holds deleted by
// DeleteExpiredHolds go with the next sum of the holds. Whatever still waits
// when the work is done is written before the commit; a statement about the
// holds first writes the deletion it would otherwise not see.
type ledgerTx struct {
	s     *Store
	ctx   context.Context
	tx    execer
	state ports.CreditState
	// unsaved: state is not written yet; expiredAt: the holds expired at
	// this instant are not deleted yet.
	unsaved   bool
	expiredAt *time.Time
	// durable: money was written (the credit row, a transaction, a paid
	// checkout), so the commit waits for the disk. lazy: a statement
	// already told PostgreSQL not to wait (PutHold).
	durable, lazy bool
}

func (l *ledgerTx) State() ports.CreditState { return l.state }

const saveStateSQL = `UPDATE accounts SET plan = ?, plan_anchor = ?, period_start = ?, used = ?, allowance_used = ?, topup = ?, updated_at = ? WHERE id = ?`

func (l *ledgerTx) stateArgs() []any { return stateArgs(l.state) }

func stateArgs(c ports.CreditState) []any {
	return []any{c.Plan, msPtr(c.PlanAnchor), msPtr(c.PeriodStart), c.Used, c.AllowanceUsed, c.TopUp, ms(time.Now()), c.AccountID}
}

// SaveState keeps c as the credit row, written with the next transaction
// or before the commit.
func (l *ledgerTx) SaveState(c ports.CreditState) error {
	c.AccountID = l.state.AccountID
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
	if _, err := l.tx.ExecContext(l.ctx, l.s.q(saveStateSQL), l.stateArgs()...); err != nil {
		return err
	}
	l.unsaved = false
	return nil
}

func (l *ledgerTx) HeldAmount(now time.Time) (int64, error) {
	var n int64
	if l.expiredAt != nil && l.expiredAt.Equal(now) && l.s.dialect == Postgres {
		// The sum reads the holds as they were before the deletion, but a
		// hold expired at now is not summed anyway.
		err := l.tx.GetContext(l.ctx, &n, l.s.q(`WITH expired AS (DELETE FROM holds WHERE account_id = ? AND expires_at <= ?)
			SELECT COALESCE(SUM(amount), 0) FROM holds WHERE account_id = ? AND expires_at > ?`), l.state.AccountID, ms(now), l.state.AccountID, ms(now))
		if err == nil {
			l.expiredAt = nil
		}
		return n, err
	}
	if err := l.deleteExpired(); err != nil {
		return 0, err
	}
	err := l.tx.GetContext(l.ctx, &n, l.s.q(`SELECT COALESCE(SUM(amount), 0) FROM holds WHERE account_id = ? AND expires_at > ?`), l.state.AccountID, ms(now))
	return n, err
}

// DeleteExpiredHolds deletes the account's holds expired at now, with the
// next sum of the holds or before any other statement about them.
func (l *ledgerTx) DeleteExpiredHolds(now time.Time) error {
	if l.expiredAt != nil && l.expiredAt.After(now) {
		return nil // a later instant is already waiting
	}
	l.expiredAt = &now
	return nil
}

func (l *ledgerTx) deleteExpired() error {
	if l.expiredAt == nil {
		return nil
	}
	if _, err := l.tx.ExecContext(l.ctx, l.s.q(`DELETE FROM holds WHERE account_id = ? AND expires_at <= ?`), l.state.AccountID, ms(*l.expiredAt)); err != nil {
		return err
	}
	l.expiredAt = nil
	return nil
}

// PutHold inserts a hold. On PostgreSQL the insert also lets the commit be
// lazy (commitLazily), unless money was written.
func (l *ledgerTx) PutHold(h ports.Hold) error {
	if err := l.deleteExpired(); err != nil {
		return err
	}
	args := []any{h.ID, h.AccountID, h.TokenID, h.Amount, ms(h.CreatedAt), ms(h.ExpiresAt)}
	if l.s.dialect == Postgres && !l.durable {
		_, err := l.tx.ExecContext(l.ctx, l.s.q(`INSERT INTO holds (id, account_id, token_id, amount, created_at, expires_at)
			SELECT ?::text, ?::bigint, ?::bigint, ?::bigint, ?::bigint, ?::bigint FROM (SELECT set_config('synchronous_commit', 'off', true)) AS lazy`), args...)
		if err == nil {
			l.lazy = true
		}
		return err
	}
	_, err := l.tx.ExecContext(l.ctx, l.s.q(`INSERT INTO holds (id, account_id, token_id, amount, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)`), args...)
	return err
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
	if err := l.deleteExpired(); err != nil {
		return ports.Hold{}, err
	}
	var r holdRow
	err := l.tx.GetContext(l.ctx, &r, l.s.q(`SELECT id, account_id, token_id, amount, created_at, expires_at FROM holds WHERE id = ? AND account_id = ?`), id, l.state.AccountID)
	if err != nil {
		return ports.Hold{}, notFound(l.ctx, "sqlstore.Hold", "hold", err)
	}
	return ports.Hold{ID: r.ID, AccountID: r.AccountID, TokenID: r.TokenID, Amount: r.Amount, CreatedAt: fromMS(r.CreatedAt), ExpiresAt: fromMS(r.ExpiresAt)}, nil
}

func (l *ledgerTx) DeleteHold(id string) error {
	if err := l.deleteExpired(); err != nil {
		return err
	}
	res, err := l.tx.ExecContext(l.ctx, l.s.q(`DELETE FROM holds WHERE id = ? AND account_id = ?`), id, l.state.AccountID)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return failure.E("sqlstore.DeleteHold", failure.NotFound, "hold not found")
	}
	return nil
}

func (l *ledgerTx) UpdateHold(id string, amount int64) error {
	if err := l.deleteExpired(); err != nil {
		return err
	}
	res, err := l.tx.ExecContext(l.ctx, l.s.q(`UPDATE holds SET amount = ? WHERE id = ? AND account_id = ?`), amount, id, l.state.AccountID)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return failure.E("sqlstore.UpdateHold", failure.NotFound, "hold not found")
	}
	return nil
}

func (l *ledgerTx) Charged(key string) (bool, error) {
	var n int
	err := l.tx.GetContext(l.ctx, &n, l.s.q(`SELECT COUNT(*) FROM transactions WHERE account_id = ? AND charge_key = ?`), l.state.AccountID, key)
	return n > 0, err
}

func (l *ledgerTx) TokenLive(tokenID int64) (bool, error) {
	var n int
	err := l.tx.GetContext(l.ctx, &n, l.s.q(`SELECT COUNT(*) FROM tokens WHERE id = ? AND account_id = ?`), tokenID, l.state.AccountID)
	return n > 0, err
}

// DropHold deletes the hold, checks the token and sums the other live holds:
// one statement on PostgreSQL (its sum reads the holds as they were before
// the deletion, so it leaves the dropped hold out by its id).
func (l *ledgerTx) DropHold(holdID string, tokenID int64, now time.Time) (bool, int64, error) {
	if err := l.deleteExpired(); err != nil {
		return false, 0, err
	}
	var r struct {
		Live int64 `db:"live"`
		Held int64 `db:"held"`
	}
	if l.s.dialect == Postgres {
		err := l.tx.GetContext(l.ctx, &r, l.s.q(`WITH dropped AS (DELETE FROM holds WHERE id = ? AND account_id = ?)
			SELECT CASE WHEN ? = 0 OR EXISTS (SELECT 1 FROM tokens WHERE id = ? AND account_id = ?) THEN 1 ELSE 0 END AS live,
				(SELECT COALESCE(SUM(amount), 0) FROM holds WHERE account_id = ? AND expires_at > ? AND id <> ?) AS held`),
			holdID, l.state.AccountID, tokenID, tokenID, l.state.AccountID, l.state.AccountID, ms(now), holdID)
		return r.Live == 1, r.Held, err
	}
	if _, err := l.tx.ExecContext(l.ctx, l.s.q(`DELETE FROM holds WHERE id = ? AND account_id = ?`), holdID, l.state.AccountID); err != nil {
		return false, 0, err
	}
	err := l.tx.GetContext(l.ctx, &r, l.s.q(`SELECT CASE WHEN ? = 0 OR EXISTS (SELECT 1 FROM tokens WHERE id = ? AND account_id = ?) THEN 1 ELSE 0 END AS live,
		(SELECT COALESCE(SUM(amount), 0) FROM holds WHERE account_id = ? AND expires_at > ?) AS held`),
		tokenID, tokenID, l.state.AccountID, l.state.AccountID, ms(now))
	return r.Live == 1, r.Held, err
}

func (l *ledgerTx) AddTransaction(t ports.Transaction) (ports.Transaction, error) {
	l.durable = true
	if l.unsaved && l.s.dialect == Postgres {
		// The credit row and the transaction in one statement.
		meta, err := json.Marshal(t.Metadata)
		if err != nil {
			return t, err
		}
		t.AccountID = l.state.AccountID
		err = l.tx.GetContext(l.ctx, &t.ID, l.s.q(`WITH saved AS (`+saveStateSQL+` RETURNING id)
			INSERT INTO transactions (account_id, service_type, service_name, credits, balance_after, created_at, metadata, charge_key)
			VALUES ((SELECT id FROM saved), ?, ?, ?, ?, ?, ?, ?) RETURNING id`),
			append(l.stateArgs(), t.ServiceType, t.ServiceName, t.Credits, t.BalanceAfter, ms(t.CreatedAt), string(meta), chargeKey(t.ChargeKey))...)
		if err == nil {
			l.unsaved = false
		}
		if isUnique(err) {
			return t, failure.E("sqlstore.AddTransaction", failure.Conflict, "already charged")
		}
		t.CreatedAt = fromMS(ms(t.CreatedAt))
		return t, err
	}
	if err := l.flush(); err != nil {
		return t, err
	}
	return addTransaction(l.ctx, l.s, l.tx, l.state.AccountID, t)
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
	l.durable = true
	return markCheckoutPaid(l.ctx, l.s, l.tx, l.state.AccountID, sessionID, at)
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
	ctx, cancel := s.bounded(ctx)
	defer cancel()
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
	const op = "sqlstore.ReadCredits"
	ctx, cancel := s.bounded(ctx)
	defer cancel()
	if s.dialect == SQLite {
		if err := s.holds.load(ctx, s); err != nil {
			return ports.CreditState{}, 0, fail(ctx, op, err)
		}
		var r accountRow
		if err := s.x().GetContext(ctx, &r, s.q(`SELECT `+accountCols+` FROM accounts WHERE id = ?`), accountID); err != nil {
			return ports.CreditState{}, 0, notFound(ctx, op, "account", err)
		}
		return r.credits(), s.holds.held(accountID, now), nil
	}
	var r struct {
		accountRow
		Held int64 `db:"held"`
	}
	err := s.x().GetContext(ctx, &r, s.q(`SELECT `+accountCols+`, (SELECT COALESCE(SUM(amount), 0) FROM holds WHERE account_id = accounts.id AND expires_at > ?) AS held
		FROM accounts WHERE id = ?`), ms(now), accountID)
	if err != nil {
		return ports.CreditState{}, 0, notFound(ctx, op, "account", err)
	}
	return r.credits(), r.Held, nil
}

// CreateCheckoutSession stores a new checkout session.
func (s *Store) CreateCheckoutSession(ctx context.Context, cs ports.CheckoutSession) error {
	ctx, cancel := s.bounded(ctx)
	defer cancel()
	_, err := s.x().ExecContext(ctx, s.q(`INSERT INTO checkout_sessions (id, account_id, credits, amount_cents, currency, created_at) VALUES (?, ?, ?, ?, ?, ?)`),
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
	ctx, cancel := s.bounded(ctx)
	defer cancel()
	var r sessionRow
	err := s.x().GetContext(ctx, &r, s.q(`SELECT id, account_id, credits, amount_cents, currency, created_at, paid_at FROM checkout_sessions WHERE id = ?`), id)
	if err != nil {
		return ports.CheckoutSession{}, notFound(ctx, "sqlstore.CheckoutSession", "checkout session", err)
	}
	return ports.CheckoutSession{ID: r.ID, AccountID: r.AccountID, Credits: r.Credits, AmountCents: r.AmountCents,
		Currency: r.Currency, CreatedAt: fromMS(r.CreatedAt), PaidAt: timePtr(r.PaidAt)}, nil
}
