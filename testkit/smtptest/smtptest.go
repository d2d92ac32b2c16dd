// Package smtptest runs a real SMTP server (go-smtp) in the test process and
// keeps the messages it receives.
package smtptest

import (
	"io"
	"net"
	"sync"
	"testing"

	"github.com/emersion/go-smtp"
)

// Message is one received message.
type Message struct {
	From string
	To   []string
	Data []byte
}

// Server is the SMTP server.
type Server struct {
	Addr string
	mu   sync.Mutex
	msgs []Message
}

// Start listens on 127.0.0.1 and serves until the test ends.
func Start(t testing.TB) *Server {
	s := &Server{}
	srv := smtp.NewServer(backend{s})
	srv.Domain = "localhost"
	srv.AllowInsecureAuth = true
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.Addr = ln.Addr().String()
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return s
}

// URL is the TRAWL_SMTP_URL of the server.
func (s *Server) URL() string { return "smtp://" + s.Addr }

// Messages returns what was received.
func (s *Server) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.msgs...)
}

type backend struct{ s *Server }

func (b backend) NewSession(*smtp.Conn) (smtp.Session, error) { return &session{s: b.s}, nil }

type session struct {
	s   *Server
	msg Message
}

func (x *session) Mail(from string, _ *smtp.MailOptions) error { x.msg.From = from; return nil }
func (x *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	x.msg.To = append(x.msg.To, to)
	return nil
}
func (x *session) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	x.msg.Data = b
	x.s.mu.Lock()
	x.s.msgs = append(x.s.msgs, x.msg)
	x.s.mu.Unlock()
	return nil
}
func (x *session) Reset()        { x.msg = Message{} }
func (x *session) Logout() error { return nil }
