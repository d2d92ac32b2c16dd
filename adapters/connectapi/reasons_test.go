package connectapi_test

import (
	"context"
	"testing"

	"connectrpc.com/connect"
	"google.golang.org/genproto/googleapis/rpc/errdetails"

	trawlv1 "github.com/trawlhq/trawl/adapters/connectapi/gen/trawl/v1"
)

// TestUnavailableCarriesReasonOverRPC: a call that could not be completed
// names its stable reason and whether to retry in the ErrorInfo metadata,
// and says in the error metadata that it charged nothing.
func TestUnavailableCarriesReasonOverRPC(t *testing.T) {
	e := start(t)
	for _, c := range []struct {
		url, reason, retryable string
	}{
		{"http://gone.test/", "dns", "false"},
		{"http://news.test/nothing-here", "page_not_found", "false"},
	} {
		_, err := e.pages.GetContent(context.Background(), connect.NewRequest(&trawlv1.GetContentRequest{Url: c.url}))
		ce := code(t, err, connect.CodeUnavailable)
		var info *errdetails.ErrorInfo
		for _, d := range ce.Details() {
			if v, err := d.Value(); err == nil {
				if i, ok := v.(*errdetails.ErrorInfo); ok {
					info = i
				}
			}
		}
		if info == nil || info.Reason != "UNAVAILABLE" || info.Metadata["reason"] != c.reason || info.Metadata["retryable"] != c.retryable {
			t.Errorf("%s: ErrorInfo = %v", c.url, info)
		}
		if ce.Meta().Get("X-Credits-Charged") != "0" || ce.Meta().Get("X-Credits-Remaining") != "90000" {
			t.Errorf("%s: metadata = %v", c.url, ce.Meta())
		}
	}
	res, err := e.pages.GetContent(context.Background(), connect.NewRequest(&trawlv1.GetContentRequest{Url: "http://news.test/article"}))
	if err != nil || res.Header().Get("X-Credits-Charged") != "2" || res.Header().Get("X-Credits-Remaining") != "89998" {
		t.Fatalf("success: %v %v", err, res)
	}
}

// TestExtractOverRPC: the RPC method validates like the JSON one, charges
// 10 credits on valid data and names llm_failed when the model misses.
func TestExtractOverRPC(t *testing.T) {
	e := start(t)
	ctx := context.Background()
	schema := `{"type":"object","required":["answer"],"properties":{"answer":{"type":"string","minLength":1}}}`
	_, err := e.prmpt.Extract(ctx, connect.NewRequest(&trawlv1.ExtractRequest{Url: "http://news.test/article", Schema: `{"type":7}`}))
	if ce := code(t, err, connect.CodeInvalidArgument); badRequest(ce) == nil || badRequest(ce).FieldViolations[0].Field != "schema" {
		t.Fatalf("invalid schema: %v", err)
	}
	// The fake model answers prose: "[test-model] You asked: ...".
	_, err = e.prmpt.Extract(ctx, connect.NewRequest(&trawlv1.ExtractRequest{Url: "http://news.test/article", Schema: schema}))
	ce := code(t, err, connect.CodeUnavailable)
	var info *errdetails.ErrorInfo
	for _, d := range ce.Details() {
		if v, err := d.Value(); err == nil {
			if i, ok := v.(*errdetails.ErrorInfo); ok {
				info = i
			}
		}
	}
	if info == nil || info.Metadata["reason"] != "llm_failed" || ce.Meta().Get("X-Credits-Charged") != "0" {
		t.Fatalf("prose answer: %v %v", info, ce.Meta())
	}
}
