package ports

import (
	"context"
	"errors"
	"time"
)

// CreditState is the credit row of one account: the plan and its current
// period, what was charged in the period, and the top-up credits left.
type CreditState struct {
	AccountID int64
	Plan      string
	// PlanAnchor is when the plan was subscribed: periods are anchor + k months.
	PlanAnchor *time.Time
	// PeriodStart is the start of the period the counters below belong to.
	PeriodStart *time.Time
	// Used is every credit charged in the current period (allowance and top-up).
	Used int64
	// AllowanceUsed is the part of Used drawn from the monthly allowance.
	AllowanceUsed int64
	// TopUp is the purchased or granted credits left; they survive renewals.
	TopUp int64
}

// Hold reserves credits for a call in progress. Holds expire so that a
// process dying mid-call cannot freeze a balance forever.
type Hold struct {
	ID        string
	AccountID int64
	TokenID   int64 // 0 for holds made by the system (bulk jobs, operators)
	Amount    int64
	CreatedAt time.Time
	ExpiresAt time.Time
	// Durable holds outlive the process that placed them (a bulk job's,
	// which a restarted process resumes). Other holds may live only as long
	// as that process: a store may keep them in its memory, and one that
	// does forgets them when the process ends, as if they had expired.
	Durable bool
}

// TransactionMetadata is what a transaction records about the call.
type TransactionMetadata struct {
	URL       string `json:"url,omitempty"`
	Query     string `json:"query,omitempty"`
	JobID     string `json:"job_id,omitempty"`
	RequestID string `json:"request_id,omitempty"`
	SessionID string `json:"session_id,omitempty"`
}

// Transaction is one credit event: a charge (Credits > 0 spent) or a top-up.
type Transaction struct {
	ID           int64
	AccountID    int64
	ServiceType  string
	ServiceName  string
	Credits      int64 // positive: credits spent; negative: credits added
	BalanceAfter int64
	CreatedAt    time.Time
	Metadata     TransactionMetadata
	// ChargeKey makes a charge happen at most once per account (bulk job
	// URLs use job:index); "" for ordinary charges.
	ChargeKey string
}

// CheckoutSession is a one-time top-up purchase waiting for payment.
type CheckoutSession struct {
	ID          string
	AccountID   int64
	Credits     int64
	AmountCents int64
	Currency    string
	CreatedAt   time.Time
	PaidAt      *time.Time
}

// LedgerStore gives the credit rules a consistent, exclusive view of one
// account's credits. The rules themselves live in core/credits.
type LedgerStore interface {
	// WithCredits runs fn in one transaction holding the account's credit row
	// locked against every other WithCredits on the same account, in this
	// process or another. fn's error rolls everything back.
	WithCredits(ctx context.Context, accountID int64, fn func(LedgerTx) error) error
	// Transactions lists an account's transactions newest first, and the total count.
	Transactions(ctx context.Context, accountID int64, limit, offset int) ([]Transaction, int, error)
	// ReadCredits returns the credit row and the held amount without locking.
	ReadCredits(ctx context.Context, accountID int64, now time.Time) (CreditState, int64, error)
	CreateCheckoutSession(ctx context.Context, s CheckoutSession) error
	CheckoutSession(ctx context.Context, id string) (CheckoutSession, error)
}

// LedgerTx is the locked view handed to WithCredits.
type LedgerTx interface {
	State() CreditState
	SaveState(CreditState) error
	// HeldAmount sums the holds of the account that have not expired at now.
	HeldAmount(now time.Time) (int64, error)
	DeleteExpiredHolds(now time.Time) error
	PutHold(Hold) error
	Hold(id string) (Hold, error)
	DeleteHold(id string) error
	// UpdateHold changes what a hold still reserves.
	UpdateHold(id string, amount int64) error
	// Charged reports whether a transaction with this charge key exists.
	Charged(key string) (bool, error)
	// TokenLive reports whether the token still exists (was not deleted).
	TokenLive(tokenID int64) (bool, error)
	// DropHold is what a settle reads, in one step: it deletes the hold (one
	// already gone is no error), reports whether the token is live (always
	// for token 0, the system), and sums the other holds not expired at now.
	// A store whose token check can precede the lock checks the token again
	// when the charge is written: AddTransaction fails with Unauthenticated
	// if it was deleted meanwhile.
	DropHold(holdID string, tokenID int64, now time.Time) (tokenLive bool, othersHeld int64, err error)
	AddTransaction(Transaction) (Transaction, error)
	// MarkCheckoutPaid marks the session paid; false if it already was.
	MarkCheckoutPaid(sessionID string, at time.Time) (bool, error)
	// FinishCrawlPage writes a crawl page's outcome in the view's
	// transaction, as CrawlStore.FinishCrawlPage does in its own.
	FinishCrawlPage(o CrawlOutcome) error
}

