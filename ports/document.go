package ports

import "context"

// DocumentFormat names a document format Trawl converts to the Content
// object.
type DocumentFormat string

const (
	DocumentPDF  DocumentFormat = "pdf"
	DocumentDOCX DocumentFormat = "docx"
)

// DocumentRequest is a fetched document to convert.
type DocumentRequest struct {
	URL    string // the final URL of the document
	Format DocumentFormat
	Body   []byte
	// MaxPages is the number of pages read at most; a longer document is
	// converted up to it and the result says so in Extracted.Warning. 0 means
	// the converter's default.
	MaxPages int
}

// DocumentConverter turns a document (PDF, DOCX) into the main content of
// the Content object: structured HTML and Markdown, plain text, and the
// document's metadata with its page count.
//
// A document that cannot be read is a *DocumentError saying why:
// encrypted, no text layer (a scanned document), damaged, or past the
// converter's memory or time bounds; the caller words it
// (core/content.DocumentFailure). The context bounds the time.
type DocumentConverter interface {
	Convert(ctx context.Context, r DocumentRequest) (Extracted, error)
}

// DocumentReason says why a document could not be converted.
type DocumentReason uint8

const (
	DocumentDamaged        DocumentReason = iota // damaged (anything else)
	DocumentEncrypted                            // encrypted with a password
	DocumentUnreadable                           // not a readable file of its Format
	DocumentTooManyEntries                       // its archive has more than Limit entries
	DocumentPartTooLarge                         // a part inflates past Limit bytes
	DocumentTooDeep                              // its XML nests too deeply
	DocumentNoText                               // no text
	DocumentNoPages                              // no pages
	DocumentNoTextLayer                          // pages without a text layer (a scan)
	DocumentTimeout                              // not converted within the time limit
	DocumentCanceled                             // the caller gave up
	DocumentNoReader                             // the converter is not available
)

// DocumentError is the typed reason a converter gives for a document it
// could not convert; it holds no sentence for the caller.
type DocumentError struct {
	Reason DocumentReason
	Format DocumentFormat
	Limit  int64 // DocumentTooManyEntries, DocumentPartTooLarge
	Err    error // the converter's own error, for logs
}

func (e *DocumentError) Error() string {
	if e.Err != nil {
		return "convert " + string(e.Format) + ": " + e.Err.Error()
	}
	return "convert " + string(e.Format) + " failed"
}

func (e *DocumentError) Unwrap() error { return e.Err }
