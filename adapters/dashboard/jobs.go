package dashboard

import (
	"net/http"
	"strconv"

	"github.com/trawlhq/trawl/core/bulk"
	"github.com/trawlhq/trawl/ports"
)

const jobsPerPage = 20

type jobsData struct {
	Page       bulk.JobPage
	Prev, Next string
}

func (d *Dashboard) jobsPage(w http.ResponseWriter, r *http.Request, acct ports.Account) {
	v := view{Title: "Bulk jobs", Nav: "jobs", Account: &acct}
	page, err := pageParam(r)
	if err == nil {
		var p bulk.JobPage
		if p, err = d.svc.Jobs.Page(r.Context(), acct.ID, page, jobsPerPage); err == nil {
			data := &jobsData{Page: p}
			if page > 1 {
				data.Prev = "/dashboard/jobs?page=" + strconv.Itoa(page-1)
			}
			if page < p.LastPage() {
				data.Next = "/dashboard/jobs?page=" + strconv.Itoa(page+1)
			}
			v.Data = data
			d.render(w, r, http.StatusOK, "jobs", v)
			return
		}
	}
	d.fail(w, r, "message", v, err)
}

type jobData struct {
	Status                               bulk.Status
	Processed, Succeeded, Failed, Queued int
}

func (d *Dashboard) jobPage(w http.ResponseWriter, r *http.Request, acct ports.Account) {
	v := view{Title: "Bulk job", Nav: "jobs", Account: &acct}
	st, err := d.svc.Bulk.Status(r.Context(), acct.ID, r.PathValue("id"))
	if err != nil {
		v.Title = "Not found"
		d.fail(w, r, "message", v, err)
		return
	}
	processed, ok, bad := bulk.Counts(st.URLs)
	v.Data = &jobData{Status: st, Processed: processed, Succeeded: ok, Failed: bad, Queued: st.Job.URLsCount - processed}
	d.render(w, r, http.StatusOK, "job", v)
}

type webhookData struct {
	Secret  string
	Rotated bool
}

// webhooksPage shows the signing secret only after the form asked for it
// (?show=1 or ?rotated=1), never in a URL and never on a plain visit.
func (d *Dashboard) webhooksPage(w http.ResponseWriter, r *http.Request, acct ports.Account) {
	v := view{Title: "Webhooks", Nav: "webhooks", Account: &acct, Data: &webhookData{}}
	q := r.URL.Query()
	if q.Get("show") != "" || q.Get("rotated") != "" {
		sec, err := d.svc.Secrets.Show(r.Context(), acct.ID)
		if err != nil {
			d.fail(w, r, "message", v, err)
			return
		}
		v.Data = &webhookData{Secret: sec, Rotated: q.Get("rotated") != ""}
	}
	if q.Get("rotated") != "" {
		v.Notice = "The signing secret was replaced. Deliveries from now on are signed with the new one; update your receiver."
	}
	d.render(w, r, http.StatusOK, "webhooks", v)
}

// showSecret creates the secret when the account has none yet, then sends
// the browser to the page that shows it.
func (d *Dashboard) showSecret(w http.ResponseWriter, r *http.Request, acct ports.Account) {
	if _, err := d.svc.Secrets.Show(r.Context(), acct.ID); err != nil {
		d.fail(w, r, "message", view{Title: "Webhooks", Nav: "webhooks", Account: &acct}, err)
		return
	}
	http.Redirect(w, r, "/dashboard/webhooks?show=1", http.StatusSeeOther)
}

func (d *Dashboard) rotateSecret(w http.ResponseWriter, r *http.Request, acct ports.Account) {
	if _, err := d.svc.Secrets.Rotate(r.Context(), acct.ID); err != nil {
		d.fail(w, r, "message", view{Title: "Webhooks", Nav: "webhooks", Account: &acct}, err)
		return
	}
	http.Redirect(w, r, "/dashboard/webhooks?rotated=1", http.StatusSeeOther)
}
