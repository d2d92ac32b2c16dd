package credits

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/trawlhq/trawl/core/billing"
	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/ports"
)

// Purchase limits of spec 4.13.
const (
	MinPurchase = 100
	MaxPurchase = 10000
	// MaxPerPage caps per_page of the transactions list (DECISIONS.md).
	MaxPerPage = 100
	// MaxPreviewQuantity caps quantity of the preview endpoints.
	MaxPreviewQuantity = billing.DefaultMaxPreviewQuantity
)

// TopUpNeedsPlan is what an account without a plan is told before it pays
// for top-up credits: it may buy them, but billed calls answer Plan
// Required until it subscribes, whatever its balance.
const TopUpNeedsPlan = "You have no plan yet. You can buy top-up credits now, but they can be spent only once you subscribe to a plan: until then billed endpoints answer “Plan Required”, whatever your balance."

// Pricing of top-ups. The price is shown on the checkout page and passed to
// the payment provider; it is not part of the API contract.
type Pricing struct {
	CentsPer1000Credits int64
	Currency            string
}

// DefaultPricing: 1,000 credits for 5.00 USD.
var DefaultPricing = Pricing{CentsPer1000Credits: 500, Currency: "usd"}

// Service is the use cases of /v1/credits/* and the operator's credit commands.
type Service struct {
	store    ports.LedgerStore
	accounts ports.AccountStore
	payments ports.PaymentProvider
	clock    ports.Clock
	pricing  Pricing
	plans    billing.Plans
}

// NewService builds the credits service.
func NewService(store ports.LedgerStore, accounts ports.AccountStore, payments ports.PaymentProvider, clock ports.Clock, pricing Pricing, plans billing.Plans) (*Service, error) {
	if store == nil || accounts == nil || payments == nil || clock == nil {
		return nil, errors.New("credits.NewService: store, accounts, payments and clock are required")
	}
	if pricing.CentsPer1000Credits <= 0 || pricing.Currency == "" {
		pricing = DefaultPricing
	}
	return &Service{store: store, accounts: accounts, payments: payments, clock: clock, pricing: pricing, plans: plans}, nil
}

// Status returns the credit status of an account.
func (s *Service) Status(ctx context.Context, accountID int64) (billing.Status, error) {
	state, _, err := s.store.ReadCredits(ctx, accountID, s.clock.Now())
	if failure.Is(err, failure.NotFound) {
		// The caller's own account vanished (deleted while its token was in use).
		return billing.Status{}, failure.E("credits.Status", failure.NotFound, "Account not found.")
	}
	if err != nil {
		return billing.Status{}, failure.Wrap("credits.Status", err)
	}
	return s.plans.StatusOf(state, s.clock.Now()), nil
}

// StatusFor returns the caller's credit status from the credit row read with
// its token in the same request, without reading it again; it reads the
// store only when the principal does not carry the row.
func (s *Service) StatusFor(ctx context.Context, p ports.Principal) (billing.Status, error) {
	if p.Account.ID == 0 || p.Credits.AccountID != p.Account.ID {
		return s.Status(ctx, p.Account.ID)
	}
	return s.plans.StatusOf(p.Credits, s.clock.Now()), nil
}

// Page is one page of transactions.
type Page struct {
	Items   []ports.Transaction
	Page    int
	PerPage int
	Total   int
}

// LastPage is the number of the last page (1 when empty).
func (p Page) LastPage() int { return LastPage(p.Total, p.PerPage) }

// LastPage is the number of the last page of total items, perPage a page
// (1 when there are none).
func LastPage(total, perPage int) int {
	if total == 0 {
		return 1
	}
	return (total + perPage - 1) / perPage
}

// Paging picks a page of transactions. A nil field was not given and takes
// its default: page DefaultPage, DefaultPerPage transactions a page. A given
// value is validated as it is, so an explicit 0 is refused.
type Paging struct {
	Page, PerPage *int
}

// Defaults of Paging.
const (
	DefaultPage    = 1
	DefaultPerPage = 20
)

// Values are the page and page size asked for, defaults filled in.
func (p Paging) Values() (page, perPage int) { return p.values() }

func (p Paging) values() (page, perPage int) {
	page, perPage = DefaultPage, DefaultPerPage
	if p.Page != nil {
		page = *p.Page
	}
	if p.PerPage != nil {
		perPage = *p.PerPage
	}
	return page, perPage
}

