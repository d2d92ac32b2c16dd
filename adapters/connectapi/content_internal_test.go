package connectapi

import (
	"testing"

	"github.com/trawlhq/trawl/core/content"
	"github.com/trawlhq/trawl/ports"
)

// The document fields travel over RPC as they do in JSON: present for a
// document, absent for a web page.
func TestContentMsgDocumentFields(t *testing.T) {
	doc := contentMsg(content.Page{URL: "https://docs.test/a.pdf", Success: true, StatusCode: 200, Metadata: ports.Metadata{PageCount: 812},
		Warning: "The document has 812 pages; only the first 500 were converted."})
	if doc.Metadata.PageCount == nil || *doc.Metadata.PageCount != 812 || doc.Warning == nil || *doc.Warning == "" {
		t.Fatalf("document = %v", doc)
	}
	page := contentMsg(content.Page{URL: "https://news.test/a", Success: true, StatusCode: 200})
	if page.Metadata.PageCount != nil || page.Warning != nil {
		t.Fatalf("web page = %v", page)
	}
}
