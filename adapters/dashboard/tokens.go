package dashboard

import (
	"net/http"
	"strconv"

	"github.com/trawlhq/trawl/core/account"
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
		Tokens: toks, Plan: plan, AtCap: len(toks) >= plan.MaxTokens, Verified: acct.EmailVerifiedAt != nil,
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
	if err := account.CanCreateTokens(acct); err != nil {
		d.fail(w, r, "tokens", v, err)
		return
	}
	tok, err := d.auth.CreateToken(r.Context(), acct.ID, name)
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

// ownToken finds a token of the account; another account's id is NotFound.
func (d *Dashboard) ownToken(r *http.Request, acct ports.Account) (ports.Token, error) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err == nil {
		toks, lerr := d.auth.ListTokens(r.Context(), acct.ID)
		if lerr != nil {
			return ports.Token{}, lerr
		}
		for _, t := range toks {
			if t.ID == id {
				return t, nil
			}
		}
	}
	return ports.Token{}, failure.E("dashboard.token", failure.NotFound, "There is no such token in your account.")
}

func (d *Dashboard) deleteTokenPage(w http.ResponseWriter, r *http.Request, acct ports.Account) {
	tok, err := d.ownToken(r, acct)
	if err != nil {
		d.fail(w, r, "message", view{Title: "Not found", Account: &acct, Nav: "tokens"}, err)
		return
	}
	d.render(w, r, http.StatusOK, "delete_token", view{Title: "Delete a token", Nav: "tokens", Account: &acct, Data: tok})
}

func (d *Dashboard) deleteToken(w http.ResponseWriter, r *http.Request, acct ports.Account) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err == nil {
		err = d.auth.DeleteToken(r.Context(), acct.ID, id)
	} else {
		err = failure.E("dashboard.deleteToken", failure.NotFound, "")
	}
	if failure.Is(err, failure.NotFound) {
		err = failure.E("dashboard.deleteToken", failure.NotFound, "There is no such token in your account.")
	}
	if err != nil {
		d.fail(w, r, "message", view{Title: "Not deleted", Account: &acct, Nav: "tokens"}, err)
		return
	}
	http.Redirect(w, r, "/dashboard/tokens?deleted=1", http.StatusSeeOther)
}
