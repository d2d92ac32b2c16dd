package monitor

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/trawlhq/trawl/core/crawl"
	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/ports"
)

func TestParseSchedule(t *testing.T) {
	for _, c := range []struct {
		expr string
		ok   bool
	}{
		{"*/5 * * * *", true},
		{"0 * * * *", true},
		{"@hourly", true},
		{"@daily", true},
		{"30 9 * * 1-5", true},
		{"0,5,10 * * * *", true},
		{"55 23 * * *", true},
		{"0,30 9 1 * *", true},
		{"CRON_TZ=Europe/Paris 0 9 * * *", true},
		{"0,3 0 1 1 *", false},  // 3 minutes apart, once a year
		{"* * * * *", false},    // every minute
		{"*/4 * * * *", false},  // every 4 minutes
		{"0,58 * * * *", false}, // 58 then 2 minutes
		{"58 23,0 * * *", true}, // 23:58 then 00:58
		{"0,58 0,23 * * *", false},
		{"0,58 0,23 14,15 * *", false}, // 23:58 on the 14th, 00:00 on the 15th
		{"0,58 0,23 1 * *", true},      // the same, but one day a month: 23:58 and the next month's 00:00
		{"0 0 30 2 *", false},          // never runs
		{"@every 10m", false},          // not a cron expression
		{"", false},
		{"every day", false},
		{"0 0 * * * *", false}, // six fields
		{"61 * * * *", false},
	} {
		_, err := ParseSchedule(c.expr, FieldSchedule)
		if (err == nil) != c.ok {
			t.Errorf("%q: err %v, want ok %v", c.expr, err, c.ok)
		}
		if err != nil && !reflect.DeepEqual(failure.FieldNames(err), []string{FieldSchedule}) {
			t.Errorf("%q: fields %v, want schedule", c.expr, failure.FieldNames(err))
		}
	}
}

func TestScheduleNext(t *testing.T) {
	s, err := ParseSchedule("*/15 * * * *", FieldSchedule)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 6, 15, 12, 0, 0, 0, time.UTC)
	for _, want := range []string{"12:15", "12:30", "12:45", "13:00"} {
		at = s.Next(at)
		if got := at.Format("15:04"); got != want {
			t.Fatalf("next = %s, want %s", got, want)
		}
	}
	// Between two runs: the next one, never a missed one.
	if got := s.Next(time.Date(2026, 6, 15, 12, 7, 31, 0, time.UTC)).Format("15:04:05"); got != "12:15:00" {
		t.Fatalf("next after 12:07:31 = %s", got)
	}
}

func TestValidate(t *testing.T) {
	yes, no := true, false
	limit0 := 0
	base := func(f func(r *Request)) Request {
		r := Request{URLs: []string{"https://site.test/a"}, Schedule: "*/5 * * * *", CallbackURL: "https://hooks.test/x"}
		if f != nil {
			f(&r)
		}
		return r
	}
	for _, c := range []struct {
		name   string
		r      Request
		fields []string
	}{
		{"ok", base(nil), nil},
		{"email only", base(func(r *Request) { r.CallbackURL, r.Email = "", true }), nil},
		{"crawl", base(func(r *Request) { r.URLs, r.Crawl = nil, &crawl.Request{URL: "https://site.test/"} }), nil},
		{"neither urls nor crawl", base(func(r *Request) { r.URLs = nil }), []string{FieldURLs}},
		{"both", base(func(r *Request) { r.Crawl = &crawl.Request{URL: "https://site.test/"} }), []string{FieldURLs}},
		{"bad url", base(func(r *Request) { r.URLs = []string{"https://site.test/", "nope"} }), []string{"urls.1"}},
		{"too many", base(func(r *Request) { r.URLs = make([]string, MaxURLs+1) }), []string{FieldURLs}},
		{"bad crawl", base(func(r *Request) { r.URLs, r.Crawl = nil, &crawl.Request{URL: "https://site.test/", Limit: &limit0} }), []string{"crawl.limit"}},
		{"too often", base(func(r *Request) { r.Schedule = "*/2 * * * *" }), []string{FieldSchedule}},
		{"no schedule", base(func(r *Request) { r.Schedule = " " }), []string{FieldSchedule}},
		{"nowhere to report", base(func(r *Request) { r.CallbackURL = "" }), []string{FieldCallbackURL}},
		{"bad callback", base(func(r *Request) { r.CallbackURL = "ftp://hooks.test/" }), []string{FieldCallbackURL}},
		{"long name", base(func(r *Request) { r.Name = strings.Repeat("x", MaxNameLen+1) }), []string{FieldName}},
		{"all at once", Request{Schedule: "* * * * *"}, []string{FieldCallbackURL, FieldSchedule, FieldURLs}},
	} {
		c.r.ChangesOnly = nil
		got, err := Validate(c.r)
		if fields := failure.FieldNames(err); !reflect.DeepEqual(fields, c.fields) {
			t.Errorf("%s: fields %v (%v), want %v", c.name, fields, err, c.fields)
			continue
		}
		if err == nil && !got.ChangesOnly {
			t.Errorf("%s: changes_only defaults to true", c.name)
		}
	}
	c, err := Validate(base(func(r *Request) { r.ChangesOnly = &no; r.URLs = []string{"https://site.test/a", "https://SITE.test/a"} }))
	if err != nil || c.ChangesOnly || len(c.URLs) != 1 {
		t.Fatalf("changes_only false, a repeated URL: %+v %v", c, err)
	}
	if c, _ := Validate(base(func(r *Request) { r.ChangesOnly = &yes })); !c.ChangesOnly {
		t.Fatal("changes_only true")
	}
}

