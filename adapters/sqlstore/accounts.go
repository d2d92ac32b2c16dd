package sqlstore

import (
	"context"
	"database/sql"

	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/ports"
)

type accountRow struct {
	ID              int64         `db:"id"`
	Name            string        `db:"name"`
	Email           string        `db:"email"`
	EmailVerifiedAt sql.NullInt64 `db:"email_verified_at"`
	CreatedAt       int64         `db:"created_at"`
	UpdatedAt       int64         `db:"updated_at"`
	Plan            string        `db:"plan"`
	PlanAnchor      sql.NullInt64 `db:"plan_anchor"`
	PeriodStart     sql.NullInt64 `db:"period_start"`
	Used            int64         `db:"used"`
	AllowanceUsed   int64         `db:"allowance_used"`
	TopUp           int64         `db:"topup"`
}

const accountCols = `id, name, email, email_verified_at, created_at, updated_at, plan, plan_anchor, period_start, used, allowance_used, topup`

func (r accountRow) account() ports.Account {
	return ports.Account{
		ID: r.ID, Name: r.Name, Email: r.Email, Plan: r.Plan,
		EmailVerifiedAt: timePtr(r.EmailVerifiedAt),
		CreatedAt:       fromMS(r.CreatedAt), UpdatedAt: fromMS(r.UpdatedAt),
	}
}

func (r accountRow) credits() ports.CreditState {
	return ports.CreditState{
		AccountID: r.ID, Plan: r.Plan,
		PlanAnchor: timePtr(r.PlanAnchor), PeriodStart: timePtr(r.PeriodStart),
		Used: r.Used, AllowanceUsed: r.AllowanceUsed, TopUp: r.TopUp,
	}
}

// CreateAccount inserts an account; its plan period starts at CreatedAt.
func (s *Store) CreateAccount(ctx context.Context, a ports.Account) (ports.Account, error) {
	const op = "sqlstore.CreateAccount"
	var anchor sql.NullInt64
	if a.Plan != "" {
		anchor = sql.NullInt64{Int64: ms(a.CreatedAt), Valid: true}
	}
	var id int64
	err := s.w().GetContext(ctx, &id, s.q(`INSERT INTO accounts (name, email, email_verified_at, created_at, updated_at, plan, plan_anchor, period_start)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`),
		a.Name, a.Email, msPtr(a.EmailVerifiedAt), ms(a.CreatedAt), ms(a.UpdatedAt), a.Plan, anchor, anchor)
	if isUnique(err) {
		return ports.Account{}, failure.E(op, failure.Conflict, "an account with this email already exists")
	}
	if err != nil {
		return ports.Account{}, fail(ctx, op, err)
	}
	return s.AccountByID(ctx, id)
}

func (s *Store) accountWhere(ctx context.Context, op, where string, arg any) (ports.Account, error) {
	var r accountRow
	err := s.x().GetContext(ctx, &r, s.q(`SELECT `+accountCols+` FROM accounts WHERE `+where), arg)
	if err != nil {
		return ports.Account{}, notFound(ctx, op, "account", err)
	}
	return r.account(), nil
}

// AccountByID finds an account.
func (s *Store) AccountByID(ctx context.Context, id int64) (ports.Account, error) {
	return s.accountWhere(ctx, "sqlstore.AccountByID", "id = ?", id)
}

// AccountByEmail finds an account by its (normalised) email.
func (s *Store) AccountByEmail(ctx context.Context, email string) (ports.Account, error) {
	return s.accountWhere(ctx, "sqlstore.AccountByEmail", "email = ?", email)
}

// ListAccounts lists accounts by id.
func (s *Store) ListAccounts(ctx context.Context) ([]ports.Account, error) {
	var rows []accountRow
	if err := s.x().SelectContext(ctx, &rows, `SELECT `+accountCols+` FROM accounts ORDER BY id`); err != nil {
		return nil, fail(ctx, "sqlstore.ListAccounts", err)
	}
	out := make([]ports.Account, len(rows))
	for i, r := range rows {
		out[i] = r.account()
	}
	return out, nil
}

// CountAccounts counts accounts.
func (s *Store) CountAccounts(ctx context.Context) (int, error) {
	var n int
	err := s.x().GetContext(ctx, &n, `SELECT COUNT(*) FROM accounts`)
	return n, fail(ctx, "sqlstore.CountAccounts", err)
}

// WebhookSecret returns the account's webhook signing secret, creating one
// if needed.
func (s *Store) WebhookSecret(ctx context.Context, accountID int64, newSecret func() string) (string, error) {
	var secret string
	err := s.inTx(ctx, func(tx execer) error {
		if err := tx.GetContext(ctx, &secret, s.q(`SELECT webhook_secret FROM accounts WHERE id = ?`), accountID); err != nil {
			return notFound(ctx, "sqlstore.WebhookSecret", "account", err)
		}
		if secret != "" {
			return nil
		}
		secret = newSecret()
		_, err := tx.ExecContext(ctx, s.q(`UPDATE accounts SET webhook_secret = ? WHERE id = ?`), secret, accountID)
		return err
	})
	return secret, fail(ctx, "sqlstore.WebhookSecret", err)
}

// SetWebhookSecret replaces the account's webhook signing secret.
func (s *Store) SetWebhookSecret(ctx context.Context, accountID int64, secret string) error {
	res, err := s.w().ExecContext(ctx, s.q(`UPDATE accounts SET webhook_secret = ? WHERE id = ?`), secret, accountID)
	if err != nil {
		return fail(ctx, "sqlstore.SetWebhookSecret", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return failure.E("sqlstore.SetWebhookSecret", failure.NotFound, "account not found")
	}
	return nil
}
