package credits_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/trawlhq/trawl/core/credits"
	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/ports"
)

// TestPaymentFailure: a plan the provider does not sell is a 422 naming
// plan and the plans it sells; a provider that could not be reached is
// Unavailable with its reason code, its own text kept out of the message.
func TestPaymentFailure(t *testing.T) {
	err := credits.PaymentFailure("credits.Subscribe", &ports.PaymentError{Reason: ports.PaymentPlanNotSold, Plans: []string{"basic", "pro"}})
	if fe, ok := failure.As(err); !ok || fe.Kind != failure.Invalid || fmt.Sprint(failure.FieldNames(err)) != "[plan]" || fe.Message != "The plan must be one of: basic, pro." {
		t.Errorf("plan not sold: %v", err)
	}
	cause := errors.New("stripe: request req_123 failed")
	err = credits.PaymentFailure("credits.Purchase", &ports.PaymentError{Reason: ports.PaymentUnreachable, Err: cause})
	if fe, ok := failure.As(err); !ok || fe.Kind != failure.Unavailable || fe.Reason != failure.ReasonPaymentUnavailable ||
		fe.Message != "The payment provider could not be reached. Please try again." || !errors.Is(err, cause) {
		t.Errorf("unreachable: %v", err)
	}
	if err := credits.PaymentFailure("credits.Purchase", cause); err != cause {
		t.Errorf("a plain error: %v", err)
	}
}
