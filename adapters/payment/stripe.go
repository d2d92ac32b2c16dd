package payment

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/stripe/stripe-go/v85"

	"github.com/trawlhq/trawl/core/billing"
	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/ports"
)

// StripeProvider is the provider name recorded with Stripe's events.
const StripeProvider = "stripe"

// StripeOptions configure the Stripe provider.
type StripeOptions struct {
	// SecretKey is the API key (sk_live_... or sk_test_...).
	SecretKey string
	// WebhookSecret verifies the Stripe-Signature of webhook deliveries (whsec_...).
	WebhookSecret string
	// APIURL overrides https://api.stripe.com (stripe-mock in tests).
	APIURL string
	// Prices maps each plan (basic, pro, business) to its recurring Stripe price id.
	Prices map[string]string
	// PublicURL is Trawl's external base URL: buyers come back to the dashboard.
	PublicURL string
	// Timeout bounds each API call (default 20 s).
	Timeout time.Duration
	// Plans is the plan table Prices name plans of (zero: the default one).
	Plans billing.Plans
}

// Stripe sells top-ups (Checkout in payment mode) and plans (Checkout in
// subscription mode) through Stripe. Completion arrives at its webhook.
type Stripe struct {
	client *stripe.Client
	store  ports.LedgerStore
	clock  ports.Clock
	o      StripeOptions
	// plans maps a price id back to its plan.
	plans map[string]string
}

var (
	_ ports.PaymentProvider = (*Stripe)(nil)
	_ ports.PlanCheckout    = (*Stripe)(nil)
)

// NewStripe builds the provider.
func NewStripe(store ports.LedgerStore, clock ports.Clock, o StripeOptions) (*Stripe, error) {
	if store == nil || clock == nil || o.SecretKey == "" || o.WebhookSecret == "" || o.PublicURL == "" {
		return nil, errors.New("payment.NewStripe: store, clock, secret key, webhook secret and public URL are required")
	}
	if o.Timeout <= 0 {
		o.Timeout = 20 * time.Second
	}
	o.PublicURL = strings.TrimRight(o.PublicURL, "/")
	plans := map[string]string{}
	for plan, price := range o.Prices {
		if _, ok := o.Plans.ByName(plan); !ok || plan == "" || price == "" {
			return nil, fmt.Errorf("payment.NewStripe: price %q for unknown plan %q", price, plan)
		}
		plans[price] = plan
	}
	cfg := &stripe.BackendConfig{
		HTTPClient:        &http.Client{Timeout: o.Timeout},
		LeveledLogger:     &stripe.LeveledLogger{Level: stripe.LevelNull},
		MaxNetworkRetries: stripe.Int64(2),
	}
	if o.APIURL != "" {
		cfg.URL = stripe.String(strings.TrimRight(o.APIURL, "/"))
	}
	client := stripe.NewClient(o.SecretKey, stripe.WithBackends(stripe.NewBackendsWithConfig(cfg)))
	return &Stripe{client: client, store: store, clock: clock, o: o, plans: plans}, nil
}

// unavailable is the typed reason of a Stripe call that failed; Stripe's own
// error text (it can name the request) stays its cause, for logs.
func unavailable(err error) error {
	return &ports.PaymentError{Reason: ports.PaymentUnreachable, Err: err}
}

// CreateCheckout opens a Checkout Session in payment mode for a top-up and
// records it, so the webhook can add its credits exactly once.
func (s *Stripe) CreateCheckout(ctx context.Context, r ports.CheckoutRequest) (ports.Checkout, error) {
	const op = "payment.Stripe.CreateCheckout"
	account := strconv.FormatInt(r.AccountID, 10)
	params := &stripe.CheckoutSessionCreateParams{
		Mode:              stripe.String(string(stripe.CheckoutSessionModePayment)),
		SuccessURL:        stripe.String(s.o.PublicURL + "/dashboard/usage?purchase=done"),
		CancelURL:         stripe.String(s.o.PublicURL + "/dashboard/billing?purchase=cancelled"),
		ClientReferenceID: stripe.String(account),
		LineItems: []*stripe.CheckoutSessionCreateLineItemParams{{
			Quantity: stripe.Int64(1),
			PriceData: &stripe.CheckoutSessionCreateLineItemPriceDataParams{
				Currency:    stripe.String(r.Currency),
				UnitAmount:  stripe.Int64(r.AmountCents),
				ProductData: &stripe.CheckoutSessionCreateLineItemPriceDataProductDataParams{Name: stripe.String(billing.FormatCredits(r.Credits) + " Trawl credits")},
			},
		}},
	}
	if r.Email != "" {
		params.CustomerEmail = stripe.String(r.Email)
	}
	params.AddMetadata("account_id", account)
	params.AddMetadata("credits", strconv.FormatInt(r.Credits, 10))
	cs, err := s.client.V1CheckoutSessions.Create(ctx, params)
	if err != nil {
		return ports.Checkout{}, unavailable(err)
	}
	err = s.store.CreateCheckoutSession(ctx, ports.CheckoutSession{
		ID: cs.ID, AccountID: r.AccountID, Credits: r.Credits, AmountCents: r.AmountCents, Currency: r.Currency, CreatedAt: s.clock.Now(),
	})
	if err != nil {
		return ports.Checkout{}, failure.Wrap(op, err)
	}
	return ports.Checkout{SessionID: cs.ID, URL: cs.URL}, nil
}

// CreatePlanCheckout opens a Checkout Session in subscription mode for a
// plan's recurring price. The account id rides in the subscription's
// metadata, so every later subscription event names its account.
func (s *Stripe) CreatePlanCheckout(ctx context.Context, r ports.PlanCheckoutRequest) (ports.Checkout, error) {
	price := s.o.Prices[r.Plan]
	if price == "" {
		return ports.Checkout{}, &ports.PaymentError{Reason: ports.PaymentPlanNotSold, Plans: s.planNames()}
	}
	account := strconv.FormatInt(r.AccountID, 10)
	params := &stripe.CheckoutSessionCreateParams{
		Mode:              stripe.String(string(stripe.CheckoutSessionModeSubscription)),
		SuccessURL:        stripe.String(s.o.PublicURL + "/dashboard/usage?subscribed=1"),
		CancelURL:         stripe.String(s.o.PublicURL + "/dashboard/billing?subscription=cancelled"),
		ClientReferenceID: stripe.String(account),
		LineItems:         []*stripe.CheckoutSessionCreateLineItemParams{{Price: stripe.String(price), Quantity: stripe.Int64(1)}},
		SubscriptionData: &stripe.CheckoutSessionCreateSubscriptionDataParams{
			Metadata: map[string]string{"account_id": account, "plan": r.Plan},
		},
	}
	if r.Email != "" {
		params.CustomerEmail = stripe.String(r.Email)
	}
	params.AddMetadata("account_id", account)
	params.AddMetadata("plan", r.Plan)
	cs, err := s.client.V1CheckoutSessions.Create(ctx, params)
	if err != nil {
		return ports.Checkout{}, unavailable(err)
	}
	return ports.Checkout{SessionID: cs.ID, URL: cs.URL}, nil
}

func (s *Stripe) planNames() []string {
	var out []string
	for _, p := range s.o.Plans.All() {
		if s.o.Prices[p.Name] != "" {
			out = append(out, p.Name)
		}
	}
	return out
}
