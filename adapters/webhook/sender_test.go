package webhook_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/trawlhq/trawl/adapters/fetch"
	"github.com/trawlhq/trawl/adapters/webhook"
	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/ports"
)

func TestSendAndGuard(t *testing.T) {
	var got []byte
	var sig string
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, _ = io.ReadAll(r.Body)
		sig = r.Header.Get("X-Trawl-Signature")
		w.WriteHeader(204)
	}))
	defer recv.Close()
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(recv.URL, "http://"))
	f := fetch.New(fetch.Options{
		Resolve: map[string]string{"hooks.test:" + port: "127.0.0.1:" + port},
		LookupIP: func(context.Context, string) ([]netip.Addr, error) {
			return []netip.Addr{netip.MustParseAddr("10.1.2.3")}, nil
		},
	})
	s, _ := webhook.New(f)
	cb := "http://hooks.test:" + port + "/trawl"
	if err := s.Check(context.Background(), cb, "callback_url"); err != nil {
		t.Fatalf("an overridden receiver: %v", err)
	}
	status, err := s.Send(context.Background(), ports.Webhook{URL: cb, Body: []byte(`{"ok":true}`), Headers: map[string]string{"X-Trawl-Signature": "t=1,v1=ab"}, Timeout: time.Second})
	if err != nil || status != 204 || string(got) != `{"ok":true}` || sig != "t=1,v1=ab" {
		t.Fatalf("send = %d %v %q %q", status, err, got, sig)
	}
	for _, bad := range []string{"http://private.test/hook", "http://127.0.0.1:" + port + "/", "http://[::1]:9/"} {
		if err := s.Check(context.Background(), bad, "callback_url"); !failure.Is(err, failure.Invalid) {
			t.Errorf("Check(%s) = %v", bad, err)
		}
	}
	if _, err := s.Send(context.Background(), ports.Webhook{URL: "http://127.0.0.1:" + port + "/", Timeout: time.Second}); err == nil {
		t.Error("a loopback receiver was reached without an override")
	}
}