// ValidatePaging checks per_page (1..100) and page (>= 1).
func ValidatePaging(page, perPage int) error {
	var fe failure.FieldErrors
	if perPage < 1 || perPage > MaxPerPage {
		fe.Add("per_page", fmt.Sprintf("The per page field must be between 1 and %d.", MaxPerPage))
	}
	if page < 1 {
		fe.Add("page", "The page field must be at least 1.")
	}
	return fe.Err("credits.Transactions")
}

// Transactions lists an account's transactions, newest first.
func (s *Service) Transactions(ctx context.Context, accountID int64, paging Paging) (Page, error) {
	page, perPage := paging.values()
	if err := ValidatePaging(page, perPage); err != nil {
		return Page{}, err
	}
	if _, err := s.accounts.AccountByID(ctx, accountID); err != nil {
		if failure.Is(err, failure.NotFound) {
			// The caller's own account vanished (deleted while its token was in use).
			return Page{}, failure.E("credits.Transactions", failure.NotFound, "Account not found.", err)
		}
		return Page{}, failure.Wrap("credits.Transactions", err)
	}
	items, total, err := s.store.Transactions(ctx, accountID, perPage, (page-1)*perPage)
	if err != nil {
		return Page{}, failure.Wrap("credits.Transactions", err)
	}
	return Page{Items: items, Page: page, PerPage: perPage, Total: total}, nil
}

// ValidatePreview checks a preview request and returns the priced service.
func ValidatePreview(serviceType string, quantity int64) (billing.Service, error) {
	var fe failure.FieldErrors
	svc, ok := billing.ServiceByType(billing.ServiceType(serviceType))
	switch {
	case strings.TrimSpace(serviceType) == "":
		fe.Add("service_type", "The service type field is required.")
	case !ok || !svc.Previewable:
		fe.Add("service_type", "The selected service type is invalid. Allowed: "+strings.Join(billing.PreviewableTypes(), ", ")+".")
	}
	most := int64(MaxPreviewQuantity)
	if ok {
		most = svc.MaxPreview()
	}
	if quantity < 1 || quantity > most {
		fe.Add("quantity", fmt.Sprintf("The quantity field must be between 1 and %d.", most))
	}
	return svc, fe.Err("credits.Preview")
}

// DefaultPreviewQuantity is the number of calls a preview prices when the
// caller gives none.
const DefaultPreviewQuantity = 1

// Preview prices quantity calls of a service against the account's balance;
// a nil quantity was not given and is DefaultPreviewQuantity (an explicit 0
// is refused).
func (s *Service) Preview(ctx context.Context, accountID int64, serviceType string, qty *int64) (billing.Preview, error) {
	quantity := int64(DefaultPreviewQuantity)
	if qty != nil {
		quantity = *qty
	}
	svc, err := ValidatePreview(serviceType, quantity)
	if err != nil {
		return billing.Preview{}, err
	}
	st, err := s.Status(ctx, accountID)
	if err != nil {
		return billing.Preview{}, err
	}
	return billing.PreviewCost(svc, quantity, st.Balance), nil
}

// NotWholeCredits is the failure for a top-up amount that is not a whole
// number (a typed one that cannot be read), naming the range allowed.
func NotWholeCredits() error {
	return failure.Invalidf("credits.Purchase", "credits", "The credits field must be a whole number between %s and %s.", billing.FormatCredits(MinPurchase), billing.FormatCredits(MaxPurchase))
}

// ValidatePurchase checks the credits of a top-up.
func ValidatePurchase(credits int64) error {
	if credits < MinPurchase || credits > MaxPurchase {
		return failure.Invalidf("credits.Purchase", "credits", "The credits field must be between %s and %s.", billing.FormatCredits(MinPurchase), billing.FormatCredits(MaxPurchase))
	}
	return nil
}

// PriceCents is the price of a top-up in the smallest currency unit, rounded up.
func (s *Service) PriceCents(credits int64) int64 {
	return (credits*s.pricing.CentsPer1000Credits + 999) / 1000
}

