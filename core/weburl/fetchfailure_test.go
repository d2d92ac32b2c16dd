package weburl_test

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/core/weburl"
	"github.com/trawlhq/trawl/ports"
)

// TestFailureWordsTypedReasons: core words an adapter's typed reason for
// the caller, naming the field it is given; a worded failure or a
// context's error passes as it is.
func TestFailureWordsTypedReasons(t *testing.T) {
	worded := failure.Invalidf("x", "q", "The q is bad.")
	for _, c := range []struct {
		name   string
		err    error
		field  string
		kind   failure.Kind
		reason failure.Reason
		msg    string // the whole public message, or the field's message for Invalid
	}{
		{"non-public names the field", &ports.FetchError{Reason: ports.FetchNonPublic, Host: "h.test"}, "sitemap", failure.Invalid, "", "The sitemap resolves to a non-public address."},
		{"not a web URL names the field", &ports.FetchError{Reason: ports.FetchBadURL}, "url", failure.Invalid, "", "The url must be an absolute http or https URL."},
		{"dns", &ports.FetchError{Reason: ports.FetchHostNotFound, Host: "nowhere.test"}, "url", failure.Unavailable, failure.ReasonDNS, "The page could not be fetched: the host nowhere.test was not found."},
		{"bad redirect names the field", &ports.FetchError{Reason: ports.FetchBadRedirect, Host: "a.test", Rule: "must use http or https"}, "sitemap", failure.Unavailable, failure.ReasonRedirects, "The page could not be fetched: it redirected to a URL Trawl does not follow (sitemap must use http or https)."},
		{"render timeout", &ports.RenderError{Reason: ports.RenderTimeout, Budget: 30 * time.Second}, "url", failure.Unavailable, failure.ReasonRenderFailed, "The page could not be rendered: it did not finish loading within 30s."},
		{"render memory", &ports.RenderError{Reason: ports.RenderMemory}, "url", failure.Unavailable, failure.ReasonRenderFailed, "The page could not be rendered: it used more memory than a page may."},
		{"render, anything else", &ports.RenderError{Reason: ports.RenderFailed, Err: errors.New("cdp: target closed")}, "url", failure.Unavailable, failure.ReasonRenderFailed, "The page could not be rendered."},
		{"a worded failure passes", worded, "url", failure.Invalid, "", "The q is bad."},
	} {
		got := weburl.Failure(c.err, c.field)
		fe, ok := failure.As(got)
		if !ok || fe.Kind != c.kind || failure.ReasonOf(got) != c.reason && c.reason != "" {
			t.Errorf("%s: %v (kind %v, reason %q), want %v %q", c.name, got, failure.KindOf(got), failure.ReasonOf(got), c.kind, c.reason)
			continue
		}
		msg := fe.Message
		if c.kind == failure.Invalid && len(fe.Fields) > 0 {
			f := c.field
			if c.err == worded {
				f = "q"
			}
			if len(fe.Fields[f]) != 1 {
				t.Errorf("%s: fields %v, want %s named", c.name, fe.Fields, f)
				continue
			}
			msg = fe.Fields[f][0]
		}
		if msg != c.msg {
			t.Errorf("%s: message %q, want %q", c.name, msg, c.msg)
		}
		if weburl.Kind(c.err) != c.kind {
			t.Errorf("%s: Kind %v, want %v", c.name, weburl.Kind(c.err), c.kind)
		}
	}
	if weburl.Failure(nil, "url") != nil || weburl.Failure(context.Canceled, "url") != context.Canceled {
		t.Error("nil and a context's error must pass as they are")
	}
}

// guard answers CheckHost with a fixed verdict.
type guard struct{ err error }

func (g guard) CheckHost(context.Context, *url.URL) error { return g.err }

func (g guard) Check(context.Context, *url.URL) error { return g.err }

func (guard) Send(context.Context, ports.Webhook) (int, error) { return 0, nil }

// TestCallbackAndHostChecks: a callback URL or a URL input the guard
// refuses is a 422 naming the field; a host that does not resolve is a
// 422 for a callback (checked when accepted) and a 503 for a page.
func TestCallbackAndHostChecks(t *testing.T) {
	ctx := context.Background()
	nonPublic := guard{&ports.FetchError{Reason: ports.FetchNonPublic, Host: "hook.test"}}
	gone := guard{&ports.FetchError{Reason: ports.FetchHostNotFound, Host: "hook.test"}}
	field := func(err error, name string) string {
		fe, ok := failure.As(err)
		if !ok || fe.Kind != failure.Invalid || len(fe.Fields[name]) != 1 {
			return ""
		}
		return fe.Fields[name][0]
	}
	if got := field(weburl.CheckCallback(ctx, nonPublic, "https://hook.test:8443/cb", "callback_url"), "callback_url"); got != "The callback_url resolves to a non-public address." {
		t.Errorf("non-public callback: %q", got)
	}
	if got := field(weburl.CheckCallback(ctx, gone, "https://hook.test/cb", "callback_url"), "callback_url"); got != "The callback_url host hook.test could not be resolved." {
		t.Errorf("unresolved callback: %q", got)
	}
	if got := field(weburl.CheckCallback(ctx, guard{}, "not a url", "callback_url"), "callback_url"); got != "The callback_url must be a valid URL." {
		t.Errorf("malformed callback: %q", got)
	}
	if err := weburl.CheckCallback(ctx, guard{}, "https://hook.test:8443/cb", "callback_url"); err != nil {
		t.Errorf("a public callback on any port: %v", err)
	}
	if got := field(weburl.CheckHost(ctx, nonPublic, "https://hook.test/", "url"), "url"); got != "The url resolves to a non-public address." {
		t.Errorf("non-public host: %q", got)
	}
	if err := weburl.CheckHost(ctx, gone, "https://hook.test/", "url"); !failure.Is(err, failure.Unavailable) || failure.ReasonOf(err) != failure.ReasonDNS {
		t.Errorf("unresolved host: %v", err)
	}
	if got := field(weburl.CheckHost(ctx, guard{}, "ftp://hook.test/", "url"), "url"); !strings.Contains(got, "must use http or https") {
		t.Errorf("a URL rule: %q", got)
	}
}
