package app

import (
	"context"
	"testing"
	"time"

	"github.com/trawlhq/trawl/adapters/payment"
	"github.com/trawlhq/trawl/adapters/sqlstore"
	"github.com/trawlhq/trawl/ports"
	"github.com/trawlhq/trawl/testkit"
)

func TestPaymentProviderChoice(t *testing.T) {
	store, err := sqlstore.Open(context.Background(), sqlstore.Options{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	c := DefaultConfig()
	clk := testkit.NewClock(time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC))

	t.Setenv("TRAWL_STRIPE_SECRET_KEY", "")
	p, err := NewPaymentProvider(store, clk, c)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := p.(*payment.LocalPlans); !ok {
		t.Fatalf("without Stripe settings the provider is %T, want the local checkout", p)
	}

	t.Setenv("TRAWL_STRIPE_SECRET_KEY", "sk_test_123")
	t.Setenv("TRAWL_STRIPE_WEBHOOK_SECRET", "whsec_123")
	t.Setenv("TRAWL_STRIPE_PRICE_PRO", "price_pro")
	p, err = NewPaymentProvider(store, clk, c)
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

	t.Setenv("TRAWL_STRIPE_WEBHOOK_SECRET", "")
	if _, err := NewPaymentProvider(store, clk, c); err == nil {
		t.Fatal("Stripe without a webhook secret was accepted")
	}
}