func TestApply(t *testing.T) {
	str := func(s string) *string { return &s }
	yes := true
	active := ports.Monitor{Schedule: "*/5 * * * *", CallbackURL: "https://hooks.test/x", Status: ports.MonitorActive}
	paused := active
	paused.Status, paused.PausedReason = ports.MonitorPaused, ReasonInsufficientCredits
	for _, c := range []struct {
		name       string
		m          ports.Monitor
		p          Patch
		fields     []string
		reschedule bool
		status     ports.MonitorStatus
		reason     string
	}{
		{"pause", active, Patch{Status: str("paused")}, nil, false, ports.MonitorPaused, ReasonPausedByOwner},
		{"pause a paused one keeps its reason", paused, Patch{Status: str("paused")}, nil, false, ports.MonitorPaused, ReasonInsufficientCredits},
		{"resume", paused, Patch{Status: str("active")}, nil, true, ports.MonitorActive, ""},
		{"resume an active one", active, Patch{Status: str("active")}, nil, false, ports.MonitorActive, ""},
		{"new schedule", active, Patch{Schedule: str("0 * * * *")}, nil, true, ports.MonitorActive, ""},
		{"same schedule", active, Patch{Schedule: str("*/5 * * * *")}, nil, false, ports.MonitorActive, ""},
		{"too often", active, Patch{Schedule: str("* * * * *")}, []string{FieldSchedule}, false, ports.MonitorActive, ""},
		{"bad status", active, Patch{Status: str("off")}, []string{FieldStatus}, false, ports.MonitorActive, ""},
		{"drop the only delivery", active, Patch{CallbackURL: str("")}, []string{FieldCallbackURL}, false, ports.MonitorActive, ""},
		{"swap delivery for email", active, Patch{CallbackURL: str(""), Email: &yes}, nil, false, ports.MonitorActive, ""},
	} {
		m := c.m
		re, err := Apply(&m, c.p)
		if fields := failure.FieldNames(err); !reflect.DeepEqual(fields, c.fields) {
			t.Errorf("%s: fields %v, want %v", c.name, fields, c.fields)
			continue
		}
		if err != nil {
			continue
		}
		if re != c.reschedule || m.Status != c.status || m.PausedReason != c.reason {
			t.Errorf("%s: reschedule %v status %s reason %q", c.name, re, m.Status, m.PausedReason)
		}
	}
}

