package smtpmail_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/trawlhq/trawl/adapters/smtpmail"
	"github.com/trawlhq/trawl/testkit/mailtest"
	"github.com/trawlhq/trawl/testkit/smtptest"
)

func TestSMTPContract(t *testing.T) {
	mailtest.Run(t, func(t *testing.T) mailtest.Subject {
		srv := smtptest.Start(t)
		m, err := smtpmail.NewSMTP(srv.URL())
		if err != nil {
			t.Fatal(err)
		}
		return mailtest.Subject{Mailer: m, Envelope: true, Delivered: func(*testing.T) []mailtest.Delivery {
			var out []mailtest.Delivery
			for _, msg := range srv.Messages() {
				out = append(out, mailtest.Delivery{MailFrom: msg.From, RcptTo: msg.To, Data: msg.Data})
			}
			return out
		}}
	})
}

func TestOutboxContract(t *testing.T) {
	mailtest.Run(t, func(t *testing.T) mailtest.Subject {
		dir := filepath.Join(t.TempDir(), "outbox")
		o, err := smtpmail.NewOutbox(dir)
		if err != nil {
			t.Fatal(err)
		}
		return mailtest.Subject{Mailer: o, Delivered: func(t *testing.T) []mailtest.Delivery {
			files, err := filepath.Glob(filepath.Join(dir, "*.eml"))
			if err != nil {
				t.Fatal(err)
			}
			var out []mailtest.Delivery
			for _, f := range files {
				b, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				out = append(out, mailtest.Delivery{Data: b})
			}
			return out
		}}
	})
}
