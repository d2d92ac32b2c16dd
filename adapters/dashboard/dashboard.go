// Package dashboard is Trawl's browser delivery: server-rendered pages
// (html/template) where a customer signs up, signs in and manages API
// tokens. Like the JSON API it only decodes a form, calls the core, maps the
// error and renders; every page works without JavaScript.
package dashboard

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/trawlhq/trawl/adapters/errmap"
	"github.com/trawlhq/trawl/core/billing"
	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/core/service"
	"github.com/trawlhq/trawl/ports"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// Prefix is where the dashboard is mounted.
const Prefix = "/dashboard/"

// Options are the dashboard's transport settings.
type Options struct {
	Logger *slog.Logger
	// PublicURL is the server's external base URL; an https one makes the
	// session cookie Secure.
	PublicURL string
}

// Dashboard serves the pages.
type Dashboard struct {
	svc    *service.Services
	log    *slog.Logger
	secure bool
	pages  map[string]*template.Template
	mux    *http.ServeMux
	csrf   *http.CrossOriginProtection
}

// New serves the application's account pages; it fails when the services
// lack one the pages use.
func New(s *service.Services, o Options) (*Dashboard, error) {
	if s == nil || s.Accounts == nil || s.Auth == nil || s.Credits == nil || s.Bulk == nil || s.Jobs == nil || s.Secrets == nil || s.Payments == nil {
		return nil, errors.New("dashboard.New: accounts, auth, credits, bulk, jobs, secrets and payments are required")
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	pages, err := parsePages()
	if err != nil {
		return nil, err
	}
	db := &Dashboard{
		svc: s, log: o.Logger, pages: pages, mux: http.NewServeMux(),
		secure: strings.HasPrefix(strings.ToLower(o.PublicURL), "https://"),
		csrf:   http.NewCrossOriginProtection(),
	}
	db.csrf.SetDenyHandler(http.HandlerFunc(db.forbidden))
	db.routes()
	return db, nil
}

var funcs = template.FuncMap{
	"when": func(t *time.Time) string {
		if t == nil {
			return "never"
		}
		return t.UTC().Format("2006-01-02 15:04 UTC")
	},
	"at":      func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") },
	"credits": billing.FormatCredits,
	"num":     num,
	"url":     breakURL,
	"f":       newField,
	"neg":     func(n int64) int64 { return -n },
}

// num writes a count with thousands separators, like credits.
func num(n any) string {
	switch v := n.(type) {
	case int:
		return billing.FormatCredits(int64(v))
	case int64:
		return billing.FormatCredits(v)
	case int32:
		return billing.FormatCredits(int64(v))
	}
	return fmt.Sprint(n)
}

// breakURL lets a long URL wrap after its slashes and before its query
// separators instead of anywhere (or nowhere): each piece is escaped and a
// <wbr> marks where a line may end.
func breakURL(u string) template.HTML {
	var b strings.Builder
	start := 0
	for i := 0; i < len(u); i++ {
		switch u[i] {
		case '/', '-', '_':
			if i+1 < len(u) && u[i+1] != '/' {
				b.WriteString(template.HTMLEscapeString(u[start : i+1]))
				b.WriteString("<wbr>")
				start = i + 1
			}
		case '?', '&', '=', '#':
			b.WriteString(template.HTMLEscapeString(u[start:i]))
			b.WriteString("<wbr>")
			start = i
		}
	}
	b.WriteString(template.HTMLEscapeString(u[start:]))
	return template.HTML(b.String())
}

// field is one labelled input and the messages shown beside it.
type field struct {
	Name, Label, Type, Value, Autocomplete, Hint string
	Required                                     bool
	Errors                                       []string
}

// newField builds a field of a page; passwords are never filled back in.
func newField(v view, name, label, typ, autocomplete, hint string) field {
	f := field{Name: name, Label: label, Type: typ, Autocomplete: autocomplete, Hint: hint, Required: true, Errors: v.Fields[name]}
	if typ != "password" {
		f.Value = v.Form[name]
	}
	return f
}

func parsePages() (map[string]*template.Template, error) {
	layout, err := template.New("layout.html").Funcs(funcs).ParseFS(templateFS, "templates/layout.html")
	if err != nil {
		return nil, err
	}
	names, err := fs.Glob(templateFS, "templates/*.html")
	if err != nil {
		return nil, err
	}
	pages := map[string]*template.Template{}
	for _, n := range names {
		base := strings.TrimSuffix(strings.TrimPrefix(n, "templates/"), ".html")
		if base == "layout" {
			continue
		}
		t, err := template.Must(layout.Clone()).ParseFS(templateFS, n)
		if err != nil {
			return nil, err
		}
		pages[base] = t
	}
	return pages, nil
}

// Handler serves the dashboard: every state-changing request must come
// from the dashboard's own origin (Fetch metadata and Origin checks), and
// no page may be framed, cached or leak its URL through a Referer.
func (d *Dashboard) Handler() http.Handler {
	inner := d.csrf.Handler(d.mux)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Cache-Control", "no-store")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Content-Security-Policy", "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
		inner.ServeHTTP(w, r)
	})
}

