package dashboard

import (
	"net/http"
	"strconv"

	"github.com/trawlhq/trawl/core/credits"
	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/core/monitor"
	"github.com/trawlhq/trawl/ports"
)

const monitorsPerPage = 20

// monitorRow is a monitor as the list shows it, with its latest check.
type monitorRow struct {
	Monitor ports.Monitor
	// Pages is how many URLs it reads, or 0 for a crawl.
	Pages int
	// Crawl is the start URL of a crawl monitor.
	Crawl string
	Last  *ports.MonitorCheck
}

type monitorsData struct {
	Rows       []monitorRow
	Page       monitor.Page
	Prev, Next string
}

// monitorNotices are what a redirect back to the list says happened.
var monitorNotices = map[string]string{
	"paused":  "The monitor is paused: it takes no check until you resume it.",
	"resumed": "The monitor is active again: its next check is its schedule's first time from now.",
	"deleted": "The monitor and its checks were deleted.",
}

func (d *Dashboard) monitorsPage(w http.ResponseWriter, r *http.Request, acct ports.Account) {
	v := view{Title: "Monitors", Nav: "monitors", Account: &acct}
	v.Notice = monitorNotices[r.URL.Query().Get("done")]
	page, err := pageParam(r)
	if err != nil {
		d.fail(w, r, "message", v, err)
		return
	}
	p, err := d.svc.Monitors.List(r.Context(), acct.ID, credits.Paging{Page: &page, PerPage: ptrInt(monitorsPerPage)})
	if err != nil {
		d.fail(w, r, "message", v, err)
		return
	}
	data := &monitorsData{Page: p}
	for _, m := range p.Items {
		row := monitorRow{Monitor: m, Pages: len(m.URLs)}
		if o := monitor.ObjectOf(m); o.Crawl != nil {
			row.Crawl = o.Crawl.URL
		}
		// The latest check: the list shows when each monitor last ran.
		// A monitor deleted since the list was read has no row; any other
		// failure to read its checks is the page's failure, not "none yet".
		det, err := d.svc.Monitors.Get(r.Context(), acct.ID, m.ID)
		if failure.Is(err, failure.NotFound) {
			continue
		}
		if err != nil {
			d.fail(w, r, "message", v, err)
			return
		}
		if len(det.Checks) > 0 {
			row.Last = &det.Checks[0]
		}
		data.Rows = append(data.Rows, row)
	}
	if page > 1 {
		data.Prev = "/dashboard/monitors?page=" + strconv.Itoa(page-1)
	}
	if page < p.LastPage() {
		data.Next = "/dashboard/monitors?page=" + strconv.Itoa(page+1)
	}
	v.Data = data
	d.render(w, r, http.StatusOK, "monitors", v)
}

func ptrInt(n int) *int { return &n }

// setMonitorStatus pauses or resumes a monitor of the account, then shows
// the list again.
func (d *Dashboard) setMonitorStatus(status ports.MonitorStatus, done string) func(http.ResponseWriter, *http.Request, ports.Account) {
	return func(w http.ResponseWriter, r *http.Request, acct ports.Account) {
		s := string(status)
		if _, err := d.svc.Monitors.Update(r.Context(), acct.ID, r.PathValue("id"), monitor.Patch{Status: &s}); err != nil {
			d.fail(w, r, "message", view{Title: "Not changed", Nav: "monitors", Account: &acct}, err)
			return
		}
		http.Redirect(w, r, "/dashboard/monitors?done="+done, http.StatusSeeOther)
	}
}

func (d *Dashboard) deleteMonitorPage(w http.ResponseWriter, r *http.Request, acct ports.Account) {
	det, err := d.svc.Monitors.Get(r.Context(), acct.ID, r.PathValue("id"))
	if err != nil {
		d.fail(w, r, "message", view{Title: "Not found", Nav: "monitors", Account: &acct}, err)
		return
	}
	d.render(w, r, http.StatusOK, "delete_monitor", view{Title: "Delete a monitor", Nav: "monitors", Account: &acct, Data: det.Monitor})
}

func (d *Dashboard) deleteMonitor(w http.ResponseWriter, r *http.Request, acct ports.Account) {
	if err := d.svc.Monitors.Delete(r.Context(), acct.ID, r.PathValue("id")); err != nil {
		d.fail(w, r, "message", view{Title: "Not deleted", Nav: "monitors", Account: &acct}, err)
		return
	}
	http.Redirect(w, r, "/dashboard/monitors?done=deleted", http.StatusSeeOther)
}
