package connectapi_test

import (
	"context"
	"testing"

	"connectrpc.com/connect"

	trawlv1 "github.com/trawlhq/trawl/adapters/connectapi/gen/trawl/v1"
)

// TestGetContentOptions: GetContent takes the formats, actions and page
// options of /v1/content, and refuses a bad step naming its field.
func TestGetContentOptions(t *testing.T) {
	e := start(t)
	ctx := context.Background()
	gc, err := e.pages.GetContent(ctx, connect.NewRequest(&trawlv1.GetContentRequest{Url: "http://news.test/article", Formats: []string{"links", "images"},
		Locale: "de-DE", Device: "mobile", Headers: map[string]string{"X-Trace": "1"}, Cookies: map[string]string{"a": "b"}}))
	if err != nil || !gc.Msg.Content.Success || gc.Msg.Content.Screenshot != nil {
		t.Fatalf("GetContent with options = %v %v", gc, err)
	}
	ce := code(t, errOf(e.pages.GetContent(ctx, connect.NewRequest(&trawlv1.GetContentRequest{Url: "http://news.test/article",
		Actions: []*trawlv1.Action{{Type: "click", Selector: "#a"}, {Type: "wait"}}}))), connect.CodeInvalidArgument)
	if br := badRequest(ce); br == nil || br.FieldViolations[0].Field != "actions[1].milliseconds" {
		t.Fatalf("no field violation naming actions[1].milliseconds: %v", ce.Details())
	}
	code(t, errOf(e.pages.GetContent(ctx, connect.NewRequest(&trawlv1.GetContentRequest{Url: "http://news.test/article", Country: "DE"}))), connect.CodeInvalidArgument)
}
