package dashboard

import (
	"net/http"
	"strconv"
	"strings"
	"time"

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
	toks, err := d.svc.Auth.ListTokens(r.Context(), acct.ID)
	if err != nil {
		return view{}, err
	}
	plan := d.svc.Credits.Plans().Must(acct.Plan)
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

// tokensPage shows the account's tokens and, once, the secret of the token
// the browser just created (newTokenCookieName, cleared here).
func (d *Dashboard) tokensPage(w http.ResponseWriter, r *http.Request, acct ports.Account) {
	v, err := d.tokensView(r, acct)
	if err != nil {
		d.fail(w, r, "message", view{Title: "Error", Account: &acct}, err)
		return
	}
	if c := d.cookie(r, d.newTokenCookieName()); c != "" {
		d.setCookie(w, r, d.newTokenCookieName(), "/dashboard/tokens", "", -time.Second)
		idText, secret, _ := strings.Cut(c, ".")
		id, _ := strconv.ParseInt(idText, 10, 64)
		// Shown only when the secret is the one of a token of this account.
		for _, t := range v.Data.(*tokensData).Tokens {
			if t.ID == id && t.Hash == auth.HashSecret(secret) {
				v.Data.(*tokensData).New = &auth.NewToken{Token: t, Secret: secret}
			}
		}
	}
	d.render(w, r, http.StatusOK, "tokens", v)
}

// createToken answers with a redirect (a reload never creates a second
// token); the secret rides to the next page in a short-lived cookie.
func (d *Dashboard) createToken(w http.ResponseWriter, r *http.Request, acct ports.Account) {
	name := r.PostFormValue("name")
	tok, err := d.svc.Auth.CreateOwnToken(r.Context(), acct.ID, name)
	if err != nil {
		v, verr := d.tokensView(r, acct)
		if verr != nil {
			d.fail(w, r, "message", view{Title: "Error", Account: &acct}, verr)
			return
		}
		v.Form = map[string]string{"name": name}
		if failure.Is(err, failure.Conflict) {
			// The plan's cap: say why beside the name field.
			v.Fields = map[string][]string{"name": {failure.Public(err, "Your plan allows no more tokens.")}}
			d.render(w, r, http.StatusConflict, "tokens", v)
			return
		}
		d.fail(w, r, "tokens", v, err)
		return
	}
	d.setCookie(w, r, d.newTokenCookieName(), "/dashboard/tokens", strconv.FormatInt(tok.Token.ID, 10)+"."+tok.Secret, 5*time.Minute)
	http.Redirect(w, r, "/dashboard/tokens?created=1", http.StatusSeeOther)
}

// tokenID is the token id in the path; one that is not a number names no
// token (0).
func tokenID(r *http.Request) int64 {
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	return id
}

func (d *Dashboard) deleteTokenPage(w http.ResponseWriter, r *http.Request, acct ports.Account) {
	tok, err := d.svc.Auth.Token(r.Context(), acct.ID, tokenID(r))
	if err != nil {
		d.fail(w, r, "message", view{Title: "Not found", Account: &acct, Nav: "tokens"}, err)
		return
	}
	d.render(w, r, http.StatusOK, "delete_token", view{Title: "Delete a token", Nav: "tokens", Account: &acct, Data: tok})
}

func (d *Dashboard) deleteToken(w http.ResponseWriter, r *http.Request, acct ports.Account) {
	if err := d.svc.Auth.DeleteToken(r.Context(), acct.ID, tokenID(r)); err != nil {
		d.fail(w, r, "message", view{Title: "Not deleted", Account: &acct, Nav: "tokens"}, err)
		return
	}
	http.Redirect(w, r, "/dashboard/tokens?deleted=1", http.StatusSeeOther)
}
