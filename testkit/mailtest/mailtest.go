// Package mailtest is the contract suite of ports.Mailer. Every mailer (SMTP,
// the file outbox) runs it, so what a recipient's mail program reads is the
// same whichever is configured: addresses and display names, encoded
// subjects, the text and HTML alternatives, long lines, and what a refused
// message returns.
//
// Messages are read back as a mail program would: parsed with net/mail and
// mime/multipart, encoded words and quoted-printable decoded.
package mailtest

import (
	"bytes"
	"context"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/mail"
	"strings"
	"testing"
	"time"

	"github.com/trawlhq/trawl/ports"
)

// Delivery is one message as it left the mailer.
type Delivery struct {
	// MailFrom and RcptTo are the SMTP envelope; empty where the mailer has
	// none (a file outbox).
	MailFrom string
	RcptTo   []string
	// Data is the message: headers and body.
	Data []byte
}

// Subject is a mailer and a way to read what it delivered.
type Subject struct {
	Mailer ports.Mailer
	// Delivered returns every message delivered so far, in any order.
	Delivered func(t *testing.T) []Delivery
	// Envelope is true when deliveries carry an SMTP envelope.
	Envelope bool
}

// Opener returns a new mailer that has delivered nothing yet.
type Opener func(t *testing.T) Subject

// Run runs every contract test.
func Run(t *testing.T, open Opener) {
	t.Run("AddressesAndHeaders", func(t *testing.T) { testHeaders(t, open) })
	t.Run("NonASCIISubjectAndNames", func(t *testing.T) { testNonASCII(t, open(t)) })
	t.Run("LongSubjectIsFolded", func(t *testing.T) { testLongSubject(t, open) })
	t.Run("TextAndHTMLAlternatives", func(t *testing.T) { testAlternatives(t, open(t)) })
	t.Run("TextOnly", func(t *testing.T) { testTextOnly(t, open(t)) })
	t.Run("BodyLinesSurvive", func(t *testing.T) { testBodyLines(t, open(t)) })
	t.Run("EachMessageItsOwnID", func(t *testing.T) { testMessageIDs(t, open(t)) })
	t.Run("RefusedMessages", func(t *testing.T) { testRefused(t, open(t)) })
	t.Run("CancelledContext", func(t *testing.T) { testCancelled(t, open(t)) })
}

// Message is a delivered message read back.
type Message struct {
	Header mail.Header
	// Parts are the decoded alternatives by media type (text/plain,
	// text/html), line endings as LF.
	Parts map[string]string
	// Order lists the parts' media types as they appear.
	Order []string
	Raw   []byte
}

// Read parses a message as a mail program would.
func Read(t *testing.T, raw []byte) Message {
	t.Helper()
	m, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("not a readable message (%v):\n%s", err, raw)
	}
	out := Message{Header: m.Header, Parts: map[string]string{}, Raw: raw}
	if v := m.Header.Get("MIME-Version"); v != "1.0" {
		t.Errorf("MIME-Version = %q, want 1.0", v)
	}
	mt, params, err := mime.ParseMediaType(m.Header.Get("Content-Type"))
	if err != nil {
		t.Fatalf("Content-Type %q: %v", m.Header.Get("Content-Type"), err)
	}
	if !strings.HasPrefix(mt, "multipart/") {
		out.Order = []string{mt}
		out.Parts[mt] = decodePart(t, mt, m.Header.Get("Content-Transfer-Encoding"), m.Header.Get("Content-Type"), m.Body)
		return out
	}
	if mt != "multipart/alternative" {
		t.Errorf("Content-Type = %q, want multipart/alternative", mt)
	}
	r := multipart.NewReader(m.Body, params["boundary"])
	for {
		p, err := r.NextRawPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("reading the parts: %v", err)
		}
		pt, _, err := mime.ParseMediaType(p.Header.Get("Content-Type"))
		if err != nil {
			t.Fatalf("part Content-Type %q: %v", p.Header.Get("Content-Type"), err)
		}
		out.Order = append(out.Order, pt)
		out.Parts[pt] = decodePart(t, pt, p.Header.Get("Content-Transfer-Encoding"), p.Header.Get("Content-Type"), p)
	}
	return out
}

