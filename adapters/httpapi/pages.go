package httpapi

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/trawlhq/trawl/core/billing"
	"github.com/trawlhq/trawl/core/credits"
	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/core/ratelimit"
	"github.com/trawlhq/trawl/core/sitemap"
)

func (a *API) pageRoutes() {
	a.Billed("GET /v1/scrape", ratelimit.Scrape, a.scrape)
	a.Billed("GET /v1/content", ratelimit.Content, a.getContent)
	a.Billed("GET /v1/map", ratelimit.Map, a.mapSite)
}

// call starts a billed call for the request's principal.
func (a *API) call(r *http.Request) credits.Call {
	return credits.Call{Principal: principal(r.Context()), RequestID: requestID(r.Context())}
}

// billed writes the answer of a billed call: the error, or the value with the
// low-balance header.
func (a *API) billed(w http.ResponseWriter, r *http.Request, rc credits.Receipt, err error, v any) {
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	p := principal(r.Context())
	quotaHeader(w, rc.Balance, billing.MustPlan(p.Account.Plan).MonthlyCredits, rc.IsLow)
	writeJSON(w, http.StatusOK, v)
}

type scrapeJSON struct {
	URL         string `json:"url"`
	FinalURL    string `json:"final_url"`
	StatusCode  int    `json:"statusCode"`
	ContentType string `json:"contentType"`
	HTML        string `json:"html"`
}

func (a *API) scrape(w http.ResponseWriter, r *http.Request) {
	raw, rc, err := a.content.Scrape(r.Context(), a.call(r), r.URL.Query().Get("url"))
	a.billed(w, r, rc, err, scrapeJSON{raw.URL, raw.FinalURL, raw.StatusCode, raw.ContentType, raw.HTML})
}

func (a *API) getContent(w http.ResponseWriter, r *http.Request) {
	page, rc, err := a.content.Content(r.Context(), a.call(r), r.URL.Query().Get("url"))
	a.billed(w, r, rc, err, page.Object())
}

type mapJSON struct {
	URL       string   `json:"url"`
	Total     int      `json:"total"`
	Truncated bool     `json:"truncated"`
	Sources   []string `json:"sources"`
	URLs      []string `json:"urls"`
}

func (a *API) mapSite(w http.ResponseWriter, r *http.Request) {
	limit := sitemap.DefaultLimit
	if s := strings.TrimSpace(r.URL.Query().Get("limit")); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			a.writeError(w, r, failure.Invalidf("httpapi.map", "limit", "The limit must be an integer."))
			return
		}
		limit = n
	}
	res, rc, err := a.sitemap.Map(r.Context(), a.call(r), r.URL.Query().Get("url"), limit)
	if res.URLs == nil {
		res.URLs = []string{}
	}
	a.billed(w, r, rc, err, mapJSON{res.URL, res.Total, res.Truncated, res.Sources, res.URLs})
}
