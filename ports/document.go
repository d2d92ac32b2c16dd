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
// A document that cannot be read is a failure.Unavailable error saying why:
// encrypted, no text layer (a scanned document), damaged, or past the
// converter's memory or time bounds. The context bounds the time.
type DocumentConverter interface {
	Convert(ctx context.Context, r DocumentRequest) (Extracted, error)
}