func decodePart(t *testing.T, mediaType, encoding, contentType string, body io.Reader) string {
	t.Helper()
	if _, params, _ := mime.ParseMediaType(contentType); !strings.EqualFold(params["charset"], "utf-8") {
		t.Errorf("%s part: charset %q, want utf-8", mediaType, params["charset"])
	}
	switch strings.ToLower(encoding) {
	case "quoted-printable":
		body = quotedprintable.NewReader(body)
	case "", "7bit", "8bit":
	default:
		t.Fatalf("%s part: unexpected Content-Transfer-Encoding %q", mediaType, encoding)
	}
	b, err := io.ReadAll(body)
	if err != nil {
		t.Fatalf("%s part: %v", mediaType, err)
	}
	return strings.ReplaceAll(string(b), "\r\n", "\n")
}

var decoder = &mime.WordDecoder{}

func subjectOf(t *testing.T, m Message) string {
	t.Helper()
	s, err := decoder.DecodeHeader(m.Header.Get("Subject"))
	if err != nil {
		t.Fatalf("Subject %q: %v", m.Header.Get("Subject"), err)
	}
	return s
}

func address(t *testing.T, m Message, field string) *mail.Address {
	t.Helper()
	list, err := m.Header.AddressList(field)
	if err != nil || len(list) != 1 {
		t.Fatalf("%s %q: %v (%d addresses), want one address", field, m.Header.Get(field), err, len(list))
	}
	return list[0]
}

func send(t *testing.T, s Subject, m ports.Mail) {
	t.Helper()
	if err := s.Mailer.Send(context.Background(), m); err != nil {
		t.Fatalf("Send(%+v): %v", m, err)
	}
}

// one sends m and reads back the single message delivered.
func one(t *testing.T, s Subject, m ports.Mail) (Message, Delivery) {
	t.Helper()
	send(t, s, m)
	got := s.Delivered(t)
	if len(got) != 1 {
		t.Fatalf("%d messages delivered, want 1", len(got))
	}
	return Read(t, got[0].Data), got[0]
}

// checkLines holds every line of a message to RFC 5322's limit of 998
// octets, and to 78 in the headers and the encoded bodies the mailer wrote.
func checkLines(t *testing.T, raw []byte) {
	t.Helper()
	head, _, _ := bytes.Cut(raw, []byte("\r\n\r\n"))
	for i, line := range bytes.Split(raw, []byte("\r\n")) {
		if len(line) > 998 {
			t.Errorf("line %d is %d octets long (RFC 5322 allows 998): %.80s…", i+1, len(line), line)
		}
	}
	for _, line := range bytes.Split(head, []byte("\r\n")) {
		if len(line) > 78 {
			t.Errorf("header line of %d characters (fold at 78): %.80s…", len(line), line)
		}
	}
	if bytes.Contains(bytes.ReplaceAll(raw, []byte("\r\n"), nil), []byte("\n")) {
		t.Error("a bare LF in the message: lines end in CRLF")
	}
}

var base = ports.Mail{
	From:    "Trawl <no-reply@trawl.test>",
	To:      "Dev Person <dev@example.com>",
	Subject: "Your Trawl bulk extraction is ready: 3 of 4 URLs extracted",
	Text:    "Hello,\n\nDownload: https://files.trawl.test/bulk/job_1/results.zip?expires=1&signature=ab\n\n-- Trawl\n",
	HTML:    `<p>Hello,</p><p><a href="https://files.trawl.test/bulk/job_1/results.zip?expires=1&amp;signature=ab">Download</a></p>`,
}

