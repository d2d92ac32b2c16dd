package httpapi

import (
	"encoding/json"
	"net/http"

	"github.com/trawlhq/trawl/core/content"
	"github.com/trawlhq/trawl/core/credits"
	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/core/structured"
)

type extractJSON struct {
	Data json.RawMessage `json:"data"`
	URL  string          `json:"url"`
}

func (a *API) runExtract(r *http.Request, c credits.Call) (int, any, credits.Receipt, error) {
	b, err := decodeBody(r)
	if err != nil {
		return 0, nil, credits.Receipt{}, err
	}
	var fe failure.FieldErrors
	pageURL, _ := b.String(&fe, "url")
	text, _ := b.String(&fe, "prompt")
	render, _ := b.String(&fe, "render")
	schema := b["schema"]
	var inString string
	if json.Unmarshal(schema, &inString) == nil {
		schema = json.RawMessage(inString) // a schema sent as a JSON string
	}
	if err := fe.Err("httpapi.extract"); err != nil {
		return 0, nil, credits.Receipt{}, err
	}
	mode, err := content.ParseRenderMode(render, "render")
	if err != nil {
		return 0, nil, credits.Receipt{}, err
	}
	res, rc, err := a.svc.Extract.Extract(r.Context(), c, structured.Request{URL: pageURL, Schema: schema, Prompt: text, Render: mode})
	return http.StatusOK, extractJSON{res.Data, res.URL}, rc, err
}
