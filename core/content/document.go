package content

import (
	"errors"
	"fmt"

	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/ports"
)

// DocumentFailure words a document converter's typed reason for the
// caller: Unavailable, with the reason code and a sentence saying why the
// document could not be read. Anything else is returned as it is.
func DocumentFailure(err error) error {
	var de *ports.DocumentError
	if !errors.As(err, &de) {
		return err
	}
	const op = "content.Convert"
	const prefix = "The document could not be converted: "
	reason, msg := failure.ReasonUnreadableDocument, prefix+"it is damaged."
	switch de.Reason {
	case ports.DocumentEncrypted:
		reason, msg = failure.ReasonEncrypted, prefix+"it is encrypted with a password."
	case ports.DocumentUnreadable:
		msg = prefix + "it is not a readable PDF."
		if de.Format == ports.DocumentDOCX {
			msg = prefix + "it is not a readable DOCX file."
		}
	case ports.DocumentTooManyEntries:
		reason, msg = failure.ReasonTooLarge, fmt.Sprintf(prefix+"its archive has more than %d entries.", de.Limit)
	case ports.DocumentPartTooLarge:
		reason, msg = failure.ReasonTooLarge, fmt.Sprintf(prefix+"a part of it inflates past %d bytes.", de.Limit)
	case ports.DocumentTooDeep:
		msg = prefix + "its XML is nested too deeply."
	case ports.DocumentNoText:
		reason, msg = failure.ReasonNoMainContent, prefix+"it has no text."
	case ports.DocumentNoPages:
		reason, msg = failure.ReasonNoMainContent, prefix+"it has no pages."
	case ports.DocumentNoTextLayer:
		reason, msg = failure.ReasonNoTextLayer, "The document has no text layer: it looks like a scanned document, and Trawl does not read text from images."
	case ports.DocumentTimeout:
		reason, msg = failure.ReasonTimeout, "The document could not be converted within the time limit."
	case ports.DocumentCanceled:
		reason, msg = failure.ReasonCanceled, "The request was cancelled."
	case ports.DocumentNoReader:
		reason, msg = failure.ReasonUnavailable, prefix+"the PDF reader is not available."
	}
	return failure.Unable(op, reason, msg, de)
}

// ExtractFailure words an extractor's typed reason for the caller:
// Unavailable, with the reason code and a sentence saying why the page had
// no content to extract. Anything else is returned as it is.
func ExtractFailure(err error) error {
	var ee *ports.ExtractError
	if !errors.As(err, &ee) {
		return err
	}
	const op = "extract.Extract"
	const answered = "The page could not be extracted: the site answered with %s instead of the page."
	reason, msg := failure.ReasonNoMainContent, "The page could not be extracted: no main content was found."
	switch ee.Reason {
	case ports.ExtractNotHTML:
		reason, msg = failure.ReasonNotHTML, "The page could not be parsed as HTML."
	case ports.ExtractChallenge:
		reason, msg = failure.ReasonCaptcha, fmt.Sprintf(answered, "a bot-protection challenge")
	case ports.ExtractCaptcha:
		reason, msg = failure.ReasonCaptcha, fmt.Sprintf(answered, "a captcha challenge")
	case ports.ExtractDenied:
		reason, msg = failure.ReasonBlocked, fmt.Sprintf(answered, "an access-denied page")
	}
	return failure.Unable(op, reason, msg, ee)
}