func testHeaders(t *testing.T, open Opener) {
	for _, c := range []struct{ from, to, fromName, fromAddr, toName, toAddr string }{
		{base.From, base.To, "Trawl", "no-reply@trawl.test", "Dev Person", "dev@example.com"},
		{"no-reply@trawl.test", "dev@example.com", "", "no-reply@trawl.test", "", "dev@example.com"},
		{`"Trawl, the API" <no-reply@trawl.test>`, `"O'Brien \"Dev\"" <ob@example.com>`, "Trawl, the API", "no-reply@trawl.test", `O'Brien "Dev"`, "ob@example.com"},
	} {
		t.Run(c.to, func(t *testing.T) {
			s := open(t)
			m := base
			m.From, m.To = c.from, c.to
			msg, d := one(t, s, m)
			from, to := address(t, msg, "From"), address(t, msg, "To")
			if from.Name != c.fromName || from.Address != c.fromAddr {
				t.Errorf("From = %q <%s>, want %q <%s>", from.Name, from.Address, c.fromName, c.fromAddr)
			}
			if to.Name != c.toName || to.Address != c.toAddr {
				t.Errorf("To = %q <%s>, want %q <%s>", to.Name, to.Address, c.toName, c.toAddr)
			}
			if cc := msg.Header.Get("Cc") + msg.Header.Get("Bcc"); cc != "" {
				t.Errorf("Cc/Bcc = %q, want none", cc)
			}
			if _, err := msg.Header.Date(); err != nil {
				t.Errorf("Date %q: %v", msg.Header.Get("Date"), err)
			}
			if id := msg.Header.Get("Message-Id"); !strings.HasPrefix(id, "<") || !strings.HasSuffix(id, ">") || !strings.Contains(id, "@") {
				t.Errorf("Message-ID = %q, want <id@domain>", id)
			}
			if got := subjectOf(t, msg); got != m.Subject {
				t.Errorf("Subject = %q, want %q", got, m.Subject)
			}
			if s.Envelope && (d.MailFrom != c.fromAddr || len(d.RcptTo) != 1 || d.RcptTo[0] != c.toAddr) {
				t.Errorf("envelope MAIL FROM %q RCPT TO %v, want %q and [%s]", d.MailFrom, d.RcptTo, c.fromAddr, c.toAddr)
			}
			checkLines(t, d.Data)
		})
	}
}

func testNonASCII(t *testing.T, s Subject) {
	m := base
	m.Subject = "Résultats prêts — 3 of 4 ✓ 日本語"
	m.From = "Tráwl Ünïcode <no-reply@trawl.test>"
	m.To = "Zoë Dev <zoe@example.com>"
	msg, d := one(t, s, m)
	if got := subjectOf(t, msg); got != m.Subject {
		t.Errorf("Subject = %q, want %q", got, m.Subject)
	}
	if from := address(t, msg, "From"); from.Name != "Tráwl Ünïcode" {
		t.Errorf("From name = %q", from.Name)
	}
	if to := address(t, msg, "To"); to.Name != "Zoë Dev" || to.Address != "zoe@example.com" {
		t.Errorf("To = %q <%s>", to.Name, to.Address)
	}
	head, _, _ := bytes.Cut(d.Data, []byte("\r\n\r\n"))
	for _, b := range head {
		if b >= 0x80 {
			t.Fatalf("raw 8-bit bytes in the headers: non-ASCII text must be encoded:\n%s", head)
		}
	}
}

// A subject longer than a line is folded into several encoded words, not
// written as one line a relay may refuse or cut.
func testLongSubject(t *testing.T, open Opener) {
	for _, subject := range []string{
		strings.Repeat("Résultats de l'extraction — été ", 12),
		strings.Repeat("Results  ready, with two spaces here and there; ", 6) + strings.Repeat("x", 60),
	} {
		m := base
		m.Subject = subject
		msg, d := one(t, open(t), m)
		if got := subjectOf(t, msg); got != m.Subject {
			t.Errorf("Subject = %q, want %q", got, m.Subject)
		}
		checkLines(t, d.Data)
	}
}

func testAlternatives(t *testing.T, s Subject) {
	m := base
	m.Text = "Bonjour Zoë,\n\nVos résultats: https://files.trawl.test/a.zip\n"
	m.HTML = "<p>Bonjour Zoë,</p><p><a href=\"https://files.trawl.test/a.zip\">Vos résultats</a> — 3/4 ✓</p>"
	msg, d := one(t, s, m)
	if len(msg.Order) != 2 || msg.Order[0] != "text/plain" || msg.Order[1] != "text/html" {
		t.Fatalf("parts %v, want text/plain then text/html (the last is the preferred alternative)", msg.Order)
	}
	if got := msg.Parts["text/plain"]; strings.TrimRight(got, "\n") != strings.TrimRight(m.Text, "\n") {
		t.Errorf("text part = %q, want %q", got, m.Text)
	}
	if got := msg.Parts["text/html"]; strings.TrimRight(got, "\n") != m.HTML {
		t.Errorf("html part = %q, want %q", got, m.HTML)
	}
	checkLines(t, d.Data)
}

func testTextOnly(t *testing.T, s Subject) {
	m := base
	m.HTML = ""
	msg, _ := one(t, s, m)
	if _, ok := msg.Parts["text/html"]; ok || strings.TrimRight(msg.Parts["text/plain"], "\n") != strings.TrimRight(m.Text, "\n") {
		t.Fatalf("parts %v = %q, want the text alone", msg.Order, msg.Parts)
	}
}

