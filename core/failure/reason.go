package failure

// Reason is the stable, machine-readable code of an operation that could
// not be completed (a 503): it says what went wrong in words a program can
// branch on, next to the sentence a person reads. Codes never change
// meaning; new ones may be added.
type Reason string

// The reasons, grouped by where they arise.
const (
	// The target page or site.
	ReasonBlocked            Reason = "blocked"             // the site refused Trawl (access-denied page, 401/403/429/451)
	ReasonCaptcha            Reason = "captcha"             // the site answered with a captcha or bot-protection challenge
	ReasonPageNotFound       Reason = "page_not_found"      // the site answered 404 or 410
	ReasonSiteError          Reason = "site_error"          // the site answered another error status instead of the page
	ReasonNotHTML            Reason = "not_html"            // the URL is not an HTML page (or a supported document)
	ReasonNoMainContent      Reason = "no_main_content"     // the page has no readable main content
	ReasonNoTextLayer        Reason = "no_text_layer"       // the document has no text layer (a scan)
	ReasonEncrypted          Reason = "encrypted"           // the document is encrypted
	ReasonUnreadableDocument Reason = "unreadable_document" // the document is damaged or not what its type says
	ReasonTooLarge           Reason = "too_large"           // the page is larger than the fetch limit
	ReasonTimeout            Reason = "timeout"             // the site did not answer in time
	ReasonDNS                Reason = "dns"                 // the host name does not resolve
	ReasonRefused            Reason = "refused"             // the site refused the connection
	ReasonTLS                Reason = "tls"                 // the site's TLS certificate is not valid
	ReasonRedirects          Reason = "redirects"           // too many redirects, or a redirect Trawl does not follow
	ReasonFetchFailed        Reason = "fetch_failed"        // the connection broke for another reason
	ReasonCanceled           Reason = "canceled"            // the request was canceled before the page arrived
	ReasonNoSitemap          Reason = "no_sitemap"          // no sitemap could be discovered for the domain
	ReasonRenderFailed       Reason = "render_failed"       // the browser could not render the page

	// Search engines.
	ReasonEngineBlocked     Reason = "engine_blocked"     // the engine answered with a captcha or bot check
	ReasonEngineUnreachable Reason = "engine_unreachable" // the engine could not be reached or answered an error
	ReasonEngineFailed      Reason = "engine_failed"      // the engine's result page could not be read

	// The language model.
	ReasonLLMFailed      Reason = "llm_failed"      // the model gave no usable answer (none, unreadable, or not valid against the schema)
	ReasonLLMUnavailable Reason = "llm_unavailable" // no model is configured on this server

	// Trawl itself and its providers.
	ReasonBusy               Reason = "busy"                // Trawl is out of capacity for a moment
	ReasonPaymentUnavailable Reason = "payment_unavailable" // the payment provider could not be reached
	ReasonNotOffered         Reason = "not_offered"         // this server does not offer the operation
	ReasonDeliveryFailed     Reason = "delivery_failed"     // results or an email could not be delivered
	ReasonUnavailable        Reason = "unavailable"         // none of the above (kept for completeness)
)

// ReasonInfo describes a reason code.
type ReasonInfo struct {
	Code Reason
	// Retryable: the same request may well succeed later (with backoff).
	Retryable bool
	Meaning   string
}

var reasons = []ReasonInfo{
	{ReasonBlocked, false, "the site refused Trawl (an access-denied page or status 401, 403, 429, 451)"},
	{ReasonCaptcha, false, "the site answered with a captcha or bot-protection challenge"},
	{ReasonPageNotFound, false, "the site answered 404 Not Found or 410 Gone"},
	{ReasonSiteError, true, "the site answered another error status instead of the page"},
	{ReasonNotHTML, false, "the URL is not an HTML page or a supported document"},
	{ReasonNoMainContent, false, "the page has no readable main content"},
	{ReasonNoTextLayer, false, "the document has no text layer (a scanned image)"},
	{ReasonEncrypted, false, "the document is encrypted"},
	{ReasonUnreadableDocument, false, "the document is damaged or not a readable file of its type"},
	{ReasonTooLarge, false, "the page is larger than the fetch limit"},
	{ReasonTimeout, true, "the site did not answer in time"},
	{ReasonDNS, false, "the host name does not resolve"},
	{ReasonRefused, true, "the site refused the connection"},
	{ReasonTLS, false, "the site's TLS certificate is not valid"},
	{ReasonRedirects, false, "too many redirects, or a redirect to a URL Trawl does not follow"},
	{ReasonFetchFailed, true, "the connection to the site broke"},
	{ReasonCanceled, true, "the request was canceled before the page arrived"},
	{ReasonNoSitemap, false, "no sitemap could be discovered for the domain"},
	{ReasonRenderFailed, true, "the browser could not render the page"},
	{ReasonEngineBlocked, true, "the search engine answered with a captcha or bot check"},
	{ReasonEngineUnreachable, true, "the search engine could not be reached or answered an error"},
	{ReasonEngineFailed, true, "the search engine's result page could not be read"},
	{ReasonLLMFailed, true, "the language model gave no usable answer"},
	{ReasonLLMUnavailable, false, "no language model is configured on this server"},
	{ReasonBusy, true, "Trawl is out of capacity for a moment; retry after Retry-After"},
	{ReasonPaymentUnavailable, true, "the payment provider could not be reached"},
	{ReasonNotOffered, false, "this server does not offer the operation"},
	{ReasonDeliveryFailed, true, "results or an email could not be delivered"},
	{ReasonUnavailable, true, "the operation could not be completed"},
}

// Reasons lists every reason code with its meaning, in documentation order.
func Reasons() []ReasonInfo { return append([]ReasonInfo(nil), reasons...) }

// Info returns the description of a reason; ok is false for unknown codes.
func (r Reason) Info() (ReasonInfo, bool) {
	for _, ri := range reasons {
		if ri.Code == r {
			return ri, true
		}
	}
	return ReasonInfo{}, false
}

// Unable builds the failure of an operation that could not be completed
// (Kind Unavailable) with its reason code and a caller-safe message.
func Unable(op string, reason Reason, message string, cause ...error) *Error {
	e := E(op, Unavailable, message, cause...)
	e.Reason = reason
	return e
}

// ReasonOf returns the reason of err: the first reason found on its chain of
// failures, "busy" for TemporarilyUnavailable, "" when err names none.
func ReasonOf(err error) Reason {
	for e := err; e != nil; {
		fe, ok := As(e)
		if !ok {
			break
		}
		if fe.Reason != "" {
			return fe.Reason
		}
		if fe.Kind == TemporarilyUnavailable {
			return ReasonBusy
		}
		e = fe.Err
	}
	return ""
}

// Outcome is the stable reason of a failure and whether the same request
// may succeed later: the reason on err's chain, normalised (Normal). It is
// the one rule behind the reason and retryable of a 503 and of a bulk
// job's failed URL.
func Outcome(err error) (reason Reason, retryable bool) { return ReasonOf(err).Normal() }

// Normal returns r when it is a known code, else "unavailable", and whether
// the same request may succeed later.
func (r Reason) Normal() (Reason, bool) {
	info, known := r.Info()
	if !known {
		info, _ = ReasonUnavailable.Info()
	}
	return info.Code, info.Retryable
}
