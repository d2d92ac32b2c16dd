package dashboard

import (
	"net/http"
	"strconv"

	"github.com/trawlhq/trawl/core/auth"
	"github.com/trawlhq/trawl/core/billing"
	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/ports"
)

type tokensData struct {
	Tokens   []ports.Token
	Plan     billing.Plan
	AtCap    bool
	Verified bool
	// New is the token just created: its secret is on this one response only.
	New *auth.NewToken
}

func (d *Dashboard) tokensView(r *http.Request, acct ports.Account) (view, error) {
	toks, err := d.auth.ListTokens(r.Context(), acct.ID)
	if err != nil {
		return view{}, err
	}
	plan := d.credits.Plans().Must(acct.Plan)
	v := view{Title: "API tokens", Nav: "tokens", Account: &acct, Data: &tokensData{
		Tokens: toks, Plan: plan, AtCap: auth.AtCap(plan, len(toks)), Verified: acct.EmailVerifiedAt != nil,
	}}
	q := r.URL.Query()
	switch {
	case q.Get("deleted") != "":
		v.Notice = "The token was deleted. Requests made with it are refused from now on."
	case q.Get("verified") != "":
		v.Notice = "Your email is verified."
	case q.Get("sent") != "":
		v.Notice = "A new verification link is on its way to " + acct.Email + "."
	}
	return v, nil
}

func (d *Dashboard) tokensPage(w http.ResponseWriter, r *http.Request, acct ports.Account) {
	v, err := d.tokensView(r, acct)
	if err != nil {
		d.fail(w, r, "message", view{Title: "Error", Account: &acct}, err)
		return
	}
	d.render(w, r, http.StatusOK, "tokens", v)
}

func (d *Dashboard) createToken(w http.ResponseWriter, r *http.Request, acct ports.Account) {
	v, err := d.tokensView(r, acct)
	if err != nil {
		d.fail(w, r, "message", view{Title: "Error", Account: &acct}, err)
		return
	}
	name := r.PostFormValue("name")
	v.Form = map[string]string{"name": name}
	tok, err := d.auth.CreateOwnToken(r.Context(), acct.ID, name)
	if failure.Is(err, failure.Conflict) {
		// The plan's cap: say why beside the name field.
		v.Fields = map[string][]string{"name": {failure.Public(err, "Your plan allows no more tokens.")}}
		d.render(w, r, http.StatusConflict, "tokens", v)
		return
	}
	if err != nil {
		d.fail(w, r, "tokens", v, err)
		return
	}
	v, err = d.tokensView(r, acct)
	if err != nil {
		d.fail(w, r, "message", view{Title: "Error", Account: &acct}, err)
		return
	}
	v.Data.(*tokensData).New = &tok
	d.render(w, r, http.StatusCreated, "tokens", v)
}

// tokenID is the token id in the path; one that is not a number names no
// token (0).
func tokenID(r *http.Request) int64 {
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	return id
}

func (d *Dashboard) deleteTokenPage(w http.ResponseWriter, r *http.Request, acct ports.Account) {
	tok, err := d.auth.Token(r.Context(), acct.ID, tokenID(r))
	if err != nil {
		d.fail(w, r, "message", view{Title: "Not found", Account: &acct, Nav: "tokens"}, err)
		return
	}
	d.render(w, r, http.StatusOK, "delete_token", view{Title: "Delete a token", Nav: "tokens", Account: &acct, Data: tok})
}

func (d *Dashboard) deleteToken(w http.ResponseWriter, r *http.Request, acct ports.Account) {
	if err := d.auth.DeleteToken(r.Context(), acct.ID, tokenID(r)); err != nil {
		d.fail(w, r, "message", view{Title: "Not deleted", Account: &acct, Nav: "tokens"}, err)
		return
	}
	http.Redirect(w, r, "/dashboard/tokens?deleted=1", http.StatusSeeOther)
}
