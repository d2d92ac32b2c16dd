// Package callheader spells the outcome of a billed call as response
// headers. The JSON API writes them as HTTP headers and the RPC surface as
// response or error metadata, from this one place, so the two cannot drift.
package callheader

import (
	"net/http"
	"strconv"

	"github.com/trawlhq/trawl/core/call"
)

// Header names of a billed call's answer.
const (
	Limit        = "RateLimit-Limit"
	Remaining    = "RateLimit-Remaining"
	Reset        = "RateLimit-Reset"
	LimitWarning = "X-RateLimit-Warning"
	QuotaWarning = "X-Monthly-Quota-Warning"
	Replayed     = "Idempotent-Replayed"
)

// Set writes the limit state, the replay flag and the low-balance warning
// of an outcome. On a failed call only the limit state is known.
func Set[T any](h http.Header, o call.Outcome[T]) {
	if l := o.Limit; l != nil {
		h.Set(Limit, strconv.Itoa(l.Limit))
		h.Set(Remaining, strconv.Itoa(l.Remaining))
		h.Set(Reset, strconv.Itoa(l.ResetSeconds))
		if l.Warning != "" {
			h.Set(LimitWarning, l.Warning)
		}
	}
	if o.Replayed {
		h.Set(Replayed, "true")
	}
	SetQuotaWarning(h, o.QuotaWarning)
}

// SetQuotaWarning writes the low-balance warning, if any.
func SetQuotaWarning(h http.Header, warning string) {
	if warning != "" {
		h.Set(QuotaWarning, warning)
	}
}
