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

var checkoutTmpl = template.Must(template.New("checkout").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Trawl checkout</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#1b1f24}
.card{border:1px solid #d0d7de;border-radius:8px;padding:1.5rem}button{font-size:1rem;padding:.6rem 1.4rem;border-radius:6px;border:0;background:#1f6feb;color:#fff;cursor:pointer}
.muted{color:#57606a;font-size:.9rem}</style></head>
<body><div class="card">
<h1>Credit top-up</h1>
{{if .Paid}}<p><strong>Payment complete.</strong> {{.Credits}} credits were added to your balance.</p>
{{else}}<p>{{.Credits}} credits for <strong>{{.Amount}}</strong>.</p>
<form method="post" action="/checkout/{{.ID}}/pay"><button type="submit">Pay {{.Amount}}</button></form>
<p class="muted">Local checkout: this Trawl server runs without an external payment provider, so paying here adds the credits directly.</p>{{end}}
</div></body></html>`))

func formatMoney(cents int64, currency string) string {
	return fmt.Sprintf("%d.%02d %s", cents/100, cents%100, strings.ToUpper(currency))
}

func (a *API) checkoutPage(w http.ResponseWriter, r *http.Request) {
	cs, err := a.credits.CheckoutSession(r.Context(), r.PathValue("session"))
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_ = checkoutTmpl.Execute(w, map[string]any{
		"ID": cs.ID, "Credits": billing.FormatCredits(cs.Credits), "Amount": formatMoney(cs.AmountCents, cs.Currency), "Paid": cs.PaidAt != nil,
	})
}

func (a *API) checkoutPay(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("session")
	if _, err := a.credits.CompletePurchase(r.Context(), id); err != nil {
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
