// Package webhook posts webhook deliveries through the fetcher's guarded
// transport: a callback URL must be public when accepted and when each
// connection is dialled, and redirects are not followed.
package webhook

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"syscall"
	"time"

	"github.com/trawlhq/trawl/adapters/fetch"
	"github.com/trawlhq/trawl/ports"
)

// Sender implements ports.WebhookSender.
type Sender struct {
	fetcher *fetch.Client
	http    *http.Client
}

var _ ports.WebhookSender = (*Sender)(nil)

// New builds a sender on the fetcher's transport.
func New(f *fetch.Client) (*Sender, error) {
	if f == nil {
		return nil, errors.New("webhook.New: fetcher is required")
	}
	return &Sender{fetcher: f, http: &http.Client{
		Transport:     f.Transport(),
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}, nil
}

// Check implements ports.WebhookSender.
func (s *Sender) Check(ctx context.Context, callbackURL *url.URL) error {
	return s.fetcher.CheckURL(ctx, callbackURL)
}

// Send implements ports.WebhookSender: one POST within w.Timeout.
func (s *Sender) Send(ctx context.Context, w ports.Webhook) (int, error) {
	timeout := w.Timeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.URL, bytes.NewReader(w.Body))
	if err != nil {
		return 0, &ports.DeliveryError{Err: err}
	}
	for k, v := range w.Headers {
		req.Header.Set(k, v)
	}
	res, err := s.http.Do(req)
	if err != nil {
		return 0, &ports.DeliveryError{Reason: reason(err), Err: err}
	}
	defer res.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10))
	return res.StatusCode, nil
}

// reason classifies a failed POST for the job record; the error itself,
// which names resolved addresses, goes only to the logs.
func reason(err error) ports.DeliveryReason {
	var dns *net.DNSError
	var cert *tls.CertificateVerificationError
	var unknownAuthority x509.UnknownAuthorityError
	var hostname x509.HostnameError
	var alert tls.AlertError
	var record tls.RecordHeaderError
	switch {
	case fetch.IsNonPublic(err):
		return ports.DeliveryNonPublic
	case errors.As(err, &dns):
		return ports.DeliveryDNS
	case errors.Is(err, context.DeadlineExceeded) || os.IsTimeout(err):
		return ports.DeliveryTimedOut
	case errors.Is(err, syscall.ECONNREFUSED):
		return ports.DeliveryRefused
	case errors.As(err, &cert), errors.As(err, &unknownAuthority), errors.As(err, &hostname), errors.As(err, &alert), errors.As(err, &record):
		return ports.DeliveryTLS
	}
	return ports.DeliveryFailed
}
