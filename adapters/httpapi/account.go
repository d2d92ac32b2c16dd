package httpapi

import (
	"net/http"

	"github.com/trawlhq/trawl/adapters/callheader"
	"github.com/trawlhq/trawl/core/billing"
	"github.com/trawlhq/trawl/core/credits"
	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/ports"
)

type userJSON struct {
	ID              int64   `json:"id"`
	Name            string  `json:"name"`
	Email           string  `json:"email"`
	EmailVerifiedAt *string `json:"email_verified_at"`
	CreatedAt       string  `json:"created_at"`
	UpdatedAt       string  `json:"updated_at"`
}

func (a *API) getUser(w http.ResponseWriter, r *http.Request) {
	acct, err := a.svc.Auth.Account(r.Context(), principal(r.Context()))
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, userJSON{
		ID: acct.ID, Name: acct.Name, Email: acct.Email, EmailVerifiedAt: isoPtr(acct.EmailVerifiedAt),
		CreatedAt: ports.FormatTime(acct.CreatedAt), UpdatedAt: ports.FormatTime(acct.UpdatedAt),
	})
}

// status loads the caller's credit status; an account that vanished is a 404.
func (a *API) status(w http.ResponseWriter, r *http.Request) (billing.Status, bool) {
	st, err := a.svc.Credits.StatusFor(r.Context(), principal(r.Context()))
	if err != nil {
		a.writeError(w, r, err)
		return st, false
	}
	callheader.SetQuotaWarning(w.Header(), st.Warning())
	return st, true
}

func (a *API) getCredits(w http.ResponseWriter, r *http.Request) {
	st, ok := a.status(w, r)
	if !ok {
		return
	}
	writeRaw(w, http.StatusOK, creditsBody(st))
}

func (a *API) usageStats(w http.ResponseWriter, r *http.Request) {
	if st, ok := a.status(w, r); ok {
		writeRaw(w, http.StatusOK, statusBody(st))
	}
}

type transactionJSON struct {
	ID           int64                     `json:"id"`
	ServiceType  string                    `json:"service_type"`
	ServiceName  string                    `json:"service_name"`
	Credits      int64                     `json:"credits"`
	BalanceAfter int64                     `json:"balance_after"`
	CreatedAt    string                    `json:"created_at"`
	Metadata     ports.TransactionMetadata `json:"metadata"`
}

type linksJSON struct {
	First string  `json:"first"`
	Last  string  `json:"last"`
	Prev  *string `json:"prev"`
	Next  *string `json:"next"`
}

// paginatorJSON is Laravel's LengthAwarePaginator envelope.
type paginatorJSON[T any] struct {
	Data         []T       `json:"data"`
	CurrentPage  int       `json:"current_page"`
	LastPage     int       `json:"last_page"`
	PerPage      int       `json:"per_page"`
	Total        int       `json:"total"`
	From         *int      `json:"from"`
	To           *int      `json:"to"`
	Path         string    `json:"path"`
	FirstPageURL string    `json:"first_page_url"`
	LastPageURL  string    `json:"last_page_url"`
	PrevPageURL  *string   `json:"prev_page_url"`
	NextPageURL  *string   `json:"next_page_url"`
	Links        linksJSON `json:"links"`
}

func (a *API) listTransactions(w http.ResponseWriter, r *http.Request) {
	var fe failure.FieldErrors
	paging := credits.Paging{PerPage: queryInt(&fe, r, "per_page"), Page: queryInt(&fe, r, "page")}
	if err := fe.Err("httpapi.listTransactions"); err != nil {
		a.writeError(w, r, err)
		return
	}
	p, err := a.svc.Credits.Transactions(r.Context(), principal(r.Context()).Account.ID, paging)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	out := paginated[transactionJSON](r, "/v1/credits/transactions", p.Page, p.PerPage, p.Total, p.LastPage())
	for _, t := range p.Items {
		out.Data = append(out.Data, transactionJSON{ID: t.ID, ServiceType: t.ServiceType, ServiceName: t.ServiceName, Credits: t.Credits,
			BalanceAfter: t.BalanceAfter, CreatedAt: ports.FormatTime(t.CreatedAt), Metadata: t.Metadata})
	}
	out.fill(len(p.Items))
	writeJSON(w, http.StatusOK, out)
}