func (d *Dashboard) routes() {
	m := d.mux
	m.Handle("GET /dashboard/static/", http.StripPrefix("/dashboard/", http.FileServerFS(staticFS)))
	m.HandleFunc("GET /dashboard/{$}", d.signedIn(d.home))
	m.HandleFunc("GET /dashboard/signup", d.signUpPage)
	m.HandleFunc("POST /dashboard/signup", d.signUp)
	m.HandleFunc("GET /dashboard/verify", d.verifyPage)
	m.HandleFunc("POST /dashboard/verify", d.verify)
	m.HandleFunc("POST /dashboard/verify/resend", d.signedIn(d.resend))
	m.HandleFunc("GET /dashboard/signin", d.signInPage)
	m.HandleFunc("POST /dashboard/signin", d.signIn)
	m.HandleFunc("POST /dashboard/signout", d.signOut)
	m.HandleFunc("GET /dashboard/forgot", d.forgotPage)
	m.HandleFunc("POST /dashboard/forgot", d.forgot)
	m.HandleFunc("GET /dashboard/reset", d.resetPage)
	m.HandleFunc("POST /dashboard/reset", d.reset)
	m.HandleFunc("GET /dashboard/tokens", d.signedIn(d.tokensPage))
	m.HandleFunc("POST /dashboard/tokens", d.signedIn(d.createToken))
	m.HandleFunc("GET /dashboard/tokens/{id}/delete", d.signedIn(d.deleteTokenPage))
	m.HandleFunc("POST /dashboard/tokens/{id}/delete", d.signedIn(d.deleteToken))
	m.HandleFunc("GET /dashboard/usage", d.signedIn(d.usagePage))
	m.HandleFunc("GET /dashboard/usage/transactions.csv", d.signedIn(d.transactionsCSV))
	m.HandleFunc("GET /dashboard/jobs", d.signedIn(d.jobsPage))
	m.HandleFunc("GET /dashboard/jobs/{id}", d.signedIn(d.jobPage))
	m.HandleFunc("GET /dashboard/billing", d.signedIn(d.billingPage))
	m.HandleFunc("POST /dashboard/billing/topup", d.signedIn(d.topUp))
	m.HandleFunc("POST /dashboard/billing/subscribe", d.signedIn(d.subscribe))
	m.HandleFunc("GET /dashboard/checkout/plan/{id}", d.signedIn(d.planCheckoutPage))
	m.HandleFunc("POST /dashboard/checkout/plan/{id}/pay", d.signedIn(d.planCheckoutPay))
	m.HandleFunc("GET /dashboard/webhooks", d.signedIn(d.webhooksPage))
	m.HandleFunc("POST /dashboard/webhooks/secret", d.signedIn(d.showSecret))
	m.HandleFunc("POST /dashboard/webhooks/rotate", d.signedIn(d.rotateSecret))
	if d.svc.Monitors != nil {
		m.HandleFunc("GET /dashboard/monitors", d.signedIn(d.monitorsPage))
		m.HandleFunc("POST /dashboard/monitors/{id}/pause", d.signedIn(d.setMonitorStatus(ports.MonitorPaused, "paused")))
		m.HandleFunc("POST /dashboard/monitors/{id}/resume", d.signedIn(d.setMonitorStatus(ports.MonitorActive, "resumed")))
		m.HandleFunc("GET /dashboard/monitors/{id}/delete", d.signedIn(d.deleteMonitorPage))
		m.HandleFunc("POST /dashboard/monitors/{id}/delete", d.signedIn(d.deleteMonitor))
	}
	m.HandleFunc("/dashboard/", d.notFound)
	m.HandleFunc("GET /{$}", d.root)
	m.HandleFunc("GET /favicon.ico", d.favicon)
}

// RootPatterns are the paths outside Prefix the dashboard also serves: the
// front page, which leads to the dashboard and the API reference, and the
// favicon.
var RootPatterns = []string{"GET /{$}", "GET /favicon.ico"}

func (d *Dashboard) root(w http.ResponseWriter, r *http.Request) {
	d.render(w, r, http.StatusOK, "root", view{Title: "Trawl"})
}

func (d *Dashboard) favicon(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "public, max-age=86400")
	http.ServeFileFS(w, r, staticFS, "static/favicon.ico")
}

// view is what every page template gets.
type view struct {
	Title   string
	Nav     string
	Account *ports.Account
	Notice  string
	// Error is a message about the whole form (throttling, a failed send).
	Error string
	// Fields holds the messages shown beside each field.
	Fields map[string][]string
	// Form re-fills what was typed (never a password).
	Form map[string]string
	Data any
	// Monitors says the server keeps monitors: the Monitors page is in the menu.
	Monitors bool
}