// Lines that mean something to SMTP (a lone dot ends DATA), lines longer
// than a mail line may be, trailing spaces and CRLF input come through as
// written.
func testBodyLines(t *testing.T, s Subject) {
	long := "https://files.trawl.test/bulk/job_1/results.zip?signature=" + strings.Repeat("0123456789abcdef", 80)
	m := base
	m.Text = "first\n.\n.. two dots\n.leading dot\nFrom the start of a line\ntrailing space \n" + long + "\nwindows line\r\nend"
	m.HTML = "<p>" + long + "</p>\n.\n<p>end</p>"
	msg, d := one(t, s, m)
	want := strings.ReplaceAll(m.Text, "\r\n", "\n")
	if got := strings.TrimRight(msg.Parts["text/plain"], "\n"); got != want {
		t.Errorf("text part =\n%q\nwant\n%q", got, want)
	}
	if got := strings.TrimRight(msg.Parts["text/html"], "\n"); got != m.HTML {
		t.Errorf("html part =\n%q\nwant\n%q", got, m.HTML)
	}
	checkLines(t, d.Data)
}

func testMessageIDs(t *testing.T, s Subject) {
	for range 3 {
		send(t, s, base)
	}
	seen := map[string]bool{}
	for _, d := range s.Delivered(t) {
		id := Read(t, d.Data).Header.Get("Message-Id")
		if id == "" || seen[id] {
			t.Fatalf("Message-ID %q is empty or repeated", id)
		}
		seen[id] = true
	}
	if len(seen) != 3 {
		t.Fatalf("%d messages delivered, want 3", len(seen))
	}
}

// A message that cannot be a valid mail is refused with a *DeliveryError
// before anything is delivered; a header cannot be smuggled in.
func testRefused(t *testing.T, s Subject) {
	for name, m := range map[string]ports.Mail{
		"bad From":          {From: "not an address", To: base.To, Subject: "x", Text: "x"},
		"empty To":          {From: base.From, To: "", Subject: "x", Text: "x"},
		"two recipients":    {From: base.From, To: "a@example.com, b@example.com", Subject: "x", Text: "x"},
		"header in To":      {From: base.From, To: "dev@example.com\r\nBcc: victim@example.com", Subject: "x", Text: "x"},
		"header in From":    {From: "no-reply@trawl.test\nBcc: victim@example.com", To: base.To, Subject: "x", Text: "x"},
		"address with CRLF": {From: base.From, To: "Dev <dev@example.com\r\n>", Subject: "x", Text: "x"},
	} {
		err := s.Mailer.Send(context.Background(), m)
		var de *ports.DeliveryError
		if !errors.As(err, &de) {
			t.Errorf("%s: Send = %v (%T), want a *ports.DeliveryError", name, err, err)
		}
	}
	if n := len(s.Delivered(t)); n != 0 {
		t.Fatalf("%d refused messages were delivered", n)
	}
	// A subject cannot add a header either: it is encoded.
	m := base
	m.Subject = "Ready\r\nBcc: victim@example.com"
	msg, _ := one(t, s, m)
	if msg.Header.Get("Bcc") != "" || !strings.HasPrefix(subjectOf(t, msg), "Ready") {
		t.Fatalf("a subject with CRLF made headers %v", msg.Header)
	}
}

// A send whose context has ended delivers nothing and says why: a passed
// deadline is a timeout.
func testCancelled(t *testing.T, s Subject) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	expired, cancel2 := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel2()
	for _, c := range []struct {
		ctx    context.Context
		cause  error
		reason ports.DeliveryReason
	}{
		{cancelled, context.Canceled, ports.DeliveryFailed},
		{expired, context.DeadlineExceeded, ports.DeliveryTimedOut},
	} {
		err := s.Mailer.Send(c.ctx, base)
		var de *ports.DeliveryError
		if !errors.As(err, &de) || !errors.Is(err, c.cause) || de.Reason != c.reason {
			t.Errorf("Send with an ended context = %v (%+v), want a *ports.DeliveryError of reason %d wrapping %v", err, de, c.reason, c.cause)
		}
	}
	if n := len(s.Delivered(t)); n != 0 {
		t.Fatalf("%d messages delivered after the context ended", n)
	}
}
