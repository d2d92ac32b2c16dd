package app

import (
	"log/slog"

	"github.com/trawlhq/trawl/adapters/dashboard"
	"github.com/trawlhq/trawl/adapters/httpapi"
	"github.com/trawlhq/trawl/adapters/password"
	"github.com/trawlhq/trawl/adapters/payment"
	"github.com/trawlhq/trawl/adapters/sqlstore"
	"github.com/trawlhq/trawl/core/account"
	"github.com/trawlhq/trawl/core/bulk"
	"github.com/trawlhq/trawl/core/credits"
	"github.com/trawlhq/trawl/ports"
)

// MountDashboard serves the dashboard under /dashboard/ (with the front
// page and the favicon) and, with Stripe as
// the payment provider, its webhook at POST /webhooks/stripe.
func MountDashboard(api *httpapi.API, c Config, store *sqlstore.Store, s Services, out Outbound, lim ports.RateLimiter, clk ports.Clock, payments ports.PaymentProvider, log *slog.Logger) error {
	pay, err := credits.NewPayments(s.Credits, store, store, clk)
	if err != nil {
		return err
	}
	dash, err := NewDashboard(c, store, s, out, lim, clk, pay, log)
	if err != nil {
		return err
	}
	api.Mount(dashboard.Prefix, dash.Handler())
	for _, p := range dashboard.RootPatterns {
		api.Mount(p, dash.Handler())
	}
	if st, ok := payments.(*payment.Stripe); ok {
		api.Mount("POST /webhooks/stripe", st.WebhookHandler(pay, log))
	}
	return nil
}

// NewDashboard builds the browser dashboard over the same core services as
// the API: sign-in state lives in the store, mail goes through the Mailer.
func NewDashboard(c Config, store *sqlstore.Store, s Services, out Outbound, lim ports.RateLimiter, clk ports.Clock, pay *credits.Payments, log *slog.Logger) (*dashboard.Dashboard, error) {
	accounts, err := account.NewService(store, store, password.New(password.Default), out.Mailer, lim, clk,
		account.Options{PublicURL: c.PublicBase(), MailFrom: c.MailFrom})
	if err != nil {
		return nil, err
	}
	jobs, err := bulk.NewJobList(store, out.Blobs, c.LinkTTL)
	if err != nil {
		return nil, err
	}
	secrets, err := bulk.NewSecrets(store)
	if err != nil {
		return nil, err
	}
	return dashboard.New(dashboard.Deps{
		Accounts: accounts, Auth: s.Auth, Credits: s.Credits, Bulk: s.Bulk, Jobs: jobs, Secrets: secrets, Payments: pay,
		Logger: log, PublicURL: c.PublicBase(),
	})
}
