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
	// CreditsCharged is what the call cost: 0 on every failure and replay.
	CreditsCharged = "X-Credits-Charged"
	// CreditsRemaining is the balance after the call.
	CreditsRemaining = "X-Credits-Remaining"
)

// Set writes the limit state, the replay flag, the credits charged and
// remaining and the low-balance warning of an outcome. On a failed call the
// charge is 0 and the balance is the one before the call.
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
	if c := o.Credits; c != nil {
		h.Set(CreditsCharged, strconv.FormatInt(c.Charged, 10))
		if c.Remaining != nil {
			h.Set(CreditsRemaining, strconv.FormatInt(*c.Remaining, 10))
		}
	}
	SetQuotaWarning(h, o.QuotaWarning)
}

// SetQuotaWarning writes the low-balance warning, if any.
func SetQuotaWarning(h http.Header, warning string) {
	if warning != "" {
		h.Set(QuotaWarning, warning)
	}
}
