package dashboard

import (
	"net/http"

	"github.com/trawlhq/trawl/core/account"
	"github.com/trawlhq/trawl/ports"
)

func (d *Dashboard) signUpPage(w http.ResponseWriter, r *http.Request) {
	d.render(w, r, http.StatusOK, "signup", view{Title: "Create your account"})
}

func (d *Dashboard) signUp(w http.ResponseWriter, r *http.Request) {
	email, pw := r.PostFormValue("email"), r.PostFormValue("password")
	v := view{Title: "Create your account", Form: map[string]string{"email": email}}
	if err := account.CheckSignUp(email, pw, r.PostFormValue("password_confirmation")); err != nil {
		d.fail(w, r, "signup", v, err)
		return
	}
	acct, err := d.svc.Accounts.SignUp(r.Context(), email, pw, clientAddr(r))
	if err != nil && acct.Email == "" {
		d.fail(w, r, "signup", v, err)
		return
	}
	if err != nil {
		http.Redirect(w, r, "/dashboard/signin?signedup=unsent", http.StatusSeeOther)
		return
	}
	http.Redirect(w, r, "/dashboard/signin?signedup=1", http.StatusSeeOther)
}

// verifyPage asks for a click before using the link, so a mail scanner
// that fetches every link does not consume it.
func (d *Dashboard) verifyPage(w http.ResponseWriter, r *http.Request) {
	d.render(w, r, http.StatusOK, "verify", view{Title: "Verify your email", Form: map[string]string{"token": r.URL.Query().Get("token")}})
}

func (d *Dashboard) verify(w http.ResponseWriter, r *http.Request) {
	acct, err := d.svc.Accounts.VerifyEmail(r.Context(), r.PostFormValue("token"))
	if err != nil {
		d.fail(w, r, "message", view{Title: "Verification failed"}, err)
		return
	}
	if cur, err := d.svc.Accounts.Session(r.Context(), d.sessionSecret(r)); err == nil && cur.ID == acct.ID {
		http.Redirect(w, r, "/dashboard/tokens?verified=1", http.StatusSeeOther)
		return
	}
	http.Redirect(w, r, "/dashboard/signin?verified=1", http.StatusSeeOther)
}

func (d *Dashboard) resend(w http.ResponseWriter, r *http.Request, acct ports.Account) {
	if err := d.svc.Accounts.SendVerification(r.Context(), acct.ID); err != nil {
		d.fail(w, r, "message", view{Title: "Email not sent", Account: &acct}, err)
		return
	}
	http.Redirect(w, r, "/dashboard/tokens?sent=1", http.StatusSeeOther)
}

// signInNotices are what the sign-in page says after a redirect to it.
var signInNotices = map[string]map[string]string{
	"signedup": {
		"1":      "Your account is ready to sign in. We sent a link to your email address: open it to verify the address, which API tokens need.",
		"unsent": "Your account was created, but the verification email could not be sent. Sign in to send it again.",
	},
	"verified":  {"1": "Your email is verified. Sign in to continue."},
	"signedout": {"1": "You are signed out."},
	"expired":   {"1": "Your session has ended: it expired, or it was signed out from another page or by a password change. Sign in again to continue."},
	"reset":     {"1": "Your password is changed and every browser was signed out. Sign in with the new password."},
}

func (d *Dashboard) signInPage(w http.ResponseWriter, r *http.Request) {
	v := view{Title: "Sign in"}
	q := r.URL.Query()
	for key, notices := range signInNotices {
		if n, ok := notices[q.Get(key)]; ok {
			v.Notice = n
		}
	}
	d.render(w, r, http.StatusOK, "signin", v)
}

// signIn always starts a new session with a new id: a session id planted
// in the browser before sign-in (fixation) is ended, never promoted. The
// browser keeps a device cookie, which gives it a budget of failed sign-ins
// of its own (core/account).
func (d *Dashboard) signIn(w http.ResponseWriter, r *http.Request) {
	email := r.PostFormValue("email")
	v := view{Title: "Sign in", Form: map[string]string{"email": email}}
	in, err := d.svc.Accounts.SignIn(r.Context(), email, r.PostFormValue("password"), clientAddr(r), d.cookie(r, d.deviceCookieName()))
	if err != nil {
		d.fail(w, r, "signin", v, err)
		return
	}
	if old := d.sessionSecret(r); old != "" {
		_ = d.svc.Accounts.SignOut(r.Context(), old)
	}
	d.setSession(w, r, in.Secret, in.Lifetime)
	d.setCookie(w, r, d.deviceCookieName(), "/dashboard/signin", in.Device, in.DeviceLifetime)
	http.Redirect(w, r, "/dashboard/tokens", http.StatusSeeOther)
}

func (d *Dashboard) signOut(w http.ResponseWriter, r *http.Request) {
	if err := d.svc.Accounts.SignOut(r.Context(), d.sessionSecret(r)); err != nil {
		d.fail(w, r, "message", view{Title: "Error"}, err)
		return
	}
	d.clearSession(w, r)
	http.Redirect(w, r, "/dashboard/signin?signedout=1", http.StatusSeeOther)
}

func (d *Dashboard) forgotPage(w http.ResponseWriter, r *http.Request) {
	v := view{Title: "Reset your password"}
	if r.URL.Query().Get("sent") != "" {
		v.Notice = "If an account uses that address, a link to reset its password is on its way."
	}
	d.render(w, r, http.StatusOK, "forgot", v)
}

func (d *Dashboard) forgot(w http.ResponseWriter, r *http.Request) {
	email := r.PostFormValue("email")
	v := view{Title: "Reset your password", Form: map[string]string{"email": email}}
	if err := d.svc.Accounts.RequestPasswordReset(r.Context(), email); err != nil {
		d.fail(w, r, "forgot", v, err)
		return
	}
	http.Redirect(w, r, "/dashboard/forgot?sent=1", http.StatusSeeOther)
}

func (d *Dashboard) resetPage(w http.ResponseWriter, r *http.Request) {
	d.render(w, r, http.StatusOK, "reset", view{Title: "Choose a new password", Form: map[string]string{"token": r.URL.Query().Get("token")}})
}

func (d *Dashboard) reset(w http.ResponseWriter, r *http.Request) {
	token := r.PostFormValue("token")
	v := view{Title: "Choose a new password", Form: map[string]string{"token": token}}
	pw := r.PostFormValue("password")
	if err := account.CheckNewPassword(pw, r.PostFormValue("password_confirmation")); err != nil {
		d.fail(w, r, "reset", v, err)
		return
	}
	if err := d.svc.Accounts.ResetPassword(r.Context(), token, pw); err != nil {
		d.fail(w, r, "reset", v, err)
		return
	}
	d.clearSession(w, r)
	http.Redirect(w, r, "/dashboard/signin?reset=1", http.StatusSeeOther)
}
