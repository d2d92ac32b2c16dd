// Package mail sends Trawl's email: over SMTP (STARTTLS when the server
// offers it, AUTH PLAIN when credentials are given), or, as the embedded
// default, into an outbox directory of .eml files an operator can open.
package smtpmail

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"mime"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"net/smtp"
	"net/textproto"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/trawlhq/trawl/ports"
)

// Format renders a message as RFC 5322 with text and HTML alternatives.
func Format(m ports.Mail, now time.Time) ([]byte, error) {
	from, err := mail.ParseAddress(m.From)
	if err != nil {
		return nil, fmt.Errorf("from: %w", err)
	}
	to, err := mail.ParseAddress(m.To)
	if err != nil {
		return nil, fmt.Errorf("to: %w", err)
	}
	var rnd [12]byte
	_, _ = rand.Read(rnd[:])
	boundary := "trawl-" + hex.EncodeToString(rnd[:])
	domain := "trawl.localhost"
	if i := strings.LastIndex(from.Address, "@"); i >= 0 {
		domain = from.Address[i+1:]
	}
	var b bytes.Buffer
	h := func(k, v string) { b.WriteString(foldHeader(k, v)) }
	h("From", from.String())
	h("To", to.String())
	h("Subject", mime.QEncoding.Encode("utf-8", m.Subject))
	h("Date", now.Format(time.RFC1123Z))
	h("Message-ID", "<"+hex.EncodeToString(rnd[:])+"@"+domain+">")
	h("MIME-Version", "1.0")
	h("Content-Type", `multipart/alternative; boundary="`+boundary+`"`)
	b.WriteString("\r\n")
	for _, part := range []struct{ ctype, body string }{{"text/plain", m.Text}, {"text/html", m.HTML}} {
		if part.body == "" {
			continue
		}
		fmt.Fprintf(&b, "--%s\r\nContent-Type: %s; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n", boundary, part.ctype)
		qp := quotedprintable.NewWriter(&b)
		_, _ = qp.Write([]byte(crlf(part.body)))
		_ = qp.Close()
		b.WriteString("\r\n")
	}
	fmt.Fprintf(&b, "--%s--\r\n", boundary)
	return b.Bytes(), nil
}

// crlf ends every line in CRLF, whether it ended in LF or CRLF: a CRLF
// must not become CR CR LF, which reads as an extra blank line.
func crlf(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\n", "\r\n")
}

// maxLine is the line length RFC 5322 asks headers to keep to.
const maxLine = 78

// foldHeader writes one header field, folded before a space wherever a line
// would pass maxLine: a long subject is a run of encoded words, and a relay
// may refuse or cut a line of hundreds. Unfolding gives the value back.
func foldHeader(name, value string) string {
	var b strings.Builder
	b.WriteString(name + ":")
	line := len(name) + 1
	words := strings.Split(value, " ")
	for i, w := range words {
		// Only a single space between two words is a folding point, so
		// unfolding (which joins lines with one space) keeps the value.
		canFold := i == 0 || (w != "" && words[i-1] != "")
		if canFold && line+1+len(w) > maxLine {
			b.WriteString("\r\n")
			line = 0
		}
		b.WriteString(" " + w)
		line += 1 + len(w)
	}
	b.WriteString("\r\n")
	return b.String()
}

// SMTP sends through an SMTP server: smtp://user:pass@host:port.
type SMTP struct {
	addr, host string
	user, pass string
	timeout    time.Duration
	tlsConfig  *tls.Config
}

var _ ports.Mailer = (*SMTP)(nil)

// NewSMTP parses an smtp:// URL (port 587 when none is given).
func NewSMTP(raw string) (*SMTP, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "smtp" || u.Hostname() == "" {
		return nil, fmt.Errorf("smtp URL %q: want smtp://user:pass@host:port", raw)
	}
	port := u.Port()
	if port == "" {
		port = "587"
	}
	s := &SMTP{addr: net.JoinHostPort(u.Hostname(), port), host: u.Hostname(), timeout: 30 * time.Second, tlsConfig: &tls.Config{ServerName: u.Hostname(), MinVersion: tls.VersionTLS12}}
	if u.User != nil {
		s.user = u.User.Username()
		s.pass, _ = u.User.Password()
	}
	return s, nil
}

