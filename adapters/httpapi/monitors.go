package httpapi

import (
	"encoding/json"
	"net/http"

	"github.com/trawlhq/trawl/core/credits"
	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/core/monitor"
)

// monitorRoutes serves /v1/monitors: free (no credits); the checks are billed
// as the calls they make.
func (a *API) monitorRoutes() {
	if a.svc.Monitors == nil {
		return
	}
	a.mux.HandleFunc("POST /v1/monitors", a.authed(a.createMonitor))
	a.mux.HandleFunc("GET /v1/monitors", a.authed(a.listMonitors))
	a.mux.HandleFunc("GET /v1/monitors/{monitor_id}", a.authed(a.getMonitor))
	a.mux.HandleFunc("PATCH /v1/monitors/{monitor_id}", a.authed(a.updateMonitor))
	a.mux.HandleFunc("DELETE /v1/monitors/{monitor_id}", a.authed(a.deleteMonitor))
}

// monitorRequest reads a monitor body; the crawl's own fields are named
// crawl.<field>.
func monitorRequest(fe *failure.FieldErrors, b body) monitor.Request {
	var req monitor.Request
	req.Name, _ = b.String(fe, monitor.FieldName)
	req.URLs = b.strings(fe, monitor.FieldURLs)
	if raw, ok := b[monitor.FieldCrawl]; ok && string(raw) != "null" {
		var cb body
		if err := json.Unmarshal(raw, &cb); err != nil {
			fe.Add(monitor.FieldCrawl, "The crawl field must be an object, as POST /v1/crawl takes it.")
		} else {
			var cfe failure.FieldErrors
			c := cb.crawlRequest(&cfe)
			if e, ok := failure.As(cfe.Err("httpapi.monitorRequest")); ok {
				for f, msgs := range e.Fields {
					for _, m := range msgs {
						fe.Add(monitor.FieldCrawl+"."+f, m)
					}
				}
			}
			req.Crawl = &c
		}
	}
	req.Schedule, _ = b.String(fe, monitor.FieldSchedule)
	req.CallbackURL, _ = b.String(fe, monitor.FieldCallbackURL)
	req.Email = b.Bool(fe, monitor.FieldEmail)
	req.ChangesOnly = b.optBool(fe, monitor.FieldChangesOnly)
	return req
}

// optBool reads an optional boolean; nil when absent.
func (b body) optBool(fe *failure.FieldErrors, name string) *bool {
	if raw, ok := b[name]; !ok || string(raw) == "null" {
		return nil
	}
	v := b.Bool(fe, name)
	return &v
}

// optString reads an optional string; nil when absent.
func (b body) optString(fe *failure.FieldErrors, name string) *string {
	if s, ok := b.String(fe, name); ok {
		return &s
	}
	return nil
}

func (a *API) createMonitor(w http.ResponseWriter, r *http.Request) {
	b, err := decodeBody(r)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	var fe failure.FieldErrors
	req := monitorRequest(&fe, b)
	if err := fe.Err("httpapi.createMonitor"); err != nil {
		a.writeError(w, r, err)
		return
	}
	m, err := a.svc.Monitors.Create(r.Context(), principal(r.Context()).Account.ID, req)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, monitor.ObjectOf(m))
}

func (a *API) listMonitors(w http.ResponseWriter, r *http.Request) {
	var fe failure.FieldErrors
	paging := credits.Paging{PerPage: queryInt(&fe, r, "per_page"), Page: queryInt(&fe, r, "page")}
	if err := fe.Err("httpapi.listMonitors"); err != nil {
		a.writeError(w, r, err)
		return
	}
	p, err := a.svc.Monitors.List(r.Context(), principal(r.Context()).Account.ID, paging)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	out := paginated[monitor.Object](r, "/v1/monitors", p.Page, p.PerPage, p.Total, p.LastPage())
	for _, m := range p.Items {
		out.Data = append(out.Data, monitor.ObjectOf(m))
	}
	out.fill(len(p.Items))
	writeJSON(w, http.StatusOK, out)
}

func (a *API) getMonitor(w http.ResponseWriter, r *http.Request) {
	d, err := a.svc.Monitors.Get(r.Context(), principal(r.Context()).Account.ID, r.PathValue("monitor_id"))
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, d.Object())
}

func (a *API) updateMonitor(w http.ResponseWriter, r *http.Request) {
	b, err := decodeBody(r)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	var fe failure.FieldErrors
	p := monitor.Patch{
		Name:        b.optString(&fe, monitor.FieldName),
		Schedule:    b.optString(&fe, monitor.FieldSchedule),
		CallbackURL: b.optString(&fe, monitor.FieldCallbackURL),
		Email:       b.optBool(&fe, monitor.FieldEmail),
		ChangesOnly: b.optBool(&fe, monitor.FieldChangesOnly),
		Status:      b.optString(&fe, monitor.FieldStatus),
	}
	if raw, ok := b[monitor.FieldCallbackURL]; ok && string(raw) == "null" {
		none := "" // null removes the callback
		p.CallbackURL = &none
	}
	if err := fe.Err("httpapi.updateMonitor"); err != nil {
		a.writeError(w, r, err)
		return
	}
	m, err := a.svc.Monitors.Update(r.Context(), principal(r.Context()).Account.ID, r.PathValue("monitor_id"), p)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, monitor.ObjectOf(m))
}

func (a *API) deleteMonitor(w http.ResponseWriter, r *http.Request) {
	if err := a.svc.Monitors.Delete(r.Context(), principal(r.Context()).Account.ID, r.PathValue("monitor_id")); err != nil {
		a.writeError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
