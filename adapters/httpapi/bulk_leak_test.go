package httpapi_test

import (
	"encoding/json"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trawlhq/trawl/adapters/smtpmail"
	"github.com/trawlhq/trawl/testkit/apitest"
	"github.com/trawlhq/trawl/testkit/logtest"
)

// closedAddr is a loopback address nothing listens on: connections to it
// are refused.
func closedAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// internals are what a Go error says about the machine: resolved
// addresses, dial and syscall wording, the mail relay.
func internals(relay string) []string {
	return []string{"127.0.0.1", "[::1]", "dial tcp", "connect:", "Post \"", "lookup ", "read tcp", "write tcp", "i/o timeout", relay}
}

func assertNoInternals(t *testing.T, where, text, relay string) {
	t.Helper()
	for _, bad := range internals(relay) {
		if strings.Contains(text, bad) {
			t.Errorf("%s shows %q:\n%s", where, bad, text)
		}
	}
}

// Every error a bulk job stores or sends says what happened in a sentence
// and nothing of what the server is made of: deliveries[].error, per-URL
// errors, the failure webhook's error and the mail. The causes are logged.
func TestBulkErrorsNeverLeak(t *testing.T) {
	dead := closedAddr(t) // a page host and a webhook receiver that refuse connections
	relay := closedAddr(t)
	smtp, err := smtpmail.NewSMTP("smtp://" + relay)
	if err != nil {
		t.Fatal(err)
	}
	var logs logtest.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))

	// The mail relay refuses: the job fails, the failure webhook carries the reason.
	rcv := newReceiver(t, 0)
	_, deadPort, _ := net.SplitHostPort(dead)
	deadHosts := map[string]string{"gone.test:80": dead, "hooks-gone.test:" + deadPort: dead}
	e, tok, _ := bulkEnv(t, rcv, apitest.Options{Mailer: smtp, Logger: log, Resolve: deadHosts})
	urls := []string{"http://news.test/tide-pools", "http://news.test/missing", "http://gone.test/page"}
	r := e.Do("POST", "/v1/content/bulk", tok, map[string]any{"urls": urls, "email": true, "callback_url": rcv.URL()})
	if r.Status != 202 {
		t.Fatalf("submit = %d %s", r.Status, r.Body)
	}
	job := waitJob(t, e, tok, r.JSON(t)["job_id"].(string))
	raw, _ := json.Marshal(job)
	self := e.Server.Listener.Addr().String() // the download link's base: Trawl's own public address
	assertNoInternals(t, "the failed job", strings.ReplaceAll(string(raw), self, "<trawl>"), relay)
	if job["status"] != "failed" || job["error"] != "The results email could not be sent: the mail server refused the connection." {
		t.Fatalf("job = %s", raw)
	}
	ds := job["deliveries"].([]any)
	if len(ds) == 0 || ds[0].(map[string]any)["error"] != "The results email could not be sent: the mail server refused the connection." {
		t.Fatalf("deliveries = %v", ds)
	}
	for _, u := range job["results"].([]any) {
		if m := u.(map[string]any); m["url"] == "http://gone.test/page" && m["error"] != "The page could not be fetched: gone.test refused the connection." {
			t.Fatalf("refused page = %v", m)
		}
	}
	got := rcv.deliveries()
	if len(got) != 1 || got[0].header.Get("X-Trawl-Webhook") != "content-bulk-failure" {
		t.Fatalf("failure webhook = %v", got)
	}
	assertNoInternals(t, "the failure webhook", string(got[0].body), relay)
	if !strings.Contains(string(got[0].body), `"error":"The results email could not be sent: the mail server refused the connection."`) {
		t.Fatalf("failure payload = %s", got[0].body)
	}

	// The receiver refuses: every attempt is recorded with a sentence.
	e2, tok2, _ := bulkEnv(t, nil, apitest.Options{Logger: log, Resolve: deadHosts})
	r = e2.Do("POST", "/v1/content/bulk", tok2, map[string]any{"urls": urls, "email": true, "callback_url": "http://hooks-gone.test:" + deadPort + "/trawl"})
	if r.Status != 202 {
		t.Fatalf("submit = %d %s", r.Status, r.Body)
	}
	job = waitJob(t, e2, tok2, r.JSON(t)["job_id"].(string))
	raw, _ = json.Marshal(job)
	assertNoInternals(t, "the job with a dead receiver", strings.ReplaceAll(string(raw), e2.Server.Listener.Addr().String(), "<trawl>"), relay)
	hooks := 0
	for _, d := range job["deliveries"].([]any) {
		if m := d.(map[string]any); m["channel"] == "webhook" {
			hooks++
			if m["error"] != "The webhook could not be delivered: the receiver refused the connection." {
				t.Fatalf("webhook delivery = %v", m)
			}
		}
	}
	if hooks != 4 {
		t.Fatalf("%d webhook attempts recorded, want 4:\n%s", hooks, raw)
	}
	// The mail the job sent: counts and a link, nothing else.
	files, _ := filepath.Glob(filepath.Join(e2.Outbox, "*.eml"))
	if len(files) != 1 {
		t.Fatalf("%d emails", len(files))
	}
	eml, _ := os.ReadFile(files[0])
	assertNoInternals(t, "the results mail", strings.ReplaceAll(string(eml), e2.Server.Listener.Addr().String(), "<trawl>"), relay)

	// The causes are in the log, for the operator.
	for _, cause := range []string{"connection refused", relay} {
		if !strings.Contains(logs.String(), cause) {
			t.Errorf("the log lacks %q:\n%s", cause, logs.String())
		}
	}
}
