package dashboard

import (
	"encoding/csv"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/trawlhq/trawl/core/billing"
	"github.com/trawlhq/trawl/core/credits"
	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/ports"
)

const (
	transactionsPerPage = 25
	// csvRowLimit bounds one export.
	csvRowLimit = 100000
)

type usageData struct {
	Plan   billing.Plan
	Status billing.Status
	Chart  chart
	Page   credits.Page
	Prev   string
	Next   string
}

// pageParam reads ?page=, 1 when absent; a bad value is a field error.
func pageParam(r *http.Request) (int, error) {
	raw := r.URL.Query().Get("page")
	if raw == "" {
		return 1, nil
	}
	n, err := strconv.Atoi(raw)
	if err != nil || n < 1 {
		return 0, failure.Invalidf("dashboard.page", "page", "The page field must be a whole number of at least 1.")
	}
	return n, nil
}

func (d *Dashboard) usagePage(w http.ResponseWriter, r *http.Request, acct ports.Account) {
	v := view{Title: "Usage", Nav: "usage", Account: &acct}
	page, err := pageParam(r)
	if err != nil {
		d.fail(w, r, "message", v, err)
		return
	}
	st, err := d.svc.Credits.Status(r.Context(), acct.ID)
	if err != nil {
		d.fail(w, r, "message", v, err)
		return
	}
	u, err := d.svc.Credits.Usage(r.Context(), acct.ID)
	if err != nil {
		d.fail(w, r, "message", v, err)
		return
	}
	txs, err := d.svc.Credits.Transactions(r.Context(), acct.ID, credits.Paging{Page: &page, PerPage: new(transactionsPerPage)})
	if err != nil {
		d.fail(w, r, "message", v, err)
		return
	}
	data := &usageData{Plan: d.svc.Credits.Plans().Must(acct.Plan), Status: st, Chart: newChart(u), Page: txs}
	if page > 1 {
		data.Prev = "/dashboard/usage?page=" + strconv.Itoa(page-1) + "#transactions"
	}
	if page < txs.LastPage() {
		data.Next = "/dashboard/usage?page=" + strconv.Itoa(page+1) + "#transactions"
	}
	v.Data = data
	switch {
	case r.URL.Query().Get("purchase") == "done":
		v.Notice = "Thank you. The credits are added as soon as the payment is confirmed."
	case r.URL.Query().Get("subscribed") != "":
		v.Notice = "Thank you. Your plan starts as soon as the payment is confirmed."
	}
	d.render(w, r, http.StatusOK, "usage", v)
}

// csvSafe keeps a spreadsheet from reading a text cell as a formula.
func csvSafe(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

func (d *Dashboard) transactionsCSV(w http.ResponseWriter, r *http.Request, acct ports.Account) {
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="trawl-transactions.csv"`)
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"id", "created_at", "service_type", "service_name", "credits", "balance_after", "url", "query", "job_id", "request_id"})
	err := d.svc.Credits.EachTransaction(r.Context(), acct.ID, csvRowLimit, func(t ports.Transaction) error {
		return cw.Write([]string{
			strconv.FormatInt(t.ID, 10), t.CreatedAt.UTC().Format(time.RFC3339), csvSafe(t.ServiceType), csvSafe(t.ServiceName),
			change(t.Credits), strconv.FormatInt(t.BalanceAfter, 10),
			csvSafe(t.Metadata.URL), csvSafe(t.Metadata.Query), csvSafe(t.Metadata.JobID), csvSafe(t.Metadata.RequestID),
		})
	})
	cw.Flush()
	if err != nil {
		// The header is gone; cut the body short so the file is visibly incomplete.
		d.log.ErrorContext(r.Context(), "dashboard: csv export", "err", err)
		panic(http.ErrAbortHandler)
	}
}

// change is a transaction's effect on the balance, as the usage table
// shows it: a charge of 2 is -2, a top-up of 1,500 is 1500 (a spreadsheet
// reads both as numbers).
func change(credits int64) string { return strconv.FormatInt(-credits, 10) }

// chart is a stacked bar chart of credits per day, drawn as SVG.
type chart struct {
	Width, Height float64
	PlotLeft      float64
	PlotBottom    float64
	Bars          []chartBar
	YTicks        []chartTick
	XLabels       []chartTick
	Legend        []chartLegend
	Summary       string
	Empty         bool
	Days          []credits.DayUsage
	Services      []string
}

type chartBar struct {
	X, Y, W, H float64
	Color      string
	Title      string
}

type chartTick struct {
	Pos   float64
	Label string
}

type chartLegend struct {
	Color, Name, Total string
}

// palette is readable on white and tells services apart in greyscale too.
var palette = []string{"#1f6feb", "#d4a72c", "#2da44e", "#cf222e", "#8250df", "#57606a", "#e16f24", "#0a7ea4"}

// niceCeiling rounds a maximum up to 1, 2 or 5 times a power of ten.
func niceCeiling(v int64) int64 {
	if v <= 0 {
		return 10
	}
	p := math.Pow(10, math.Floor(math.Log10(float64(v))))
	for _, m := range []float64{1, 2, 5, 10} {
		if c := int64(m * p); c >= v {
			return c
		}
	}
	return v
}

func newChart(u credits.Usage) chart {
	c := chart{Width: 720, Height: 260, PlotLeft: 56, PlotBottom: 226, Days: u.Days, Services: u.Services}
	top, right := 12.0, 12.0
	plotW, plotH := c.Width-c.PlotLeft-right, c.PlotBottom-top
	color := map[string]string{}
	for i, s := range u.Services {
		color[s] = palette[i%len(palette)]
		c.Legend = append(c.Legend, chartLegend{Color: color[s], Name: s, Total: billing.FormatCredits(u.Totals[s])})
	}
	ceil := niceCeiling(u.Max)
	for i := 0; i <= 2; i++ {
		val := ceil * int64(i) / 2
		c.YTicks = append(c.YTicks, chartTick{Pos: c.PlotBottom - plotH*float64(val)/float64(ceil), Label: billing.FormatCredits(val)})
	}
	n := len(u.Days)
	if n == 0 {
		c.Empty = true
		return c
	}
	slot := plotW / float64(n)
	barW := min(slot*0.7, 40)
	every := int(math.Ceil(float64(n) / 8))
	var total int64
	for i, day := range u.Days {
		x := c.PlotLeft + slot*float64(i)
		if i%every == 0 {
			c.XLabels = append(c.XLabels, chartTick{Pos: x + slot/2, Label: day.Day.Format("Jan 2")})
		}
		y := c.PlotBottom
		for _, s := range u.Services {
			v := day.ByService[s]
			if v == 0 {
				continue
			}
			h := plotH * float64(v) / float64(ceil)
			y -= h
			c.Bars = append(c.Bars, chartBar{X: x + (slot-barW)/2, Y: y, W: barW, H: h, Color: color[s],
				Title: fmt.Sprintf("%s, %s: %s credits", day.Day.Format("Jan 2"), s, billing.FormatCredits(v))})
		}
		total += day.Total
	}
	c.Empty = total == 0
	c.Summary = fmt.Sprintf("%s credits used from %s to %s", billing.FormatCredits(total), u.From.UTC().Format("Jan 2"), u.To.UTC().Format("Jan 2, 2006"))
	if len(u.Services) > 0 {
		parts := make([]string, len(u.Services))
		for i, s := range u.Services {
			parts[i] = s + " " + billing.FormatCredits(u.Totals[s])
		}
		c.Summary += ": " + strings.Join(parts, ", ")
	}
	c.Summary += "."
	return c
}
