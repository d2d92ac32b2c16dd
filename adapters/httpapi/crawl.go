package httpapi

import (
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/trawlhq/trawl/core/crawl"
	"github.com/trawlhq/trawl/core/credits"
	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/core/ratelimit"
	"github.com/trawlhq/trawl/ports"
)

func (a *API) crawlRoutes() {
	if a.svc.Crawl == nil {
		return
	}
	a.billed("POST /v1/crawl", ratelimit.Bulk, a.submitCrawl)
	a.mux.HandleFunc("GET /v1/crawl/{crawl_id}", a.authed(a.crawlStatus))
	a.mux.HandleFunc("GET /v1/crawl/{crawl_id}/pages", a.authed(a.crawlPages))
	a.mux.HandleFunc("DELETE /v1/crawl/{crawl_id}", a.authed(a.cancelCrawl))
}

type crawlAckJSON struct {
	CrawlID  string `json:"crawl_id"`
	Status   string `json:"status"`
	URL      string `json:"url"`
	Limit    int    `json:"limit"`
	MaxDepth int    `json:"max_depth"`
	QueuedAt string `json:"queued_at"`
}

// strings decodes an optional array of strings; nil when absent.
func (b body) strings(fe *failure.FieldErrors, name string) []string {
	raw, ok := b[name]
	if !ok || string(raw) == "null" {
		return nil
	}
	out := []string{}
	if err := json.Unmarshal(raw, &out); err != nil {
		fe.Add(name, "The "+name+" field must be an array of strings.")
		return nil
	}
	return out
}

// optInt decodes an optional integer; nil when absent.
func (b body) optInt(fe *failure.FieldErrors, name string) *int {
	if v, ok := b.Int(fe, name, 0); ok {
		n := int(v)
		if int64(n) != v {
			n = -1
		}
		return &n
	}
	return nil
}

func (a *API) submitCrawl(r *http.Request, c credits.Call) (int, any, credits.Receipt, error) {
	b, err := decodeBody(r)
	if err != nil {
		return 0, nil, credits.Receipt{}, err
	}
	var fe failure.FieldErrors
	req := b.crawlRequest(&fe)
	if err := fe.Err("httpapi.submitCrawl"); err != nil {
		return 0, nil, credits.Receipt{}, err
	}
	ack, err := a.svc.Crawl.Submit(r.Context(), c, req)
	if err != nil {
		return 0, nil, credits.Receipt{}, err
	}
	return http.StatusAccepted, crawlAckJSON{ack.CrawlID, ack.Status, ack.URL, ack.Limit, ack.MaxDepth, ports.FormatTime(ack.QueuedAt)}, credits.Receipt{}, nil
}

// crawlRequest reads a crawl body (POST /v1/crawl, a monitor's crawl).
func (b body) crawlRequest(fe *failure.FieldErrors) crawl.Request {
	var req crawl.Request
	req.URL, _ = b.String(fe, "url")
	req.Limit = b.optInt(fe, "limit")
	req.MaxDepth = b.optInt(fe, "max_depth")
	req.Include = b.strings(fe, "include")
	req.Exclude = b.strings(fe, "exclude")
	req.Scope, _ = b.String(fe, "scope")
	req.Sitemap, _ = b.String(fe, "sitemap")
	req.IgnoreQueryParams = b.strings(fe, "ignore_query_params")
	req.Render, _ = b.String(fe, "render")
	req.CallbackURL, _ = b.String(fe, "callback_url")
	req.Email = b.Bool(fe, "email")
	req.MaxAge, req.NoStore = b.cacheFields(fe)
	req.Changes, req.Tag = b.changeFields(fe)
	req.Options = bodyOptions(fe, b)
	return req
}

func (a *API) crawlStatus(w http.ResponseWriter, r *http.Request) {
	st, err := a.svc.Crawl.Status(r.Context(), principal(r.Context()).Account.ID, r.PathValue("crawl_id"))
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, st.Object())
}

func (a *API) cancelCrawl(w http.ResponseWriter, r *http.Request) {
	st, err := a.svc.Crawl.Cancel(r.Context(), principal(r.Context()).Account.ID, r.PathValue("crawl_id"))
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, st.Object())
}

type crawlPagesJSON struct {
	CrawlID    string             `json:"crawl_id"`
	Pages      []crawl.PageObject `json:"pages"`
	NextCursor *string            `json:"next_cursor"`
}

func (a *API) crawlPages(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	var perPage *int
	if v := q.Get("per_page"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			n = -1 // refused by the range check, naming per_page
		}
		perPage = &n
	}
	id := r.PathValue("crawl_id")
	list, err := a.svc.Crawl.Pages(r.Context(), principal(r.Context()).Account.ID, id, q.Get("cursor"), perPage)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	out := crawlPagesJSON{CrawlID: id, Pages: make([]crawl.PageObject, len(list.Pages))}
	for i, p := range list.Pages {
		out.Pages[i] = crawl.PageObject{Object: p.Content, Depth: p.Depth, Parent: p.Parent}
	}
	if list.Next != "" {
		out.NextCursor = &list.Next
	}
	writeJSON(w, http.StatusOK, out)
}
