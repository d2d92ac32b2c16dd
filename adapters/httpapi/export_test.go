package httpapi

import (
	"net/http"

	"github.com/trawlhq/trawl/core/credits"
	"github.com/trawlhq/trawl/core/ratelimit"
)

// Billed mounts a test endpoint through the pipeline every billed endpoint uses.
func (a *API) Billed(pattern string, group ratelimit.Group, h func(r *http.Request, c credits.Call) (int, any, credits.Receipt, error)) {
	a.billed(pattern, group, h)
}

// Patterns lists the patterns of every route, mounted ones included, in
// the order they were registered.
func (a *API) Patterns() []string { return append([]string(nil), a.mux.patterns...) }