// Send implements ports.Mailer: one SMTP conversation. A failure is a
// *ports.DeliveryError: its reason goes to the job record, its cause (which
// names the relay) to the logs.
func (s *SMTP) Send(ctx context.Context, m ports.Mail) error {
	msg, err := Format(m, time.Now())
	if err != nil {
		return &ports.DeliveryError{Err: err}
	}
	if err := s.send(ctx, m, msg); err != nil {
		return smtpFailure(err)
	}
	return nil
}

func (s *SMTP) send(ctx context.Context, m ports.Mail, msg []byte) error {
	from, _ := mail.ParseAddress(m.From)
	to, _ := mail.ParseAddress(m.To)
	d := net.Dialer{Timeout: s.timeout}
	conn, err := d.DialContext(ctx, "tcp", s.addr)
	if err != nil {
		return err
	}
	deadline := time.Now().Add(s.timeout)
	if dl, ok := ctx.Deadline(); ok && dl.Before(deadline) {
		deadline = dl
	}
	_ = conn.SetDeadline(deadline)
	c, err := smtp.NewClient(conn, s.host)
	if err != nil {
		conn.Close()
		return err
	}
	defer c.Close()
	if err := c.Hello("trawl.localhost"); err != nil {
		return err
	}
	if ok, _ := c.Extension("STARTTLS"); ok {
		if err := c.StartTLS(s.tlsConfig); err != nil {
			return &tlsError{err}
		}
	}
	if s.user != "" {
		if ok, _ := c.Extension("AUTH"); !ok {
			return &authError{errors.New("the SMTP server offers no AUTH")}
		}
		if err := c.Auth(smtp.PlainAuth("", s.user, s.pass, s.host)); err != nil {
			return &authError{err}
		}
	}
	if err := c.Mail(from.Address); err != nil {
		return err
	}
	if err := c.Rcpt(to.Address); err != nil {
		return err
	}
	w, err := c.Data()
	if err != nil {
		return err
	}
	if _, err := w.Write(msg); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	return c.Quit()
}

type tlsError struct{ err error }

func (e *tlsError) Error() string { return "starttls: " + e.err.Error() }
func (e *tlsError) Unwrap() error { return e.err }

type authError struct{ err error }

func (e *authError) Error() string { return "auth: " + e.err.Error() }
func (e *authError) Unwrap() error { return e.err }

// smtpFailure classifies a failed conversation.
func smtpFailure(err error) *ports.DeliveryError {
	var dns *net.DNSError
	var reply *textproto.Error
	var tlsErr *tlsError
	var auth *authError
	out := &ports.DeliveryError{Err: err}
	switch {
	case errors.As(err, &tlsErr):
		out.Reason = ports.DeliveryTLS
	case errors.As(err, &auth):
		out.Reason = ports.DeliveryAuth
	case errors.As(err, &reply):
		out.Reason, out.Code = ports.DeliveryAnswered, reply.Code
	case errors.As(err, &dns):
		out.Reason = ports.DeliveryDNS
	case errors.Is(err, context.DeadlineExceeded) || os.IsTimeout(err):
		out.Reason = ports.DeliveryTimedOut
	case errors.Is(err, syscall.ECONNREFUSED):
		out.Reason = ports.DeliveryRefused
	}
	return out
}

// Outbox writes each message as a .eml file into a directory.
type Outbox struct{ dir string }

var _ ports.Mailer = (*Outbox)(nil)

// NewOutbox builds an outbox in dir (created if needed).
func NewOutbox(dir string) (*Outbox, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	return &Outbox{dir: dir}, nil
}

// Send implements ports.Mailer: like SMTP's, a failure is a
// *ports.DeliveryError, and a send whose context has ended writes nothing.
func (o *Outbox) Send(ctx context.Context, m ports.Mail) error {
	if err := ctx.Err(); err != nil {
		return smtpFailure(err) // classified as an SMTP send would be
	}
	now := time.Now().UTC()
	msg, err := Format(m, now)
	if err != nil {
		return &ports.DeliveryError{Err: err}
	}
	var rnd [4]byte
	_, _ = rand.Read(rnd[:])
	name := now.Format("20060102T150405.000Z") + "-" + hex.EncodeToString(rnd[:]) + ".eml"
	tmp := filepath.Join(o.dir, "."+name)
	if err := os.WriteFile(tmp, msg, 0o600); err != nil {
		return &ports.DeliveryError{Err: err}
	}
	if err := os.Rename(tmp, filepath.Join(o.dir, name)); err != nil {
		return &ports.DeliveryError{Err: err}
	}
	return nil
}
