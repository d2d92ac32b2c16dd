package weburl

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"time"

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
	case ports.FetchBadURL:
		return failure.Invalidf(op, field, "The %s must be an absolute http or https URL.", field)
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

// Failure words an error from a fetcher, an address guard or a renderer
// for the caller, naming field: a typed reason becomes the failure
// FetchFailure or RenderFailure says; anything else (a context's error, a
// failure already worded) is returned as it is.
func Failure(err error, field string) error {
	if err == nil {
		return nil
	}
	if _, ok := failure.As(err); ok {
		return err
	}
	if fe, ok := AsFetchError(err); ok {
		return FetchFailure(fe, field)
	}
	var re *ports.RenderError
	if errors.As(err, &re) {
		return RenderFailure(re)
	}
	return err
}

// Kind is the kind of failure err is shown to a caller as: a typed reason
// counts as the failure Failure words it as (for what observes the ports:
// metrics and traces).
func Kind(err error) failure.Kind { return failure.KindOf(Failure(err, "url")) }

// RenderFailure turns a renderer's typed reason into the failure the
// caller sees: Unavailable, saying what kept the page from rendering.
func RenderFailure(re *ports.RenderError) error {
	const prefix = "The page could not be rendered"
	msg := prefix + "."
	switch re.Reason {
	case ports.RenderBusy:
		msg = prefix + ": the browser was busy for the whole time budget."
	case ports.RenderNoBrowser:
		msg = prefix + ": the browser is not available."
	case ports.RenderTimeout:
		msg = fmt.Sprintf(prefix+": it did not finish loading within %s.", re.Budget.Round(time.Second))
	case ports.RenderMemory:
		msg = prefix + ": it used more memory than a page may."
	case ports.RenderBrowserGone:
		msg = prefix + ": the browser stopped."
	case ports.RenderNotLoaded:
		msg = prefix + ": the browser could not load it."
	case ports.RenderDownload:
		msg = prefix + ": the URL is a download."
	case ports.RenderLeftWeb:
		msg = prefix + ": it left the web."
	}
	return failure.Unable("render", failure.ReasonRenderFailed, msg, re)
}

// CallbackFailure words an address guard's verdict on a callback URL the
// caller gave in field: a non-public host is the 422 any URL input gets,
// and a host that cannot be reached is a 422 as well, since the URL is
// checked when it is accepted.
func CallbackFailure(err error, host, field string) error {
	if err == nil {
		return nil
	}
	if fe, ok := AsFetchError(err); ok && fe.Reason == ports.FetchNonPublic {
		return NonPublicError(field)
	}
	if failure.Is(err, failure.Invalid) {
		return err
	}
	return failure.Invalidf("weburl.Callback", field, "The %s host %s could not be resolved.", field, host)
}

// CheckHost applies the URL rules to raw, given in field, and asks the
// address guard about its host: a 422 naming field when a rule is broken or
// the host is not public, Unavailable when it cannot be resolved.
func CheckHost(ctx context.Context, g ports.AddressGuard, raw, field string) error {
	u, err := Parse(raw, Rules{Field: field, MaxLen: 2048})
	if err != nil {
		return err
	}
	return Failure(g.CheckHost(ctx, u), field)
}

// CheckCallback reads a callback URL given in field and asks the sender
// whether its host may be called: a 422 naming field when it may not.
func CheckCallback(ctx context.Context, w ports.WebhookSender, raw, field string) error {
	u, err := ParseCallback(raw, field)
	if err != nil {
		return err
	}
	return CallbackFailure(w.Check(ctx, u), u.Hostname(), field)
}

// ParseCallback reads a callback URL given in field: any absolute URL with
// a host (any port; the address guard decides the rest).
func ParseCallback(raw, field string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Hostname() == "" {
		return nil, failure.Invalidf("weburl.Callback", field, "The %s must be a valid URL.", field)
	}
	return u, nil
}

// AsFetchError finds a fetcher's typed reason in err.
func AsFetchError(err error) (*ports.FetchError, bool) {
	var fe *ports.FetchError
	return fe, errors.As(err, &fe)
}