// HoldPlacer is a LedgerStore that can also place a hold in one step, the
// account's row locked for that step only, outside WithCredits.
type HoldPlacer interface {
	// PlacesHolds is false for a store whose PlaceHold never places (it
	// would cost the caller a read of the credit row for nothing).
	PlacesHolds() bool
	// PlaceHold places h if the credit row, as it is when the hold is
	// placed (not as the caller read it), meets g. placed is false, and
	// nothing is written, when it does not or the store cannot tell in one
	// step: the caller then decides under WithCredits.
	PlaceHold(ctx context.Context, h Hold, g HoldGuard) (placed bool, err error)
}

// HoldGuard is what PlaceHold requires of the credit row.
type HoldGuard struct {
	// Plan, PlanAnchor and PeriodStart must be the row's: the plan is the
	// one reckoned with and no renewal is due.
	Plan        string
	PlanAnchor  *time.Time
	PeriodStart *time.Time
	// Allowance is the plan's monthly credits. The row's spendable balance,
	// the allowance left (Allowance less AllowanceUsed, never below zero)
	// plus TopUp less what the account's holds reserve, must cover the hold.
	Allowance int64
	// Now: no hold of the account may have expired by then (expired holds
	// are deleted under WithCredits).
	Now time.Time
}

// ReserveRequest asks the ledger to hold credits before work starts.
type ReserveRequest struct {
	AccountID int64
	TokenID   int64
	Amount    int64
	TTL       time.Duration // 0: the ledger's default
	Durable   bool          // the hold must outlive the process (Hold.Durable)
	// Credits is the account's credit row as the caller read it (AccountID
	// 0: not read), so a hold can be placed without reading it again. A
	// stale row costs only time: the hold's guard is checked on the row as
	// it is.
	Credits CreditState
}

// Charge says what a settled call costs and how to record it.
type Charge struct {
	Credits     int64
	ServiceType string
	ServiceName string
	Metadata    TransactionMetadata
	// Outcome, when set, is the crawl page the charge pays for, written in
	// the charge's transaction (LedgerTx.FinishCrawlPage): the page and
	// its charge commit together or not at all. A charge whose key was
	// charged before writes it too (the page's record keeps its first
	// outcome).
	Outcome *CrawlOutcome
}

// Ledger moves credits: Reserve before work, Settle on success, Release on failure.
type Ledger interface {
	Reserve(ctx context.Context, r ReserveRequest) (Hold, error)
	// Settle turns a hold into a charge of at most the held amount, writing one
	// transaction; a zero-credit charge releases the hold.
	Settle(ctx context.Context, h Hold, c Charge) (Transaction, error)
	Release(ctx context.Context, h Hold) error
	// ChargeHold charges part of a hold that stays open, at most once per
	// key: a repeated key charges nothing and reports false.
	ChargeHold(ctx context.Context, h Hold, c Charge, key string) (Transaction, bool, error)
	// ReleasePart gives back part of an open hold.
	ReleasePart(ctx context.Context, h Hold, credits int64) error
	// ChargeEach writes several charges of one hold in one transaction
	// (one commit), each decided and written as ChargeHold would on its
	// own, in order: an item refused (InsufficientCredits) or failed is
	// left out and leaves the others written, as if it had not been
	// asked, and its result says why. An item of no credits and no key
	// writes its Charge.Outcome alone (a crawl page not charged). err is
	// the transaction's: when it is set, nothing of any item was written.
	ChargeEach(ctx context.Context, h Hold, items []KeyedCharge) (results []ChargeResult, err error)
}

