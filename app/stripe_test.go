package app

import (
	"context"
	"testing"
	"time"

	"github.com/trawlhq/trawl/adapters/payment"
	"github.com/trawlhq/trawl/adapters/sqlstore"
	"github.com/trawlhq/trawl/core/billing"
	"github.com/trawlhq/trawl/ports"
	"github.com/trawlhq/trawl/testkit"
)

// TestStripePricesNameKnownPlans: a price for a plan the table lacks is
// refused, naming the variable.
func TestStripePricesNameKnownPlans(t *testing.T) {
	solo := billing.DefaultPlans().Must("business")
	solo.Name = "solo"
	plans, err := billing.NewPlans([]billing.Plan{solo})
	if err != nil {
		t.Fatal(err)
	}
	sc := StripeConfig{SecretKey: "sk_test_1", WebhookSecret: "whsec_1", Prices: map[string]string{"pro": "price_1"}}
	if err := sc.Validate(plans); err == nil || err.Error() != "TRAWL_STRIPE_PRICE_PRO is set but the plan table has no plan pro" {
		t.Fatalf("a price for a plan the table lacks: %v", err)
	}
	if err := sc.Validate(billing.DefaultPlans()); err != nil {
		t.Fatal(err)
	}
}

func TestPaymentProviderChoice(t *testing.T) {
	store, err := sqlstore.Open(context.Background(), sqlstore.Options{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	c := DefaultConfig()
	clk := testkit.NewClock(time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC))

	p, err := NewPaymentProvider(SQLStore(store).Stores, clk, c)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := p.(*payment.LocalPlans); !ok {
		t.Fatalf("without Stripe settings the provider is %T, want the local checkout", p)
	}

	env := map[string]string{"TRAWL_STRIPE_SECRET_KEY": "sk_test_123", "TRAWL_STRIPE_WEBHOOK_SECRET": "whsec_123", "TRAWL_STRIPE_PRICE_PRO": "price_pro"}
	c, err = DefaultConfig().FromEnv(func(k string) string { return env[k] })
	if err != nil || c.Validate() != nil {
		t.Fatalf("Stripe settings: %v %v", err, c.Validate())
	}
	p, err = NewPaymentProvider(SQLStore(store).Stores, clk, c)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := p.(*payment.Stripe); !ok {
		t.Fatalf("with a secret key the provider is %T, want Stripe", p)
	}
	if _, ok := p.(ports.PlanCheckout); !ok {
		t.Fatal("Stripe does not sell plans")
	}
	if sc := StripeConfigFromEnv(func(k string) string { return map[string]string{"TRAWL_STRIPE_PRICE_BUSINESS": " price_b "}[k] }); sc.Prices["business"] != "price_b" || len(sc.Prices) != 1 {
		t.Fatalf("prices %v", sc.Prices)
	}
}
