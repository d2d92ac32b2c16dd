package webhook_test

import (
	"context"
	"errors"
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
	"github.com/trawlhq/trawl/core/weburl"
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
	if err := weburl.CheckCallback(context.Background(), s, cb, "callback_url"); err != nil {
		t.Fatalf("an overridden receiver: %v", err)
	}
	status, err := s.Send(context.Background(), ports.Webhook{URL: cb, Body: []byte(`{"ok":true}`), Headers: map[string]string{"X-Trawl-Signature": "t=1,v1=ab"}, Timeout: time.Second})
	if err != nil || status != 204 || string(got) != `{"ok":true}` || sig != "t=1,v1=ab" {
		t.Fatalf("send = %d %v %q %q", status, err, got, sig)
	}
	for _, bad := range []string{"http://private.test/hook", "http://127.0.0.1:" + port + "/", "http://[::1]:9/"} {
		if err := weburl.CheckCallback(context.Background(), s, bad, "callback_url"); !failure.Is(err, failure.Invalid) {
			t.Errorf("Check(%s) = %v", bad, err)
		}
	}
	if _, err := s.Send(context.Background(), ports.Webhook{URL: "http://127.0.0.1:" + port + "/", Timeout: time.Second}); err == nil {
		t.Error("a loopback receiver was reached without an override")
	}
}

// A failed POST says why in a reason the job record can show; the cause,
// which names the resolved address, stays inside the error for the logs.
func TestSendFailureReasons(t *testing.T) {
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	refused := ln.Addr().String()
	ln.Close()
	hang, _ := net.Listen("tcp", "127.0.0.1:0") // accepts, never answers
	defer hang.Close()
	go func() {
		for {
			c, err := hang.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	tlsRecv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(204) }))
	defer tlsRecv.Close()
	f := fetch.New(fetch.Options{
		Resolve: map[string]string{"refused.test:80": refused, "slow.test:80": hang.Addr().String(), "tls.test:443": strings.TrimPrefix(tlsRecv.URL, "https://")},
		LookupIP: func(_ context.Context, host string) ([]netip.Addr, error) {
			if host == "private.test" {
				return []netip.Addr{netip.MustParseAddr("10.1.2.3")}, nil
			}
			return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
		},
	})
	s, _ := webhook.New(f)
	for url, want := range map[string]ports.DeliveryReason{
		"http://refused.test/hook": ports.DeliveryRefused,
		"http://slow.test/hook":    ports.DeliveryTimedOut,
		"https://tls.test/hook":    ports.DeliveryTLS, // a certificate no authority signed
		"http://nowhere.test/hook": ports.DeliveryDNS,
		"http://private.test/hook": ports.DeliveryNonPublic,
	} {
		timeout := 10 * time.Second
		if want == ports.DeliveryTimedOut {
			timeout = 300 * time.Millisecond
		}
		_, err := s.Send(context.Background(), ports.Webhook{URL: url, Body: []byte("{}"), Timeout: timeout})
		var de *ports.DeliveryError
		if !errors.As(err, &de) || de.Reason != want {
			t.Errorf("%s: %v, want reason %d", url, err, want)
		}
	}
}
