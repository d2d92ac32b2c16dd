package payment

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/stripe/stripe-go/v85"
	"github.com/stripe/stripe-go/v85/webhook"

	"github.com/trawlhq/trawl/core/credits"
	"github.com/trawlhq/trawl/core/failure"
)

const (
	// WebhookTolerance is how old a signed delivery may be: an older one is
	// refused, so a captured delivery cannot be replayed later.
	WebhookTolerance = 5 * time.Minute
	maxWebhookBody   = 256 << 10
)

// errIgnored marks an event Trawl cannot apply (it names no account of
// ours, or a plan without a price): retrying it would not help.
var errIgnored = errors.New("event ignored")

// WebhookHandler verifies the Stripe-Signature of a delivery, handles each
// event id once, and answers 2xx only when the event is applied (or is one
// Trawl ignores), so Stripe retries the rest.
func (s *Stripe) WebhookHandler(pay *credits.Payments, log *slog.Logger) http.Handler {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, maxWebhookBody+1))
		if err != nil || len(body) > maxWebhookBody {
			answer(w, http.StatusRequestEntityTooLarge, "The event is too large.")
			return
		}
		header, at, ok := signatureHeader(r.Header.Values("Stripe-Signature"))
		if !ok {
			answer(w, http.StatusBadRequest, "The signature header is invalid.")
			return
		}
		if s.clock.Now().Sub(at) > WebhookTolerance {
			answer(w, http.StatusBadRequest, "The signature is too old.")
			return
		}
		ev, err := webhook.ConstructEventWithOptions(body, header, s.o.WebhookSecret, webhook.ConstructEventOptions{
			IgnoreTolerance: true, IgnoreAPIVersionMismatch: true,
		})
		if err != nil {
			answer(w, http.StatusBadRequest, "The signature is invalid.")
			return
		}
		ran, err := pay.Once(r.Context(), StripeProvider, ev.ID, func() error { return s.apply(r.Context(), pay, ev) })
		switch {
		case errors.Is(err, errIgnored):
			log.WarnContext(r.Context(), "stripe event ignored", "event_id", ev.ID, "type", string(ev.Type), "err", err)
			answer(w, http.StatusOK, "Ignored.")
		case err != nil:
			log.ErrorContext(r.Context(), "stripe event failed", "event_id", ev.ID, "type", string(ev.Type), "err", err)
			answer(w, http.StatusInternalServerError, "The event could not be applied; it will be retried.")
		case !ran:
			answer(w, http.StatusOK, "Already handled.")
		default:
			answer(w, http.StatusOK, "Handled.")
		}
	})
}

func answer(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"message": msg})
}

// signatureHeader reads a Stripe-Signature header ("t=...,v1=...,v1=...")
// and rebuilds it with its one timestamp and its v1 signatures only, so the
// timestamp checked against the tolerance is the one the signature is
// verified with. A header with no t=, or more than one (a replayed
// delivery with a fresh t= added), or sent more than once, is refused.
func signatureHeader(values []string) (string, time.Time, bool) {
	if len(values) != 1 {
		return "", time.Time{}, false
	}
	var (
		at    time.Time
		stamp string
		sigs  []string
	)
	for _, part := range strings.Split(values[0], ",") {
		key, value, found := strings.Cut(strings.TrimSpace(part), "=")
		if !found {
			return "", time.Time{}, false
		}
		switch strings.ToLower(strings.TrimSpace(key)) {
		case "t":
			n, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
			if stamp != "" || err != nil {
				return "", time.Time{}, false
			}
			at, stamp = time.Unix(n, 0), strconv.FormatInt(n, 10)
		case "v1":
			sigs = append(sigs, "v1="+strings.TrimSpace(value))
		}
	}
	if stamp == "" || len(sigs) == 0 {
		return "", time.Time{}, false
	}
	return "t=" + stamp + "," + strings.Join(sigs, ","), at, true
}

func accountOf(meta map[string]string, ref string) (int64, error) {
	raw := meta["account_id"]
	if raw == "" {
		raw = ref
	}
	id, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || id <= 0 {
		return 0, errIgnored
	}
	return id, nil
}

// apply does what each event means for Trawl:
//   - checkout.session.completed (payment mode, paid) and
//     checkout.session.async_payment_succeeded: the top-up's credits are
//     added, once per session;
//   - checkout.session.completed (subscription mode): the plan starts;
//   - customer.subscription.created/updated/deleted: the plan follows the
//     subscription's price and status (upgrades, downgrades, payment
//     retries, cancellation), older events never undoing newer ones;
//   - invoice.paid and everything else: nothing to do (Trawl's allowance
//     renews on its own monthly anchor), acknowledged.
func (s *Stripe) apply(ctx context.Context, pay *credits.Payments, ev stripe.Event) error {
	at := time.Unix(ev.Created, 0).UTC()
	switch ev.Type {
	case stripe.EventTypeCheckoutSessionCompleted, stripe.EventTypeCheckoutSessionAsyncPaymentSucceeded:
		var cs stripe.CheckoutSession
		if err := json.Unmarshal(ev.Data.Raw, &cs); err != nil {
			return errors.Join(errIgnored, err)
		}
		switch cs.Mode {
		case stripe.CheckoutSessionModePayment:
			if cs.PaymentStatus != stripe.CheckoutSessionPaymentStatusPaid {
				return nil // an asynchronous payment: async_payment_succeeded follows
			}
			_, err := pay.CompletePurchase(ctx, cs.ID)
			if failure.Is(err, failure.NotFound) {
				return errors.Join(errIgnored, err)
			}
			return err
		case stripe.CheckoutSessionModeSubscription:
			if cs.Subscription == nil || cs.PaymentStatus != stripe.CheckoutSessionPaymentStatusPaid {
				return nil
			}
			account, err := accountOf(cs.Metadata, cs.ClientReferenceID)
			if err != nil {
				return err
			}
			return s.applySubscription(ctx, pay, account, cs.Subscription.ID, cs.Metadata["plan"], credits.SubActive, at)
		}
	case stripe.EventTypeCustomerSubscriptionCreated, stripe.EventTypeCustomerSubscriptionUpdated, stripe.EventTypeCustomerSubscriptionDeleted:
		var sub stripe.Subscription
		if err := json.Unmarshal(ev.Data.Raw, &sub); err != nil {
			return errors.Join(errIgnored, err)
		}
		account, err := accountOf(sub.Metadata, "")
		if err != nil {
			return err
		}
		plan := sub.Metadata["plan"]
		if sub.Items != nil {
			for _, it := range sub.Items.Data {
				if it.Price != nil && s.plans[it.Price.ID] != "" {
					plan = s.plans[it.Price.ID]
				}
			}
		}
		status := string(sub.Status)
		if ev.Type == stripe.EventTypeCustomerSubscriptionDeleted {
			status = credits.SubCanceled
		}
		return s.applySubscription(ctx, pay, account, sub.ID, plan, status, at)
	}
	return nil
}

func (s *Stripe) applySubscription(ctx context.Context, pay *credits.Payments, account int64, subID, plan, status string, at time.Time) error {
	_, err := pay.ApplySubscription(ctx, credits.SubscriptionChange{
		Provider: StripeProvider, AccountID: account, SubscriptionID: subID, Plan: plan, Status: status, At: at,
	})
	if failure.Is(err, failure.Invalid) || failure.Is(err, failure.NotFound) {
		return errors.Join(errIgnored, err)
	}
	return err
}
