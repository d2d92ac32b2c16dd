package httpapi

import "net/http"

// Route is the pattern of the route that takes r ("" when none does), for
// instruments outside the API that must name a route, never a raw path.
func (a *API) Route(r *http.Request) string {
	_, pattern := a.mux.Handler(r)
	return pattern
}