func TestReportListsWhatChanged(t *testing.T) {
	prev := "2026-06-15T12:00:00Z"
	diff := "@@ -1 +1 @@\n-a\n+b\n"
	pages := []PageResult{
		resultOf("https://site.test/new", true, "", "", []byte(`{"change":{"status":"new","previous_at":null}}`)),
		resultOf("https://site.test/same", true, "", "", []byte(`{"change":{"status":"same","previous_at":"`+prev+`"}}`)),
		resultOf("https://site.test/changed", true, "", "", []byte(`{"change":{"status":"changed","previous_at":"`+prev+`","diff":"@@ -1 +1 @@\n-a\n+b\n"}}`)),
		resultOf("https://site.test/gone", false, "Not found.", "page_not_found", []byte(`{"change":{"status":"removed","previous_at":"`+prev+`"}}`)),
		resultOf("https://site.test/down", false, "The site did not answer.", "timeout", nil),
	}
	want := []string{"new", "same", "changed", "removed", "failed"}
	for i, p := range pages {
		if p.Status != want[i] {
			t.Fatalf("page %d: %+v, want %s", i, p, want[i])
		}
	}
	if pages[2].Diff != diff || pages[4].Reason != failure.ReasonTimeout {
		t.Fatalf("changed %+v, failed %+v", pages[2], pages[4])
	}
	started := time.Date(2026, 6, 15, 12, 5, 1, 0, time.UTC)
	check := ports.MonitorCheck{ID: "chk_1", ScheduledAt: time.Date(2026, 6, 15, 12, 5, 0, 0, time.UTC), StartedAt: &started, Status: ports.CheckCompleted}
	m := ports.Monitor{ID: "mon_1", ChangesOnly: true, Status: ports.MonitorActive}
	r := reportOf(m, check, pages, started.Add(time.Second))
	if r.Counts != (Summary{New: 1, Changed: 1, Same: 1, Removed: 1, Failed: 1, Read: 3}) || r.Check.PagesChecked != 3 || r.Check.Changed != 3 || r.Check.Credits != 6 {
		t.Fatalf("report counts: %+v %+v", r.Counts, r.Check)
	}
	var listed []string
	for _, p := range r.Changes {
		listed = append(listed, p.Status)
	}
	if !reflect.DeepEqual(listed, []string{"new", "changed", "removed"}) {
		t.Fatalf("changes_only lists %v", listed)
	}
	m.ChangesOnly = false
	if r := reportOf(m, check, pages, started); len(r.Changes) != 5 {
		t.Fatalf("every page: %d listed", len(r.Changes))
	}
	mail := reportMail("Trawl <t@x>", "a@example.com", r)
	if !strings.Contains(mail.Text, "- changed: https://site.test/changed") || !strings.Contains(mail.Subject, "3 page(s) changed") {
		t.Fatalf("mail: %s\n%s", mail.Subject, mail.Text)
	}
}

// A crawl monitor's body says `store` as POST /v1/crawl does, and a crawl
// kept out of the cache stays out of it through storage.
func TestCrawlBodyStore(t *testing.T) {
	for _, noStore := range []bool{false, true} {
		b := CrawlBodyOf(crawl.Request{URL: "https://a.example/", NoStore: noStore})
		raw, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := strings.Contains(string(raw), `"store":false`), noStore; got != want {
			t.Errorf("no_store %v: %s", noStore, raw)
		}
		if strings.Contains(string(raw), "no_store") {
			t.Errorf("body names no_store: %s", raw)
		}
		var back CrawlBody
		if err := json.Unmarshal(raw, &back); err != nil {
			t.Fatal(err)
		}
		if got := back.request("t").NoStore; got != noStore {
			t.Errorf("no_store %v: the check's crawl has NoStore %v", noStore, got)
		}
	}
}

// A crawl monitor that keeps every query parameter (an empty
// ignore_query_params) keeps them through storage; one that said nothing
// gets the crawl's defaults.
func TestCrawlBodyIgnoreQueryParams(t *testing.T) {
	for _, ignore := range [][]string{nil, {}, {"sid"}} {
		raw, err := json.Marshal(CrawlBodyOf(crawl.Request{URL: "https://a.example/", IgnoreQueryParams: ignore}))
		if err != nil {
			t.Fatal(err)
		}
		var back CrawlBody
		if err := json.Unmarshal(raw, &back); err != nil {
			t.Fatal(err)
		}
		got := back.request("t").IgnoreQueryParams
		if (got == nil) != (ignore == nil) || !reflect.DeepEqual(append([]string{}, got...), append([]string{}, ignore...)) {
			t.Errorf("%#v stored as %s came back as %#v", ignore, raw, got)
		}
	}
}
