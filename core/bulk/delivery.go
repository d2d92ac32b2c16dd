package bulk

import (
	"errors"
	"fmt"

	"github.com/trawlhq/trawl/ports"
)

// Delivery channels as job records name them.
const (
	ChannelEmail   = ports.ChannelEmail
	ChannelWebhook = ports.ChannelWebhook
)

// DeliveryMessage is the sentence a job record shows for a failed delivery.
// It says what happened (refused, timed out, answered 500, TLS failed) and
// never carries the cause itself, which names resolved addresses and the
// mail relay: that goes to the logs.
func DeliveryMessage(channel ports.DeliveryChannel, err error) string {
	if err == nil {
		return ""
	}
	var de *ports.DeliveryError
	reason, code := ports.DeliveryFailed, 0
	if errors.As(err, &de) {
		reason, code = de.Reason, de.Code
	}
	if channel == ChannelEmail {
		switch reason {
		case ports.DeliveryRefused:
			return "The results email could not be sent: the mail server refused the connection."
		case ports.DeliveryTimedOut:
			return "The results email could not be sent: the mail server did not answer in time."
		case ports.DeliveryDNS:
			return "The results email could not be sent: the mail server's host name could not be resolved."
		case ports.DeliveryTLS:
			return "The results email could not be sent: the TLS handshake with the mail server failed."
		case ports.DeliveryAuth:
			return "The results email could not be sent: the mail server refused the login."
		case ports.DeliveryAnswered:
			return fmt.Sprintf("The results email could not be sent: the mail server answered %d.", code)
		}
		return "The results email could not be sent."
	}
	switch reason {
	case ports.DeliveryRefused:
		return "The webhook could not be delivered: the receiver refused the connection."
	case ports.DeliveryTimedOut:
		return "The webhook could not be delivered: the receiver did not answer in time."
	case ports.DeliveryDNS:
		return "The webhook could not be delivered: the callback host name could not be resolved."
	case ports.DeliveryTLS:
		return "The webhook could not be delivered: the TLS handshake with the receiver failed."
	case ports.DeliveryNonPublic:
		return "The webhook could not be delivered: the callback host resolves to a non-public address."
	case ports.DeliveryAnswered:
		return fmt.Sprintf("The webhook could not be delivered: the receiver answered %d.", code)
	}
	return "The webhook could not be delivered."
}
