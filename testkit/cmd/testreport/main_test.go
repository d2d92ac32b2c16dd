package main

import (
	"strings"
	"testing"
)

// A run of two packages: one passing with a skipped test and a skipped
// subtest, one failing.
const run = `{"Action":"start","Package":"example.com/a"}
{"Action":"run","Package":"example.com/a","Test":"TestOK"}
{"Action":"output","Package":"example.com/a","Test":"TestOK","Output":"=== RUN   TestOK\n"}
{"Action":"output","Package":"example.com/a","Test":"TestOK","Output":"    a_test.go:9: a log line of a passing test\n"}
{"Action":"output","Package":"example.com/a","Test":"TestOK","Output":"--- PASS: TestOK (0.00s)\n"}
{"Action":"pass","Package":"example.com/a","Test":"TestOK"}
{"Action":"run","Package":"example.com/a","Test":"TestStripe"}
{"Action":"output","Package":"example.com/a","Test":"TestStripe","Output":"=== RUN   TestStripe\n"}
{"Action":"output","Package":"example.com/a","Test":"TestStripe","Output":"    stripe_test.go:23: no stripe-mock (TRAWL_TEST_STRIPE_MOCK_URL)\n"}
{"Action":"output","Package":"example.com/a","Test":"TestStripe","Output":"--- SKIP: TestStripe (0.00s)\n"}
{"Action":"skip","Package":"example.com/a","Test":"TestStripe"}
{"Action":"output","Package":"example.com/a","Test":"TestRender/chromium","Output":"    render_test.go:40: no Chromium: exec: \"chromium\": executable file not found in $PATH\n"}
{"Action":"skip","Package":"example.com/a","Test":"TestRender/chromium"}
{"Action":"output","Package":"example.com/a","Test":"TestStripeWebhook","Output":"    stripe_test.go:40: no stripe-mock (TRAWL_TEST_STRIPE_MOCK_URL)\n"}
{"Action":"skip","Package":"example.com/a","Test":"TestStripeWebhook"}
{"Action":"output","Package":"example.com/a","Output":"PASS\n"}
{"Action":"output","Package":"example.com/a","Output":"ok  \texample.com/a\t0.012s\n"}
{"Action":"pass","Package":"example.com/a"}
{"Action":"run","Package":"example.com/b","Test":"TestBroken"}
{"Action":"output","Package":"example.com/b","Test":"TestBroken","Output":"=== RUN   TestBroken\n"}
{"Action":"output","Package":"example.com/b","Test":"TestBroken","Output":"    b_test.go:5: want 2, got 3\n"}
{"Action":"output","Package":"example.com/b","Test":"TestBroken","Output":"--- FAIL: TestBroken (0.00s)\n"}
{"Action":"fail","Package":"example.com/b","Test":"TestBroken"}
{"Action":"output","Package":"example.com/b","Output":"FAIL\n"}
{"Action":"output","Package":"example.com/b","Output":"FAIL\texample.com/b\t0.010s\n"}
{"Action":"fail","Package":"example.com/b"}
`

func TestReport(t *testing.T) {
	var out strings.Builder
	failed, err := report(strings.NewReader(run), &out)
	if err != nil || !failed {
		t.Fatalf("failed %v, err %v", failed, err)
	}
	want := "ok  \texample.com/a\t0.012s\n" +
		"    b_test.go:5: want 2, got 3\n--- FAIL: TestBroken (0.00s)\nFAIL\nFAIL\texample.com/b\t0.010s\n" +
		"\nSkipped: 3 tests, by reason:\n" +
		"  no stripe-mock (TRAWL_TEST_STRIPE_MOCK_URL)\n    example.com/a TestStripe\n    example.com/a TestStripeWebhook\n" +
		"  no Chromium: exec: \"chromium\": executable file not found in $PATH\n    example.com/a TestRender/chromium\n"
	if out.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", out.String(), want)
	}
}

func TestReportAllRan(t *testing.T) {
	var out strings.Builder
	failed, err := report(strings.NewReader(`{"Action":"output","Package":"example.com/a","Output":"ok  \texample.com/a\t0.01s\n"}
{"Action":"pass","Package":"example.com/a"}
`), &out)
	if err != nil || failed || out.String() != "ok  \texample.com/a\t0.01s\n\nNo test was skipped.\n" {
		t.Fatalf("failed %v, err %v, output %q", failed, err, out.String())
	}
}

// A test skipped in one run (under the race detector) and run in the next
// is listed apart, as run; a test skipped in both is still skipped.
func TestReportRerun(t *testing.T) {
	var out strings.Builder
	failed, err := report(strings.NewReader(`{"Action":"output","Package":"example.com/pdf","Test":"TestLarge","Output":"    race_on_test.go:11: too slow under the race detector\n"}
{"Action":"skip","Package":"example.com/pdf","Test":"TestLarge"}
{"Action":"output","Package":"example.com/pdf","Test":"TestHostile","Output":"    race_on_test.go:11: too slow under the race detector\n"}
{"Action":"skip","Package":"example.com/pdf","Test":"TestHostile"}
{"Action":"output","Package":"example.com/pdf","Output":"ok  \texample.com/pdf\t3s\n"}
{"Action":"pass","Package":"example.com/pdf"}
{"Action":"pass","Package":"example.com/pdf","Test":"TestLarge"}
{"Action":"output","Package":"example.com/pdf","Test":"TestHostile","Output":"    hostile_test.go:3: no fixtures\n"}
{"Action":"skip","Package":"example.com/pdf","Test":"TestHostile"}
{"Action":"output","Package":"example.com/pdf","Output":"ok  \texample.com/pdf\t9s\n"}
{"Action":"pass","Package":"example.com/pdf"}
`), &out)
	want := "ok  \texample.com/pdf\t3s\nok  \texample.com/pdf\t9s\n" +
		"\nSkipped: 2 tests, by reason:\n" +
		"  too slow under the race detector\n    example.com/pdf TestHostile\n" +
		"  no fixtures\n    example.com/pdf TestHostile\n" +
		"\nSkipped in one run and run in another: 1 test, by reason:\n" +
		"  too slow under the race detector\n    example.com/pdf TestLarge\n"
	if err != nil || failed || out.String() != want {
		t.Fatalf("failed %v, err %v, got\n%s\nwant\n%s", failed, err, out.String(), want)
	}
}
