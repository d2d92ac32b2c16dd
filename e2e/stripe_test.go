package e2e

import (
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stripe/stripe-go/v85/webhook"
)

// TestBinaryStripe runs the server with Stripe as its payment provider,
// against stripe-mock: a top-up opens a Stripe Checkout Session, and the
// signed checkout.session.completed delivery adds the credits once.
func TestBinaryStripe(t *testing.T) {
	mock := os.Getenv("TRAWL_TEST_STRIPE_MOCK_URL")
	if mock == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("TRAWL_TEST_STRIPE_MOCK_URL is not set and CI=true (.ci/run starts stripe-mock)")
		}
		t.Skip("no stripe-mock (TRAWL_TEST_STRIPE_MOCK_URL)")
	}
	const whsec = "whsec_e2e_0123456789"
	t.Setenv("TRAWL_STRIPE_SECRET_KEY", "sk_test_123")
	t.Setenv("TRAWL_STRIPE_WEBHOOK_SECRET", whsec)
	t.Setenv("TRAWL_STRIPE_API_URL", mock)
	t.Setenv("TRAWL_STRIPE_PRICE_PRO", "price_pro")
	s := start(t, []string{"--data-dir", t.TempDir()})
	token := tokenRE.FindString(s.stdout.String())
	_, before := get(t, s.base+"/v1/credits", token)
	code, co := postJSON(t, s.base+"/v1/credits/purchase", token, map[string]any{"credits": 1500})
	sessionID, _ := co["session_id"].(string)
	if url, _ := co["checkout_url"].(string); code != 200 || !strings.HasPrefix(sessionID, "cs_") || !strings.HasPrefix(url, "https://checkout.stripe.com/") {
		t.Fatalf("purchase = %d %v", code, co)
	}
	payload, _ := json.Marshal(map[string]any{
		"id": "evt_e2e_1", "object": "event", "type": "checkout.session.completed", "created": time.Now().Unix(),
		"data": map[string]any{"object": map[string]any{"id": sessionID, "object": "checkout.session", "mode": "payment", "payment_status": "paid"}},
	})
	deliver := func(secret string) int {
		t.Helper()
		signed := webhook.GenerateTestSignedPayload(&webhook.UnsignedPayload{Payload: payload, Secret: secret})
		req, _ := http.NewRequest("POST", s.base+"/webhooks/stripe", strings.NewReader(string(payload)))
		req.Header.Set("Stripe-Signature", signed.Header)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	if c := deliver("whsec_forged"); c != 400 {
		t.Fatalf("forged delivery: %d", c)
	}
	if c := deliver(whsec); c != 200 {
		t.Fatalf("delivery: %d", c)
	}
	if c := deliver(whsec); c != 200 {
		t.Fatalf("redelivery: %d", c)
	}
	_, after := get(t, s.base+"/v1/credits", token)
	if after["balance"].(float64) != before["balance"].(float64)+1500 {
		t.Fatalf("balance %v -> %v, want +1500 once", before["balance"], after["balance"])
	}
	s.stop(t)
}
