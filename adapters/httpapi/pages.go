package httpapi

import (
	"net/http"

	"github.com/trawlhq/trawl/core/cache"
	"github.com/trawlhq/trawl/core/content"
	"github.com/trawlhq/trawl/core/credits"
	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/core/ratelimit"
	"github.com/trawlhq/trawl/core/sitemap"
)

func (a *API) pageRoutes() {
	a.billed("GET /v1/scrape", ratelimit.Scrape, a.scrape)
	a.billed("GET /v1/content", ratelimit.Content, a.getContent)
	a.billed("GET /v1/map", ratelimit.Map, a.mapSite)
}

type scrapeJSON struct {
	URL         string `json:"url"`
	FinalURL    string `json:"final_url"`
	StatusCode  int    `json:"statusCode"`
	ContentType string `json:"contentType"`
	HTML        string `json:"html"`
	Engine      string `json:"engine,omitempty"`
	// Cache says whether the answer came from the page cache.
	Cache *cache.Object `json:"cache,omitempty"`
}

func (a *API) scrape(r *http.Request, c credits.Call) (int, any, credits.Receipt, error) {
	mode, err := content.ParseRenderMode(r.URL.Query().Get("render"), "render")
	if err != nil {
		return 0, nil, credits.Receipt{}, err
	}
	if r, err = withCache(r); err != nil {
		return 0, nil, credits.Receipt{}, err
	}
	raw, rc, err := a.svc.Content.Scrape(r.Context(), c, r.URL.Query().Get("url"), mode)
	return http.StatusOK, scrapeJSON{raw.URL, raw.FinalURL, raw.StatusCode, raw.ContentType, raw.HTML, string(raw.Engine), cacheObject(raw.Cache)}, rc, err
}

func (a *API) getContent(r *http.Request, c credits.Call) (int, any, credits.Receipt, error) {
	mode, err := content.ParseRenderMode(r.URL.Query().Get("render"), "render")
	if err != nil {
		return 0, nil, credits.Receipt{}, err
	}
	if r, err = withCache(r); err != nil {
		return 0, nil, credits.Receipt{}, err
	}
	if r, err = withChanges(r); err != nil {
		return 0, nil, credits.Receipt{}, err
	}
	page, rc, err := a.svc.Content.ContentWith(r.Context(), c, r.URL.Query().Get("url"), mode, queryOptions(r))
	return http.StatusOK, page.Object(), rc, err
}

type mapJSON struct {
	URL       string   `json:"url"`
	Total     int      `json:"total"`
	Truncated bool     `json:"truncated"`
	Sources   []string `json:"sources"`
	URLs      []string `json:"urls"`
}

func (a *API) mapSite(r *http.Request, c credits.Call) (int, any, credits.Receipt, error) {
	var fe failure.FieldErrors
	limit := queryIntWording(&fe, r, "limit", "The limit must be an integer.")
	opts := sitemap.Options{IncludeLinks: queryBool(&fe, r, "include_links", false)}
	if err := fe.Err("httpapi.map"); err != nil {
		return 0, nil, credits.Receipt{}, err
	}
	res, rc, err := a.svc.Sitemap.MapWith(r.Context(), c, r.URL.Query().Get("url"), limit, opts)
	if res.URLs == nil {
		res.URLs = []string{}
	}
	return http.StatusOK, mapJSON{res.URL, res.Total, res.Truncated, res.Sources, res.URLs}, rc, err
}
