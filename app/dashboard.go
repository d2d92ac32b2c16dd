package app

import (
	"errors"
	"log/slog"

	"github.com/trawlhq/trawl/adapters/dashboard"
	"github.com/trawlhq/trawl/adapters/httpapi"
	"github.com/trawlhq/trawl/adapters/payment"
	"github.com/trawlhq/trawl/core/service"
	"github.com/trawlhq/trawl/ports"
)

// MountDashboard serves the dashboard under /dashboard/ (with the front
// page and the favicon) and, with Stripe as the payment provider, its
// webhook at POST /webhooks/stripe. The pages run over the same services
// as the API: sign-in state lives in the store, mail goes through the Mailer.
func MountDashboard(api *httpapi.API, c Config, s *service.Services, payments ports.PaymentProvider, log *slog.Logger) error {
	if s.Payments == nil {
		return errors.New("the dashboard needs a store that keeps credentials and payments")
	}
	dash, err := dashboard.New(s, dashboard.Options{Logger: log, PublicURL: c.PublicBase()})
	if err != nil {
		return err
	}
	api.Mount(dashboard.Prefix, dash.Handler())
	for _, p := range dashboard.RootPatterns {
		api.Mount(p, dash.Handler())
	}
	if st, ok := payments.(*payment.Stripe); ok {
		api.Mount("POST /webhooks/stripe", st.WebhookHandler(s.Payments, log))
	}
	return nil
}