// Purchase opens a hosted checkout for a one-time top-up. Credits are added
// by CompletePurchase once the payment is done.
func (s *Service) Purchase(ctx context.Context, account ports.Account, credits int64) (ports.Checkout, error) {
	if err := ValidatePurchase(credits); err != nil {
		return ports.Checkout{}, err
	}
	co, err := s.payments.CreateCheckout(ctx, ports.CheckoutRequest{
		AccountID:   account.ID,
		Email:       account.Email,
		Credits:     credits,
		AmountCents: s.PriceCents(credits),
		Currency:    s.pricing.Currency,
	})
	if err != nil {
		return ports.Checkout{}, failure.Wrap("credits.Purchase", err)
	}
	return co, nil
}

// CompletePurchase adds a paid session's credits to the account's top-ups,
// exactly once: completing a session again adds nothing and reports false.
// An unknown session is NotFound, worded for the payer.
func (s *Service) CompletePurchase(ctx context.Context, sessionID string) (bool, error) {
	const op = "credits.CompletePurchase"
	sess, err := s.store.CheckoutSession(ctx, sessionID)
	if failure.Is(err, failure.NotFound) {
		return false, failure.E(op, failure.NotFound, "Checkout session not found.", err)
	}
	if err != nil {
		return false, failure.Wrap(op, err)
	}
	added := false
	err = s.store.WithCredits(ctx, sess.AccountID, func(tx ports.LedgerTx) error {
		now := s.clock.Now()
		first, err := tx.MarkCheckoutPaid(sess.ID, now)
		if err != nil || !first {
			return err
		}
		added = true
		return s.addTopUp(tx, now, sess.Credits, billing.TopUp, ports.TransactionMetadata{SessionID: sess.ID})
	})
	return added, failure.Wrap(op, err)
}

// Grant adds top-up credits by operator decision, recorded as a transaction.
func (s *Service) Grant(ctx context.Context, accountID, credits int64) error {
	if credits <= 0 {
		return failure.Invalidf("credits.Grant", "credits", "The credits to grant must be positive.")
	}
	err := s.store.WithCredits(ctx, accountID, func(tx ports.LedgerTx) error {
		return s.addTopUp(tx, s.clock.Now(), credits, billing.Grant, ports.TransactionMetadata{})
	})
	return failure.Wrap("credits.Grant", err)
}

func (s *Service) addTopUp(tx ports.LedgerTx, now time.Time, credits int64, kind billing.ServiceType, meta ports.TransactionMetadata) error {
	svc, _ := billing.ServiceByType(kind)
	state, _ := billing.Renew(tx.State(), now)
	state.TopUp += credits
	if err := tx.SaveState(state); err != nil {
		return err
	}
	_, err := tx.AddTransaction(ports.Transaction{
		AccountID:    state.AccountID,
		ServiceType:  string(svc.Type),
		ServiceName:  svc.DisplayName,
		Credits:      -credits,
		BalanceAfter: s.plans.Balance(state),
		CreatedAt:    now,
		Metadata:     meta,
	})
	return err
}

// SetPlan moves an account to a plan. A new subscription starts a new period
// now with a fresh allowance; top-up credits are kept. Setting the plan the
// account already has changes nothing.
func (s *Service) SetPlan(ctx context.Context, accountID int64, planName string) error {
	plan, ok := s.plans.ByName(planName)
	if !ok {
		return failure.Invalidf("credits.SetPlan", "plan", "The plan must be one of: %s.", strings.Join(s.plans.Names(), ", "))
	}
	err := s.store.WithCredits(ctx, accountID, func(tx ports.LedgerTx) error {
		state := tx.State()
		if state.Plan == plan.Name {
			return nil
		}
		now := s.clock.Now()
		state.Plan = plan.Name
		state.Used, state.AllowanceUsed = 0, 0
		if plan.Name == "" {
			state.PlanAnchor, state.PeriodStart = nil, nil
		} else {
			state.PlanAnchor, state.PeriodStart = &now, &now
		}
		return tx.SaveState(state)
	})
	return failure.Wrap("credits.SetPlan", err)
}

// CheckoutSession returns a checkout session (for the local checkout page).
func (s *Service) CheckoutSession(ctx context.Context, id string) (ports.CheckoutSession, error) {
	cs, err := s.store.CheckoutSession(ctx, id)
	if failure.Is(err, failure.NotFound) {
		return cs, failure.E("credits.CheckoutSession", failure.NotFound, "Checkout session not found.")
	}
	return cs, failure.Wrap("credits.CheckoutSession", err)
}
