package app

import (
	"os"
	"strings"

	"github.com/trawlhq/trawl/adapters/payment"
	"github.com/trawlhq/trawl/adapters/sqlstore"
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

// StripeConfigFromEnv reads the Stripe settings.
func StripeConfigFromEnv(getenv func(string) string) StripeConfig {
	v := func(k string) string { return strings.TrimSpace(getenv(k)) }
	c := StripeConfig{SecretKey: v("TRAWL_STRIPE_SECRET_KEY"), WebhookSecret: v("TRAWL_STRIPE_WEBHOOK_SECRET"), APIURL: v("TRAWL_STRIPE_API_URL"), Prices: map[string]string{}}
	for _, plan := range []string{"basic", "pro", "business"} {
		if p := v("TRAWL_STRIPE_PRICE_" + strings.ToUpper(plan)); p != "" {
			c.Prices[plan] = p
		}
	}
	return c
}

// NewPaymentProvider is Stripe when a secret key is configured, else the
// embedded local checkout (top-ups and plans).
func NewPaymentProvider(store *sqlstore.Store, clk ports.Clock, c Config) (ports.PaymentProvider, error) {
	sc := StripeConfigFromEnv(os.Getenv)
	if sc.SecretKey == "" {
		local, err := payment.NewLocal(store, clk, c.PublicBase())
		if err != nil {
			return nil, err
		}
		return payment.NewLocalPlans(local, store)
	}
	return payment.NewStripe(store, clk, payment.StripeOptions{
		SecretKey: sc.SecretKey, WebhookSecret: sc.WebhookSecret, APIURL: sc.APIURL, Prices: sc.Prices, PublicURL: c.PublicBase(),
		Plans: c.Plans,
	})
}
