package weburl

import (
	"errors"
	"fmt"

	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/ports"
)

// FetchFailure turns a fetcher's typed reason into the failure the caller
// sees: a non-public host is a 422 naming field; anything else that kept
// the page from being fetched is Unavailable, saying what happened. The
// reason stays the cause, for callers that tell reasons apart.
func FetchFailure(fe *ports.FetchError, field string) error {
	if field == "" {
		field = "url"
	}
	const op = "fetch"
	switch fe.Reason {
	case ports.FetchNonPublic:
		return NonPublicError(field)
	case ports.FetchFailed, ports.FetchCanceled:
		return failure.Unable(op, FetchReason(fe), FetchDetail(fe, field), fe)
	}
	return failure.Unable(op, FetchReason(fe), "The page could not be fetched: "+FetchDetail(fe, field), fe)
}

// FetchReason is the reason code of a fetcher's typed reason.
func FetchReason(fe *ports.FetchError) failure.Reason {
	switch fe.Reason {
	case ports.FetchTooLarge:
		return failure.ReasonTooLarge
	case ports.FetchHostNotFound:
		return failure.ReasonDNS
	case ports.FetchTimeout:
		return failure.ReasonTimeout
	case ports.FetchBadCertificate:
		return failure.ReasonTLS
	case ports.FetchRefused:
		return failure.ReasonRefused
	case ports.FetchCanceled:
		return failure.ReasonCanceled
	case ports.FetchTooManyRedirects, ports.FetchBadRedirect:
		return failure.ReasonRedirects
	}
	return failure.ReasonFetchFailed
}

// FetchDetail says what kept a page from being fetched, as the end of
// "The page could not be fetched: ..." (a whole sentence for the reasons
// that say nothing more precise).
func FetchDetail(fe *ports.FetchError, field string) string {
	switch fe.Reason {
	case ports.FetchNonPublic:
		return fmt.Sprintf(MsgNonPublic, field)
	case ports.FetchTooLarge:
		return fmt.Sprintf("it is larger than %d bytes.", fe.Limit)
	case ports.FetchHostNotFound:
		return fmt.Sprintf("the host %s was not found.", fe.Host)
	case ports.FetchTimeout:
		return fmt.Sprintf("%s did not answer within %s.", fe.Host, fe.Timeout)
	case ports.FetchBadCertificate:
		return fmt.Sprintf("the TLS certificate of %s is not valid.", fe.Host)
	case ports.FetchRefused:
		return fmt.Sprintf("%s refused the connection.", fe.Host)
	case ports.FetchTooManyRedirects:
		return fmt.Sprintf("more than %d redirects.", fe.Limit)
	case ports.FetchBadRedirect:
		return fmt.Sprintf("it redirected to a URL Trawl does not follow (%s %s).", field, fe.Rule)
	case ports.FetchCanceled:
		return "The request was cancelled."
	}
	return fmt.Sprintf("The page could not be fetched from %s.", fe.Host)
}

// AsFetchError finds a fetcher's typed reason in err.
func AsFetchError(err error) (*ports.FetchError, bool) {
	var fe *ports.FetchError
	return fe, errors.As(err, &fe)
}
