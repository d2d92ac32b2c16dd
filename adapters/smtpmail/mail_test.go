package smtpmail_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/mail"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"

	"github.com/trawlhq/trawl/adapters/smtpmail"
	"github.com/trawlhq/trawl/ports"
)

var msg = ports.Mail{From: "Trawl <no-reply@trawl.test>", To: "dev@example.com", Subject: "Your results are ready — 3 of 4", Text: "Download: https://x.test/files/a.zip?sig=1\nBye", HTML: "<p><a href=\"https://x.test/files/a.zip?sig=1\">Download</a></p>"}

func TestFormat(t *testing.T) {
	raw, err := smtpmail.Format(msg, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	m, err := mail.ReadMessage(strings.NewReader(string(raw)))
	if err != nil {
		t.Fatal(err)
	}
	subj, _ := new(mimeDecoder).decode(m.Header.Get("Subject"))
	if m.Header.Get("To") != "<dev@example.com>" || subj != msg.Subject || !strings.HasPrefix(m.Header.Get("Content-Type"), "multipart/alternative") || m.Header.Get("Message-Id") == "" {
		t.Fatalf("headers = %v (subject %q)", m.Header, subj)
	}
	body, _ := io.ReadAll(m.Body)
	if !strings.Contains(string(body), "text/plain") || !strings.Contains(string(body), "text/html") {
		t.Fatalf("body = %s", body)
	}
	if _, err := smtpmail.Format(ports.Mail{From: "bad", To: "x@y.z"}, time.Now()); err == nil {
		t.Fatal("a bad From was accepted")
	}
}

// backend is a real SMTP server in the test: go-smtp speaks the protocol.
type backend struct {
	mu   sync.Mutex
	got  []string
	from string
	to   []string
	auth bool
}

type session struct{ b *backend }

func (b *backend) NewSession(*smtp.Conn) (smtp.Session, error) { return &session{b}, nil }
func (s *session) AuthMechanisms() []string                    { return []string{sasl.Plain} }
func (s *session) Auth(string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(_, user, pass string) error {
		s.b.mu.Lock()
		defer s.b.mu.Unlock()
		s.b.auth = user == "mailer" && pass == "s3cret"
		if !s.b.auth {
			return smtp.ErrAuthFailed
		}
		return nil
	}), nil
}
func (s *session) Mail(from string, _ *smtp.MailOptions) error { s.b.from = from; return nil }
func (s *session) Rcpt(to string, _ *smtp.RcptOptions) error   { s.b.to = append(s.b.to, to); return nil }
func (s *session) Data(r io.Reader) error {
	b, _ := io.ReadAll(r)
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	s.b.got = append(s.b.got, string(b))
	return nil
}
func (s *session) Reset()        {}
func (s *session) Logout() error { return nil }

func TestSMTPConversation(t *testing.T) {
	be := &backend{}
	srv := smtp.NewServer(be)
	srv.Domain = "localhost"
	srv.AllowInsecureAuth = true
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	// PLAIN auth over an unencrypted link is allowed by net/smtp only to localhost.
	m, err := smtpmail.NewSMTP("smtp://mailer:s3cret@localhost:" + strings.Split(ln.Addr().String(), ":")[1])
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Send(context.Background(), msg); err != nil {
		t.Fatal(err)
	}
	be.mu.Lock()
	defer be.mu.Unlock()
	if len(be.got) != 1 || !be.auth || be.from != "no-reply@trawl.test" || len(be.to) != 1 || be.to[0] != "dev@example.com" || !strings.Contains(be.got[0], "multipart/alternative") {
		t.Fatalf("server saw auth=%v from=%q to=%v msgs=%d", be.auth, be.from, be.to, len(be.got))
	}
	if _, err := smtpmail.NewSMTP("http://x"); err == nil {
		t.Fatal("a non-smtp URL was accepted")
	}
}

func TestOutbox(t *testing.T) {
	dir := t.TempDir()
	o, err := smtpmail.NewOutbox(filepath.Join(dir, "outbox"))
	if err != nil {
		t.Fatal(err)
	}
	if err := o.Send(context.Background(), msg); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "outbox", "*.eml"))
	if len(files) != 1 {
		t.Fatalf("%d .eml files", len(files))
	}
	raw, _ := os.ReadFile(files[0])
	if _, err := mail.ReadMessage(strings.NewReader(string(raw))); err != nil {
		t.Fatalf("not a readable message: %v", err)
	}
}

// rejecting refuses every recipient, as a relay that will not deliver does.
type rejecting struct{ backend }

type rejectingSession struct{ session }

func (b *rejecting) NewSession(*smtp.Conn) (smtp.Session, error) {
	return &rejectingSession{session{&b.backend}}, nil
}
func (s *rejectingSession) Rcpt(string, *smtp.RcptOptions) error {
	return &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 1, 1}, Message: "mailbox unavailable"}
}

// A failed send says why in a reason the job record can show; the relay's
// address stays in the error, for the logs.
func TestSMTPFailureReasons(t *testing.T) {
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	closed := ln.Addr().String()
	ln.Close()
	srv := smtp.NewServer(&rejecting{})
	srv.Domain = "localhost"
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	auth := smtp.NewServer(&backend{})
	auth.Domain = "localhost"
	auth.AllowInsecureAuth = true
	authLn, _ := net.Listen("tcp", "127.0.0.1:0")
	go func() { _ = auth.Serve(authLn) }()
	defer auth.Close()
	for relay, want := range map[string]struct {
		reason ports.DeliveryReason
		code   int
	}{
		"smtp://" + closed:             {ports.DeliveryRefused, 0},
		"smtp://" + ln.Addr().String(): {ports.DeliveryAnswered, 550},
		"smtp://mailer:wrong@localhost:" + strings.Split(authLn.Addr().String(), ":")[1]: {ports.DeliveryAuth, 0},
	} {
		m, err := smtpmail.NewSMTP(relay)
		if err != nil {
			t.Fatal(err)
		}
		err = m.Send(context.Background(), msg)
		var de *ports.DeliveryError
		if !errors.As(err, &de) || de.Reason != want.reason || de.Code != want.code {
			t.Errorf("%s: %v (%+v), want reason %d code %d", relay, err, de, want.reason, want.code)
		}
	}
}
