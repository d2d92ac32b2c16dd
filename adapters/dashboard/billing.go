package dashboard

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/trawlhq/trawl/core/billing"
	"github.com/trawlhq/trawl/core/credits"
	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/ports"
)

type billingData struct {
	Current    billing.Plan
	Plans      []billing.Plan
	SellsPlans bool
	Price      string // "1,000 credits for 5.00 USD"
	Min, Max   int64
	// NoPlan tells an account without a plan, before it pays, that top-up
	// credits wait for a plan to be spent.
	NoPlan string
}

func money(cents int64, currency string) string {
	return fmt.Sprintf("%d.%02d %s", cents/100, cents%100, strings.ToUpper(currency))
}

func (d *Dashboard) billingView(acct ports.Account) view {
	p := d.svc.Credits.Pricing()
	v := view{Title: "Plans and top-ups", Nav: "billing", Account: &acct, Data: &billingData{
		Current: d.svc.Credits.Plans().Must(acct.Plan), Plans: d.svc.Credits.Plans().All(), SellsPlans: d.svc.Credits.SellsPlans(),
		Price: "1,000 credits for " + money(d.svc.Credits.PriceCents(1000), p.Currency),
		Min:   credits.MinPurchase, Max: credits.MaxPurchase, NoPlan: credits.TopUpNeedsPlan,
	}}
	return v
}

func (d *Dashboard) billingPage(w http.ResponseWriter, r *http.Request, acct ports.Account) {
	v := d.billingView(acct)
	switch {
	case r.URL.Query().Get("purchase") == "cancelled":
		v.Notice = "The top-up was cancelled; nothing was charged."
	case r.URL.Query().Get("subscription") == "cancelled":
		v.Notice = "The subscription was cancelled; nothing was charged."
	case r.URL.Query().Get("subscribed") != "":
		v.Notice = "Thank you. You are on the " + d.svc.Credits.Plans().Must(acct.Plan).DisplayName + " plan."
	}
	d.render(w, r, http.StatusOK, "billing", v)
}

// topUp sends the browser to the provider's hosted checkout.
func (d *Dashboard) topUp(w http.ResponseWriter, r *http.Request, acct ports.Account) {
	v := d.billingView(acct)
	raw := strings.TrimSpace(r.PostFormValue("credits"))
	v.Form = map[string]string{"credits": raw}
	n, err := strconv.ParseInt(strings.ReplaceAll(raw, ",", ""), 10, 64)
	if err != nil {
		d.fail(w, r, "billing", v, credits.NotWholeCredits())
		return
	}
	co, err := d.svc.Credits.Purchase(r.Context(), acct, n)
	if err != nil {
		d.fail(w, r, "billing", v, err)
		return
	}
	http.Redirect(w, r, co.URL, http.StatusSeeOther)
}

func (d *Dashboard) subscribe(w http.ResponseWriter, r *http.Request, acct ports.Account) {
	v := d.billingView(acct)
	co, err := d.svc.Credits.Subscribe(r.Context(), acct, r.PostFormValue("plan"))
	if err != nil {
		if fe, ok := failure.As(err); ok && fe.Kind == failure.Invalid {
			// The plan buttons have no field of their own: say it above them.
			err = failure.E("dashboard.subscribe", failure.Invalid, fe.Message)
		}
		d.fail(w, r, "billing", v, err)
		return
	}
	http.Redirect(w, r, co.URL, http.StatusSeeOther)
}

type planCheckoutData struct {
	Session ports.PlanCheckoutSession
	Plan    billing.Plan
}

// planCheckoutPage is the local provider's hosted page for a plan.
func (d *Dashboard) planCheckoutPage(w http.ResponseWriter, r *http.Request, acct ports.Account) {
	v := view{Title: "Subscribe", Nav: "billing", Account: &acct}
	s, err := d.svc.Payments.PlanCheckout(r.Context(), acct.ID, r.PathValue("id"))
	if err != nil {
		v.Title = "Not found"
		d.fail(w, r, "message", v, err)
		return
	}
	v.Data = &planCheckoutData{Session: s, Plan: d.svc.Credits.Plans().Must(s.Plan)}
	d.render(w, r, http.StatusOK, "plan_checkout", v)
}

func (d *Dashboard) planCheckoutPay(w http.ResponseWriter, r *http.Request, acct ports.Account) {
	if _, err := d.svc.Payments.CompletePlanCheckout(r.Context(), acct.ID, r.PathValue("id")); err != nil {
		d.fail(w, r, "message", view{Title: "Not subscribed", Nav: "billing", Account: &acct}, err)
		return
	}
	http.Redirect(w, r, "/dashboard/billing?subscribed=1", http.StatusSeeOther)
}