// paginated is the envelope of page (of perPage items, total in all) of
// the list at path; the caller appends the page's items to Data, then
// calls fill.
func paginated[T any](r *http.Request, path string, page, perPage, total, lastPage int) paginatorJSON[T] {
	out := paginatorJSON[T]{Data: []T{}, CurrentPage: page, LastPage: lastPage, PerPage: perPage, Total: total}
	out.Path = absoluteURL(r, path)
	pageURL := func(n int) string { return pageLink(out.Path, n, perPage) }
	out.FirstPageURL, out.LastPageURL = pageURL(1), pageURL(out.LastPage)
	if page > 1 {
		prev := pageURL(min(page-1, out.LastPage))
		out.PrevPageURL = &prev
	}
	if page < out.LastPage {
		next := pageURL(page + 1)
		out.NextPageURL = &next
	}
	out.Links = linksJSON{First: out.FirstPageURL, Last: out.LastPageURL, Prev: out.PrevPageURL, Next: out.NextPageURL}
	return out
}

// fill sets from and to for a page holding n items.
func (p *paginatorJSON[T]) fill(n int) {
	if n > 0 {
		from := (p.CurrentPage-1)*p.PerPage + 1
		to := from + n - 1
		p.From, p.To = &from, &to
	}
}

type previewJSON struct {
	ServiceType          string `json:"service_type"`
	ServiceName          string `json:"service_name"`
	CreditCostPerRequest int64  `json:"credit_cost_per_request"`
	Quantity             int64  `json:"quantity"`
	TotalCost            int64  `json:"total_cost"`
	CurrentBalance       int64  `json:"current_balance"`
	RemainingAfter       int64  `json:"remaining_after"`
	CanAfford            bool   `json:"can_afford"`
}

func (a *API) preview(w http.ResponseWriter, r *http.Request) (previewJSON, bool) {
	b, err := decodeBody(r)
	if err != nil {
		a.writeError(w, r, err)
		return previewJSON{}, false
	}
	var fe failure.FieldErrors
	st, _ := b.String(&fe, "service_type")
	var qty *int64
	if n, given := b.Int(&fe, "quantity", 0); given {
		qty = &n
	}
	if err := fe.Err("httpapi.preview"); err != nil {
		a.writeError(w, r, err)
		return previewJSON{}, false
	}
	p, err := a.svc.Credits.Preview(r.Context(), principal(r.Context()).Account.ID, st, qty)
	if err != nil {
		a.writeError(w, r, err)
		return previewJSON{}, false
	}
	return previewJSON{p.ServiceType, p.ServiceName, p.CreditCostPerRequest, p.Quantity, p.TotalCost, p.CurrentBalance, p.RemainingAfter, p.CanAfford}, true
}

func (a *API) previewCost(w http.ResponseWriter, r *http.Request) {
	if p, ok := a.preview(w, r); ok {
		writeJSON(w, http.StatusOK, p)
	}
}

func (a *API) canAfford(w http.ResponseWriter, r *http.Request) {
	if p, ok := a.preview(w, r); ok {
		writeJSON(w, http.StatusOK, map[string]any{"can_afford": p.CanAfford, "preview": p})
	}
}

func (a *API) purchase(w http.ResponseWriter, r *http.Request) {
	b, err := decodeBody(r)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	var fe failure.FieldErrors
	n, present := b.Int(&fe, "credits", 0)
	if !present {
		fe.Add("credits", "The credits field is required.")
	}
	if err := fe.Err("httpapi.purchase"); err != nil {
		a.writeError(w, r, err)
		return
	}
	acct, err := a.svc.Auth.Account(r.Context(), principal(r.Context()))
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	co, err := a.svc.Credits.Purchase(r.Context(), acct, n)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"checkout_url": co.URL, "session_id": co.SessionID})
}
