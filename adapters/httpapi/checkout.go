package httpapi

import (
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/trawlhq/trawl/core/billing"
)

// checkoutTmpl is the local provider's top-up page, in the dashboard's
// look (its stylesheet and header), leading back to it.
var checkoutTmpl = template.Must(template.New("checkout").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Credit top-up · Trawl</title>
<link rel="icon" href="/favicon.ico" sizes="32x32">
<link rel="stylesheet" href="/dashboard/static/dashboard.css">
</head><body>
<header class="top"><a class="brand" href="/dashboard/">Trawl</a></header>
<main id="main">
<h1>Credit top-up</h1>
<div class="card">
{{if .Paid}}<p><strong>Payment complete.</strong> {{.Credits}} credits were added to your balance.</p>
<p><a href="/dashboard/usage">See your balance</a> · <a href="/dashboard/">Back to the dashboard</a></p>
{{else}}<p>{{.Credits}} credits for <strong>{{.Amount}}</strong>.</p>
{{with .Notice}}<p class="warning" id="no-plan">{{.}}</p>{{end}}
<form method="post" action="/checkout/{{.ID}}/pay"><button type="submit">Pay {{.Amount}}</button></form>
<p class="muted">Local checkout: this Trawl server runs without an external payment provider, so paying here adds the credits directly.</p>
<p><a href="/dashboard/billing?purchase=cancelled">Cancel and go back to the dashboard</a></p>{{end}}
</div>
</main>
</body></html>`))

func formatMoney(cents int64, currency string) string {
	return fmt.Sprintf("%d.%02d %s", cents/100, cents%100, strings.ToUpper(currency))
}

func (a *API) checkoutPage(w http.ResponseWriter, r *http.Request) {
	cs, err := a.svc.Credits.CheckoutSession(r.Context(), r.PathValue("session"))
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_ = checkoutTmpl.Execute(w, map[string]any{
		"ID": cs.ID, "Credits": billing.FormatCredits(cs.Credits), "Amount": formatMoney(cs.AmountCents, cs.Currency), "Paid": cs.PaidAt != nil,
		"Notice": a.svc.Credits.TopUpNotice(r.Context(), cs.AccountID),
	})
}

func (a *API) checkoutPay(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("session")
	if _, err := a.svc.Credits.CompletePurchase(r.Context(), id); err != nil {
		a.writeError(w, r, err)
		return
	}
	http.Redirect(w, r, "/checkout/"+url.PathEscape(id), http.StatusSeeOther)
}

// absoluteURL builds an absolute URL to path on the host the client used.
func absoluteURL(r *http.Request, path string) string {
	scheme := "http"
	if r.TLS != nil || strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https") {
		scheme = "https"
	}
	return scheme + "://" + r.Host + path
}

func pageLink(base string, page, perPage int) string {
	return base + "?page=" + strconv.Itoa(page) + "&per_page=" + strconv.Itoa(perPage)
}
