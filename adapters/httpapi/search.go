package httpapi

import (
	"net/http"
	"strings"

	"github.com/trawlhq/trawl/core/cache"
	"github.com/trawlhq/trawl/core/content"
	"github.com/trawlhq/trawl/core/credits"
	"github.com/trawlhq/trawl/core/domainrule"
	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/core/prompt"
	"github.com/trawlhq/trawl/core/ratelimit"
	"github.com/trawlhq/trawl/core/search"
)

func (a *API) searchRoutes() {
	a.billed("GET /v1/serp", ratelimit.Serp, a.serp)
	a.billed("GET /v1/serp/content", ratelimit.SerpContent, a.serpContent)
	a.billed("POST /v1/prompt", ratelimit.Prompt, a.runPrompt)
}

type sitelinkJSON struct {
	Title string `json:"title"`
	Link  string `json:"link"`
}

type organicJSON struct {
	Position      int             `json:"position"`
	Title         string          `json:"title"`
	Link          string          `json:"link"`
	Snippet       string          `json:"snippet"`
	DisplayedLink string          `json:"displayed_link"`
	Thumbnail     *string         `json:"thumbnail"`
	Favicon       string          `json:"favicon"`
	Sitelinks     []sitelinkJSON  `json:"sitelinks"`
	Source        string          `json:"source"`
	Content       *content.Object `json:"content,omitempty"`
}

type questionJSON struct {
	Question string `json:"question"`
	Answer   string `json:"answer,omitempty"`
}

type relatedJSON struct {
	Query string `json:"query"`
	Link  string `json:"link"`
	Image string `json:"image,omitempty"`
}

type serpJSON struct {
	SearchParameters  map[string]string `json:"search_parameters"`
	SearchInformation struct {
		QueryDisplayed string  `json:"query_displayed"`
		TotalResults   int64   `json:"total_results"`
		TimeTaken      float64 `json:"time_taken"`
	} `json:"search_information"`
	OrganicResults   []organicJSON  `json:"organic_results"`
	RelatedQuestions []questionJSON `json:"related_questions"`
	RelatedSearches  []relatedJSON  `json:"related_searches"`
	// Cache says whether the results came from the page cache.
	Cache *cache.Object `json:"cache,omitempty"`
}

func searchRequest(r *http.Request) search.Request {
	q := r.URL.Query()
	return search.Request{Q: q.Get("q"), Loc: q.Get("loc"), HL: q.Get("hl"), GL: q.Get("gl"), Engine: q.Get("engine")}
}

func toSerpJSON(req search.Request, res search.Results) serpJSON {
	var out serpJSON
	out.SearchParameters = map[string]string{"engine": res.Engine, "q": strings.TrimSpace(req.Q)}
	for k, v := range map[string]string{"loc": req.Loc, "hl": req.HL, "gl": req.GL} {
		if v != "" {
			out.SearchParameters[k] = v
		}
	}
	r := res.Results
	out.SearchInformation.QueryDisplayed = r.QueryDisplayed
	out.SearchInformation.TotalResults = r.TotalResults
	out.SearchInformation.TimeTaken = res.SecondsTaken()
	out.OrganicResults = make([]organicJSON, 0, len(r.Organic))
	for _, o := range r.Organic {
		j := organicJSON{Position: o.Position, Title: o.Title, Link: o.Link, Snippet: o.Snippet, DisplayedLink: o.DisplayedLink, Favicon: o.Favicon, Source: o.Source}
		if o.Thumbnail != "" {
			th := o.Thumbnail
			j.Thumbnail = &th
		}
		for _, sl := range o.Sitelinks {
			j.Sitelinks = append(j.Sitelinks, sitelinkJSON{sl.Title, sl.Link})
		}
		if p, ok := res.Contents[o.Position]; ok {
			c := p.Object()
			j.Content = &c
		}
		out.OrganicResults = append(out.OrganicResults, j)
	}
	out.RelatedQuestions = make([]questionJSON, 0, len(r.RelatedQuestions))
	for _, q := range r.RelatedQuestions {
		out.RelatedQuestions = append(out.RelatedQuestions, questionJSON{q.Question, q.Answer})
	}
	out.Cache = cacheObject(res.Cache)
	out.RelatedSearches = make([]relatedJSON, 0, len(r.RelatedSearches))
	for _, s := range r.RelatedSearches {
		out.RelatedSearches = append(out.RelatedSearches, relatedJSON{s.Query, s.Link, s.Image})
	}
	return out
}

func (a *API) serp(r *http.Request, c credits.Call) (int, any, credits.Receipt, error) {
	req := searchRequest(r)
	r, err := withCache(r)
	if err != nil {
		return 0, nil, credits.Receipt{}, err
	}
	res, rc, err := a.svc.Search.Search(r.Context(), c, req)
	return http.StatusOK, toSerpJSON(req, res), rc, err
}

// listParam reads an array query parameter given as name[]=a&name[]=b,
// name=a&name=b, name[0]=a, or name=a,b.
func listParam(r *http.Request, name string) []string {
	var vals []string
	for k, v := range r.URL.Query() {
		if k == name || k == name+"[]" || (strings.HasPrefix(k, name+"[") && strings.HasSuffix(k, "]")) {
			vals = append(vals, v...)
		}
	}
	return domainrule.ParseList(vals)
}

func (a *API) serpContent(r *http.Request, c credits.Call) (int, any, credits.Receipt, error) {
	var fe failure.FieldErrors
	req := search.ContentRequest{Request: searchRequest(r),
		MaxContent: queryIntWording(&fe, r, "max_content", "The max content must be an integer.")}
	if err := fe.Err("httpapi.serpContent"); err != nil {
		return 0, nil, credits.Receipt{}, err
	}
	req.Filter = domainrule.Filter{Whitelist: listParam(r, "whitelist_domains"), Blacklist: listParam(r, "blacklist_domains")}
	mode, err := content.ParseRenderMode(r.URL.Query().Get("render"), "render")
	if err != nil {
		return 0, nil, credits.Receipt{}, err
	}
	req.Render = mode
	if r, err = withCache(r); err != nil {
		return 0, nil, credits.Receipt{}, err
	}
	req.Options = queryOptions(r)
	res, rc, err := a.svc.Search.SearchContent(r.Context(), c, req)
	return http.StatusOK, toSerpJSON(req.Request, res), rc, err
}

func (a *API) runPrompt(r *http.Request, c credits.Call) (int, any, credits.Receipt, error) {
	b, err := decodeBody(r)
	if err != nil {
		return 0, nil, credits.Receipt{}, err
	}
	var fe failure.FieldErrors
	text, _ := b.String(&fe, "prompt")
	pageURL, _ := b.String(&fe, "url")
	render, _ := b.String(&fe, "render")
	if err := fe.Err("httpapi.prompt"); err != nil {
		return 0, nil, credits.Receipt{}, err
	}
	mode, err := content.ParseRenderMode(render, "render")
	if err != nil {
		return 0, nil, credits.Receipt{}, err
	}
	answer, rc, err := a.svc.Prompt.Prompt(r.Context(), c, prompt.Request{Prompt: text, URL: pageURL, Render: mode})
	return http.StatusOK, map[string]string{"response": answer}, rc, err
}