// KeyedCharge is one item of Ledger.ChargeEach: a charge and its key.
type KeyedCharge struct {
	Charge Charge
	Key    string
}

// ChargeResult is what one item of Ledger.ChargeEach came to, as
// ChargeHold returns it; Err is the item's own failure.
type ChargeResult struct {
	Transaction Transaction
	Charged     bool
	Err         error
}

// IdempotencyRecord remembers the response to a billed call made with an
// Idempotency-Key, so a retry gets the same answer without a second charge.
type IdempotencyRecord struct {
	AccountID   int64
	Key         string
	Fingerprint string // what the request was: method, path, query, body digest
	Done        bool   // false while the first call is still running
	Status      int
	ContentType string
	Body        []byte
	CreatedAt   time.Time
	ExpiresAt   time.Time
}

// IdempotencyStore keeps idempotency records.
type IdempotencyStore interface {
	// BeginIdempotent claims rec's (AccountID, Key). If a record that has not
	// expired at rec.CreatedAt exists, it is returned with claimed false.
	BeginIdempotent(ctx context.Context, rec IdempotencyRecord) (existing IdempotencyRecord, claimed bool, err error)
	// CompleteIdempotent stores the response of a claimed key.
	CompleteIdempotent(ctx context.Context, accountID int64, key string, status int, contentType string, body []byte) error
	// AbandonIdempotent forgets a claimed key whose call failed, so it can be retried.
	AbandonIdempotent(ctx context.Context, accountID int64, key string) error
}

// RateDecision is the answer of a rate limiter for one request.
type RateDecision struct {
	Allowed    bool
	Limit      int
	Used       int // requests counted in the window, this one included when allowed
	Remaining  int
	RetryAfter time.Duration // when not allowed: until a slot frees
	Reset      time.Duration // until the window holds no request of now
}

// RateLimiter counts requests per key in a sliding window. A limiter whose
// shared counter cannot be reached reports an error wrapping
// ErrLimiterUnavailable.
type RateLimiter interface {
	Allow(ctx context.Context, key string, limit int, window time.Duration) (RateDecision, error)
}

// ErrLimiterUnavailable marks a rate limiter that could not count the
// request now: the caller may retry shortly (core/ratelimit.Failure).
var ErrLimiterUnavailable = errors.New("rate limiter unavailable")

// CheckoutRequest asks a payment provider for a hosted checkout page.
type CheckoutRequest struct {
	AccountID   int64
	Email       string
	Credits     int64
	AmountCents int64
	Currency    string
}

// Checkout is a hosted checkout session.
type Checkout struct {
	SessionID string
	URL       string
}

// PaymentProvider creates hosted checkout sessions. Completion comes back
// through core/credits.Service.CompletePurchase (a provider webhook or the
// local provider's pay page), which adds the credits exactly once.
//
// A provider that could not open the checkout reports a *PaymentError and
// no sentence; core/credits words it for the caller.
type PaymentProvider interface {
	CreateCheckout(ctx context.Context, r CheckoutRequest) (Checkout, error)
}

// PaymentReason says why a payment provider opened no checkout.
type PaymentReason uint8

const (
	PaymentUnreachable PaymentReason = iota // the provider could not be reached or refused the request
	PaymentPlanNotSold                      // the plan has no price at the provider; Plans lists those that have
)

// PaymentError is the typed reason a payment provider gives for a checkout
// it could not open.
type PaymentError struct {
	Reason PaymentReason
	Plans  []string // PaymentPlanNotSold: the plans the provider sells
	Err    error    // the provider's own error, for logs (never shown: it can name the request)
}

func (e *PaymentError) Error() string {
	if e.Err != nil {
		return "payment: " + e.Err.Error()
	}
	return "payment failed"
}

func (e *PaymentError) Unwrap() error { return e.Err }