func (d *Dashboard) render(w http.ResponseWriter, r *http.Request, status int, name string, v view) {
	t, ok := d.pages[name]
	if !ok {
		d.log.ErrorContext(r.Context(), "dashboard: no such page", "page", name)
		http.Error(w, "Server Error", http.StatusInternalServerError)
		return
	}
	v.Monitors = d.svc.Monitors != nil
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, "layout.html", v); err != nil {
		d.log.ErrorContext(r.Context(), "dashboard: render", "page", name, "err", err)
		http.Error(w, "Server Error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// fail renders err: field errors beside the fields of the page the form
// came from, anything else as a message above the form, with the kind's
// status code. Internal errors are logged and shown as a generic message.
func (d *Dashboard) fail(w http.ResponseWriter, r *http.Request, name string, v view, err error) {
	kind := failure.KindOf(err)
	entry := errmap.Lookup(kind)
	if kind == failure.Unauthenticated {
		d.toSignIn(w, r)
		return
	}
	if fe, ok := failure.As(err); ok && kind == failure.Invalid && len(fe.Fields) > 0 {
		v.Fields = fe.Fields
	} else {
		v.Error = failure.Public(err, "Something went wrong on our side. Please try again.")
	}
	if kind == failure.Internal || kind == failure.TemporarilyUnavailable {
		d.log.ErrorContext(r.Context(), "dashboard", "page", name, "err", err)
	}
	if secs, ok := errmap.RetryAfter(err); ok {
		w.Header().Set("Retry-After", strconv.Itoa(secs))
	}
	d.render(w, r, entry.HTTPStatus, name, v)
}

func (d *Dashboard) notFound(w http.ResponseWriter, r *http.Request) {
	d.render(w, r, http.StatusNotFound, "message", view{Title: "Not found", Error: "There is nothing here. It may have been deleted, or it belongs to another account."})
}

func (d *Dashboard) forbidden(w http.ResponseWriter, r *http.Request) {
	d.render(w, r, http.StatusForbidden, "message", view{Title: "Refused", Error: "This form was sent from another site, so it was refused. Go back to the dashboard and try again."})
}

// sessionCookieName: __Host- pins the session cookie to this host and
// path / when Secure; the other cookies, set for one path, are __Secure-.
func (d *Dashboard) sessionCookieName() string {
	if d.secure {
		return "__Host-trawl_session"
	}
	return "trawl_session"
}

// deviceCookieName names the cookie of a browser that signed in before.
// It is sent only to the sign-in form, so it never leaves with other requests.
func (d *Dashboard) deviceCookieName() string { return d.named("trawl_device") }

// newTokenCookieName carries a token just created to the one page that
// shows its secret, once.
func (d *Dashboard) newTokenCookieName() string { return d.named("trawl_new_token") }

func (d *Dashboard) named(name string) string {
	if d.secure {
		return "__Secure-" + name
	}
	return name
}

func (d *Dashboard) cookie(r *http.Request, name string) string {
	c, err := r.Cookie(name)
	if err != nil {
		return ""
	}
	return c.Value
}

func (d *Dashboard) sessionSecret(r *http.Request) string {
	return d.cookie(r, d.sessionCookieName())
}

// sessionGrace keeps the session cookie a while after the session it
// names ends, so a browser that comes back after it expired is told so.
const sessionGrace = 7 * 24 * time.Hour

func (d *Dashboard) setSession(w http.ResponseWriter, r *http.Request, secret string, lifetime time.Duration) {
	if lifetime > 0 {
		lifetime += sessionGrace
	}
	d.setCookie(w, r, d.sessionCookieName(), "/", secret, lifetime)
}

func (d *Dashboard) clearSession(w http.ResponseWriter, r *http.Request) {
	d.setSession(w, r, "", -time.Second)
}

// setCookie sets an HttpOnly cookie for path; a lifetime below zero
// deletes it.
func (d *Dashboard) setCookie(w http.ResponseWriter, r *http.Request, name, path, value string, lifetime time.Duration) {
	maxAge := int(lifetime / time.Second)
	if lifetime < 0 {
		maxAge = -1
	}
	http.SetCookie(w, &http.Cookie{
		Name: name, Value: value, Path: path, MaxAge: maxAge,
		HttpOnly: true, Secure: d.secure || r.TLS != nil, SameSite: http.SameSiteLaxMode,
	})
}

func (d *Dashboard) toSignIn(w http.ResponseWriter, r *http.Request) {
	http.Redirect(w, r, "/dashboard/signin", http.StatusSeeOther)
}

// signedIn passes the signed-in account to h, or sends the browser to sign
// in: with a notice when it held a session that ended.
func (d *Dashboard) signedIn(h func(http.ResponseWriter, *http.Request, ports.Account)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		secret := d.sessionSecret(r)
		acct, err := d.svc.Accounts.Session(r.Context(), secret)
		if failure.Is(err, failure.Unauthenticated) {
			d.clearSession(w, r)
			if secret != "" {
				http.Redirect(w, r, "/dashboard/signin?expired=1", http.StatusSeeOther)
				return
			}
			d.toSignIn(w, r)
			return
		}
		if err != nil {
			d.fail(w, r, "message", view{Title: "Error"}, err)
			return
		}
		h(w, r, acct)
	}
}

func (d *Dashboard) home(w http.ResponseWriter, r *http.Request, _ ports.Account) {
	http.Redirect(w, r, "/dashboard/tokens", http.StatusSeeOther)
}

// clientAddr is the peer address sign-in attempts are counted against.
func clientAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}
