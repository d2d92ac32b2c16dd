package dashboard

import (
	"net/http"
	"strings"

	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/ports"
)

func (d *Dashboard) signUpPage(w http.ResponseWriter, r *http.Request) {
	d.render(w, r, http.StatusOK, "signup", view{Title: "Create your account"})
}

func (d *Dashboard) signUp(w http.ResponseWriter, r *http.Request) {
	email := r.PostFormValue("email")
	v := view{Title: "Create your account", Form: map[string]string{"email": email}}
	if r.PostFormValue("password") != r.PostFormValue("password_confirmation") {
		v.Fields = map[string][]string{"password_confirmation": {"The two passwords do not match."}}
		d.render(w, r, http.StatusUnprocessableEntity, "signup", v)
		return
	}
	acct, err := d.acc.SignUp(r.Context(), email, r.PostFormValue("password"), clientAddr(r))
	if err != nil && acct.ID == 0 {
		d.fail(w, r, "signup", v, err)
		return
	}
	notice := "We sent a verification link to " + acct.Email + ". Open it, then sign in."
	if err != nil {
		notice = "Your account was created, but " + strings.ToLower(failure.Public(err, "the verification email could not be sent.")) + " Sign in to send it again."
	}
	d.render(w, r, http.StatusOK, "signin", view{Title: "Sign in", Notice: notice, Form: map[string]string{"email": acct.Email}})
}

// verifyPage asks for a click before using the link, so a mail scanner
// that fetches every link does not consume it.
func (d *Dashboard) verifyPage(w http.ResponseWriter, r *http.Request) {
	d.render(w, r, http.StatusOK, "verify", view{Title: "Verify your email", Form: map[string]string{"token": r.URL.Query().Get("token")}})
}

func (d *Dashboard) verify(w http.ResponseWriter, r *http.Request) {
	acct, err := d.acc.VerifyEmail(r.Context(), r.PostFormValue("token"))
	if err != nil {
		d.fail(w, r, "message", view{Title: "Verification failed"}, err)
		return
	}
	v := view{Title: "Sign in", Notice: "Your email " + acct.Email + " is verified.", Form: map[string]string{"email": acct.Email}}
	if cur, err := d.acc.Session(r.Context(), d.sessionSecret(r)); err == nil && cur.ID == acct.ID {
		http.Redirect(w, r, "/dashboard/tokens?verified=1", http.StatusSeeOther)
		return
	}
	d.render(w, r, http.StatusOK, "signin", v)
}

func (d *Dashboard) resend(w http.ResponseWriter, r *http.Request, acct ports.Account) {
	if err := d.acc.SendVerification(r.Context(), acct.ID); err != nil {
		d.fail(w, r, "message", view{Title: "Email not sent", Account: &acct}, err)
		return
	}
	http.Redirect(w, r, "/dashboard/tokens?sent=1", http.StatusSeeOther)
}

func (d *Dashboard) signInPage(w http.ResponseWriter, r *http.Request) {
	d.render(w, r, http.StatusOK, "signin", view{Title: "Sign in"})
}

// signIn always starts a new session with a new id: a session id planted
// in the browser before sign-in (fixation) is ended, never promoted.
func (d *Dashboard) signIn(w http.ResponseWriter, r *http.Request) {
	email := r.PostFormValue("email")
	v := view{Title: "Sign in", Form: map[string]string{"email": email}}
	in, err := d.acc.SignIn(r.Context(), email, r.PostFormValue("password"), clientAddr(r))
	if err != nil {
		d.fail(w, r, "signin", v, err)
		return
	}
	if old := d.sessionSecret(r); old != "" {
		_ = d.acc.SignOut(r.Context(), old)
	}
	d.setSession(w, r, in.Secret, in.Lifetime)
	http.Redirect(w, r, "/dashboard/tokens", http.StatusSeeOther)
}

func (d *Dashboard) signOut(w http.ResponseWriter, r *http.Request) {
	if err := d.acc.SignOut(r.Context(), d.sessionSecret(r)); err != nil {
		d.fail(w, r, "message", view{Title: "Error"}, err)
		return
	}
	d.clearSession(w, r)
	d.render(w, r, http.StatusOK, "signin", view{Title: "Sign in", Notice: "You are signed out."})
}

func (d *Dashboard) forgotPage(w http.ResponseWriter, r *http.Request) {
	d.render(w, r, http.StatusOK, "forgot", view{Title: "Reset your password"})
}

func (d *Dashboard) forgot(w http.ResponseWriter, r *http.Request) {
	email := r.PostFormValue("email")
	v := view{Title: "Reset your password", Form: map[string]string{"email": email}}
	if err := d.acc.RequestPasswordReset(r.Context(), email); err != nil {
		d.fail(w, r, "forgot", v, err)
		return
	}
	v.Notice = "If an account uses " + strings.TrimSpace(email) + ", a link to reset its password is on its way."
	d.render(w, r, http.StatusOK, "forgot", v)
}

func (d *Dashboard) resetPage(w http.ResponseWriter, r *http.Request) {
	d.render(w, r, http.StatusOK, "reset", view{Title: "Choose a new password", Form: map[string]string{"token": r.URL.Query().Get("token")}})
}

func (d *Dashboard) reset(w http.ResponseWriter, r *http.Request) {
	token := r.PostFormValue("token")
	v := view{Title: "Choose a new password", Form: map[string]string{"token": token}}
	if r.PostFormValue("password") != r.PostFormValue("password_confirmation") {
		v.Fields = map[string][]string{"password_confirmation": {"The two passwords do not match."}}
		d.render(w, r, http.StatusUnprocessableEntity, "reset", v)
		return
	}
	if err := d.acc.ResetPassword(r.Context(), token, r.PostFormValue("password")); err != nil {
		d.fail(w, r, "reset", v, err)
		return
	}
	d.clearSession(w, r)
	d.render(w, r, http.StatusOK, "signin", view{Title: "Sign in", Notice: "Your password is changed and every browser was signed out. Sign in with the new password."})
}
