package app

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/trawlhq/trawl/adapters/payment"
	"github.com/trawlhq/trawl/core/billing"
	"github.com/trawlhq/trawl/core/service"
	"github.com/trawlhq/trawl/ports"
)

// StripeConfig selects Stripe as the payment provider. It is read from the
// environment only, as it holds secrets:
//
//	TRAWL_STRIPE_SECRET_KEY       sk_live_... (unset: the local checkout)
//	TRAWL_STRIPE_WEBHOOK_SECRET   whsec_... of the endpoint /webhooks/stripe
//	TRAWL_STRIPE_PRICE_BASIC, _PRO, _BUSINESS   recurring price ids of the plans
//	TRAWL_STRIPE_API_URL          another API base (stripe-mock)
type StripeConfig struct {
	SecretKey     string
	WebhookSecret string
	APIURL        string
	Prices        map[string]string
}

// stripePricePlans are the plans a TRAWL_STRIPE_PRICE_<PLAN> variable can name.
var stripePricePlans = []string{"basic", "pro", "business"}

// StripeConfigFromEnv reads the Stripe settings.
func StripeConfigFromEnv(getenv func(string) string) StripeConfig {
	v := func(k string) string { return strings.TrimSpace(getenv(k)) }
	c := StripeConfig{SecretKey: v("TRAWL_STRIPE_SECRET_KEY"), WebhookSecret: v("TRAWL_STRIPE_WEBHOOK_SECRET"), APIURL: v("TRAWL_STRIPE_API_URL"), Prices: map[string]string{}}
	for _, plan := range stripePricePlans {
		if p := v("TRAWL_STRIPE_PRICE_" + strings.ToUpper(plan)); p != "" {
			c.Prices[plan] = p
		}
	}
	return c
}

// Validate refuses a half-made Stripe configuration, in one sentence naming
// the variable to set: payments either go through Stripe, with its secret
// key and webhook secret, or through the local checkout, with no Stripe
// variable at all.
func (s StripeConfig) Validate(plans billing.Plans) error {
	var others []string
	if s.WebhookSecret != "" {
		others = append(others, "TRAWL_STRIPE_WEBHOOK_SECRET")
	}
	if s.APIURL != "" {
		others = append(others, "TRAWL_STRIPE_API_URL")
	}
	for _, plan := range stripePricePlans {
		if s.Prices[plan] != "" {
			others = append(others, "TRAWL_STRIPE_PRICE_"+strings.ToUpper(plan))
		}
	}
	if s.SecretKey == "" {
		if len(others) > 0 {
			return fmt.Errorf("%s is set but TRAWL_STRIPE_SECRET_KEY is not: set it to take payments with Stripe, or unset %s to use the local checkout",
				strings.Join(others, ", "), strings.Join(others, ", "))
		}
		return nil
	}
	if !strings.HasPrefix(s.SecretKey, "sk_") && !strings.HasPrefix(s.SecretKey, "rk_") {
		return errors.New("TRAWL_STRIPE_SECRET_KEY must be a Stripe secret key (sk_live_..., sk_test_... or rk_...)")
	}
	if s.WebhookSecret == "" {
		return errors.New("TRAWL_STRIPE_SECRET_KEY is set but TRAWL_STRIPE_WEBHOOK_SECRET is not: set it to the signing secret (whsec_...) of the endpoint /webhooks/stripe")
	}
	if s.APIURL != "" {
		if u, err := url.Parse(s.APIURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("TRAWL_STRIPE_API_URL %q must be an absolute http(s) URL, such as http://127.0.0.1:12111 for stripe-mock", s.APIURL)
		}
	}
	for _, plan := range stripePricePlans {
		if _, ok := plans.ByName(plan); s.Prices[plan] != "" && !ok {
			return fmt.Errorf("TRAWL_STRIPE_PRICE_%s is set but the plan table has no plan %s", strings.ToUpper(plan), plan)
		}
	}
	return nil
}

// NewPaymentProvider is Stripe when a secret key is configured, else the
// embedded local checkout (top-ups and plans).
func NewPaymentProvider(store service.Stores, clk ports.Clock, c Config) (ports.PaymentProvider, error) {
	sc := c.Stripe
	if sc.SecretKey == "" {
		local, err := payment.NewLocal(store.Ledger, clk, c.PublicBase())
		if err != nil {
			return nil, err
		}
		return payment.NewLocalPlans(local, store.PlanCheckouts)
	}
	return payment.NewStripe(store.Ledger, clk, payment.StripeOptions{
		SecretKey: sc.SecretKey, WebhookSecret: sc.WebhookSecret, APIURL: sc.APIURL, Prices: sc.Prices, PublicURL: c.PublicBase(),
		Plans: c.Plans,
	})
}
