package httpapi

import (
	"context"
	"net/http"
)

// Route is the pattern of the route that takes r ("" when none does), for
// instruments outside the API that must name a route, never a raw path.
func (a *API) Route(r *http.Request) string {
	_, pattern := a.mux.Handler(r)
	return pattern
}

// checkAll reports the store (which answered: readiness passed) and every
// optional dependency as "ok" or "unavailable"; why one is down goes to the
// log, not to the caller.
func (a *API) checkAll(ctx context.Context) map[string]string {
	out := map[string]string{"store": "ok"}
	for name, check := range a.checks {
		out[name] = "ok"
		if err := check(ctx); err != nil {
			out[name] = "unavailable"
			a.log.WarnContext(ctx, "readiness: a dependency does not answer", "dependency", name, "err", err)
		}
	}
	return out
}
