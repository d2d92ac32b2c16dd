package httpapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/trawlhq/trawl/core/content"
	"github.com/trawlhq/trawl/core/credits"
	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/core/ratelimit"
)

func (a *API) browserRoutes() {
	a.billed("POST /v1/content", ratelimit.Content, a.postContent)
}

// queryOptions reads the page options a GET takes: formats as a comma
// list (or repeated), device, locale and country. Actions, headers and
// cookies come in a POST body.
func queryOptions(r *http.Request) content.Options {
	q := r.URL.Query()
	var o content.Options
	for _, v := range q["formats"] {
		for _, f := range strings.Split(v, ",") {
			if f = strings.TrimSpace(f); f != "" {
				o.Formats = append(o.Formats, f)
			}
		}
	}
	o.Device, o.Locale, o.Country = q.Get("device"), q.Get("locale"), q.Get("country")
	return o
}

// decodeInto reads one field of the body into v; a type error names it.
func (b body) decodeInto(fe *failure.FieldErrors, name, want string, v any) {
	raw, ok := b[name]
	if !ok || string(raw) == "null" {
		return
	}
	if err := json.Unmarshal(raw, v); err != nil {
		fe.Add(name, fmt.Sprintf("The %s field must be %s.", humanField(name), want))
	}
}

// bodyOptions reads the page options of a JSON body.
func bodyOptions(fe *failure.FieldErrors, b body) content.Options {
	var o content.Options
	b.decodeInto(fe, "formats", "an array of strings", &o.Formats)
	var raw []json.RawMessage
	b.decodeInto(fe, "actions", "an array of objects", &raw)
	for i, r := range raw {
		var a content.ActionInput
		if err := json.Unmarshal(r, &a); err != nil {
			fe.Add(fmt.Sprintf("actions[%d]", i), "Each action must be an object with a type and the fields of its type.")
		}
		o.Actions = append(o.Actions, a)
	}
	b.decodeInto(fe, "headers", "an object of strings", &o.Headers)
	b.decodeInto(fe, "cookies", "an object of strings", &o.Cookies)
	o.Device, _ = b.String(fe, "device")
	o.Locale, _ = b.String(fe, "locale")
	o.Country, _ = b.String(fe, "country")
	return o
}

func (a *API) postContent(r *http.Request, c credits.Call) (int, any, credits.Receipt, error) {
	b, err := decodeBody(r)
	if err != nil {
		return 0, nil, credits.Receipt{}, err
	}
	var fe failure.FieldErrors
	u, _ := b.String(&fe, "url")
	render, _ := b.String(&fe, "render")
	o := bodyOptions(&fe, b)
	maxAge, noStore := b.cacheFields(&fe)
	track, tag := b.changeFields(&fe)
	if err := fe.Err("httpapi.postContent"); err != nil {
		return 0, nil, credits.Receipt{}, err
	}
	mode, err := content.ParseRenderMode(render, "render")
	if err != nil {
		return 0, nil, credits.Receipt{}, err
	}
	ctx, err := bodyCacheAndChanges(r.Context(), maxAge, noStore, track, tag)
	if err != nil {
		return 0, nil, credits.Receipt{}, err
	}
	page, rc, err := a.svc.Content.ContentWith(ctx, c, u, mode, o)
	return http.StatusOK, page.Object(), rc, err
}
