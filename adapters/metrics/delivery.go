package metrics

import (
	"context"
	"errors"
	"strconv"

	"github.com/trawlhq/trawl/ports"
)

// deliveryOutcome names a failed delivery by its reason, from a fixed set.
func deliveryOutcome(err error) string {
	var de *ports.DeliveryError
	if !errors.As(err, &de) {
		return "failed"
	}
	switch de.Reason {
	case ports.DeliveryRefused:
		return "refused"
	case ports.DeliveryTimedOut:
		return "timeout"
	case ports.DeliveryDNS:
		return "dns"
	case ports.DeliveryTLS:
		return "tls"
	case ports.DeliveryNonPublic:
		return "non_public"
	case ports.DeliveryAnswered:
		return "answered_error"
	case ports.DeliveryAuth:
		return "auth"
	}
	return "failed"
}

// statusClass is 2xx, 3xx, 4xx or 5xx.
func statusClass(code int) string {
	if code < 100 || code > 599 {
		return "other"
	}
	return strconv.Itoa(code/100) + "xx"
}

// Webhooks counts the attempts of w by outcome: the receiver's status
// class, or why no answer came.
func (m *Metrics) Webhooks(w ports.WebhookSender) ports.WebhookSender {
	return &webhooks{WebhookSender: w, m: m}
}

type webhooks struct {
	ports.WebhookSender
	m *Metrics
}

func (w *webhooks) Send(ctx context.Context, hook ports.Webhook) (int, error) {
	code, err := w.WebhookSender.Send(ctx, hook)
	outcome := statusClass(code)
	if err != nil {
		outcome = deliveryOutcome(err)
	}
	w.m.webhooks.WithLabelValues(outcome).Inc()
	return code, err
}

// Mailer counts the messages of mailer by outcome: ok, or why it failed.
func (m *Metrics) Mailer(mailer ports.Mailer) ports.Mailer { return &mail{next: mailer, m: m} }

type mail struct {
	next ports.Mailer
	m    *Metrics
}

func (s *mail) Send(ctx context.Context, msg ports.Mail) error {
	err := s.next.Send(ctx, msg)
	outcome := "ok"
	if err != nil {
		outcome = deliveryOutcome(err)
	}
	s.m.mails.WithLabelValues(outcome).Inc()
	return err
}
