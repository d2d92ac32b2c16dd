package bulk_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/trawlhq/trawl/core/bulk"
	"github.com/trawlhq/trawl/ports"
)

func TestDeliveryMessageNamesTheReasonNotTheCause(t *testing.T) {
	cause := errors.New(`Post "http://hooks.test:4433/x": dial tcp 10.0.0.7:4433: connect: connection refused`)
	seen := map[string]bool{}
	for _, ch := range []ports.DeliveryChannel{bulk.ChannelEmail, bulk.ChannelWebhook} {
		for _, r := range []ports.DeliveryReason{ports.DeliveryFailed, ports.DeliveryRefused, ports.DeliveryTimedOut, ports.DeliveryDNS,
			ports.DeliveryTLS, ports.DeliveryNonPublic, ports.DeliveryAnswered, ports.DeliveryAuth} {
			msg := bulk.DeliveryMessage(ch, &ports.DeliveryError{Reason: r, Code: 503, Err: cause})
			if msg == "" || strings.Contains(msg, "10.0.0.7") || strings.Contains(msg, "dial") || !strings.HasSuffix(msg, ".") {
				t.Errorf("%s reason %d: %q", ch, r, msg)
			}
			seen[msg] = true
		}
		if msg := bulk.DeliveryMessage(ch, cause); strings.Contains(msg, "dial") {
			t.Errorf("an untyped error shows its cause: %q", msg)
		}
	}
	if len(seen) < 13 {
		t.Errorf("reasons share sentences: %d distinct", len(seen))
	}
	if got := bulk.DeliveryMessage(bulk.ChannelWebhook, &ports.DeliveryError{Reason: ports.DeliveryAnswered, Code: 500}); got != "The webhook could not be delivered: the receiver answered 500." {
		t.Errorf("answered = %q", got)
	}
}
