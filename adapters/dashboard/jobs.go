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
		if p, err = d.jobs.Page(r.Context(), acct.ID, page, jobsPerPage); err == nil {
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
	st, err := d.bulk.Status(r.Context(), acct.ID, r.PathValue("id"))
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

func (d *Dashboard) webhooksPage(w http.ResponseWriter, r *http.Request, acct ports.Account) {
	d.render(w, r, http.StatusOK, "webhooks", view{Title: "Webhooks", Nav: "webhooks", Account: &acct, Data: &webhookData{}})
}

// showSecret answers a POST, so the secret appears only on request and
// never in a URL, a history entry or a cached page.
func (d *Dashboard) showSecret(w http.ResponseWriter, r *http.Request, acct ports.Account) {
	v := view{Title: "Webhooks", Nav: "webhooks", Account: &acct}
	sec, err := d.secrets.Show(r.Context(), acct.ID)
	if err != nil {
		d.fail(w, r, "message", v, err)
		return
	}
	v.Data = &webhookData{Secret: sec}
	d.render(w, r, http.StatusOK, "webhooks", v)
}

func (d *Dashboard) rotateSecret(w http.ResponseWriter, r *http.Request, acct ports.Account) {
	v := view{Title: "Webhooks", Nav: "webhooks", Account: &acct}
	sec, err := d.secrets.Rotate(r.Context(), acct.ID)
	if err != nil {
		d.fail(w, r, "message", v, err)
		return
	}
	v.Notice = "The signing secret was replaced. Deliveries from now on are signed with the new one; update your receiver."
	v.Data = &webhookData{Secret: sec, Rotated: true}
	d.render(w, r, http.StatusOK, "webhooks", v)
}
