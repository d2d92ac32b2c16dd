// Command testreport reads `go test -json` on stdin and prints what `go
// test` prints without -json (each package's closing line, the output of
// failed tests, build errors), then a summary of the tests that were
// skipped and why, so a green run cannot hide a test that did not run
// (a service or a browser missing). A test skipped in one run of the
// stream and run in another (`make test` runs the PDF reader's throughput
// tests again without the race detector) is listed apart, as run. It
// exits 1 when the stream reports a failure. `make test` pipes the test
// runs through it.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
)

// event is one line of `go test -json` (cmd/test2json).
type event struct {
	Action     string
	Package    string
	Test       string
	Output     string
	ImportPath string
}

// skipped is one test that did not run, and the reason it logged.
type skipped struct {
	pkg, test, reason string
}

func main() {
	failed, err := report(os.Stdin, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testreport:", err)
		os.Exit(2)
	}
	if failed {
		os.Exit(1)
	}
}

// report copies the run to out as go test would print it, then the skipped
// tests, and reports whether anything failed.
func report(in io.Reader, out io.Writer) (failed bool, err error) {
	w := bufio.NewWriter(out)
	defer w.Flush()
	logs := map[string][]string{} // package + test -> its output lines
	ran := map[string]bool{}      // package + test that passed or failed in a run
	var skips []skipped
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if json.Unmarshal(line, &e) != nil || e.Action == "" {
			// Not an event (go's own messages on the same stream): as it came.
			fmt.Fprintln(w, string(line))
			continue
		}
		key := e.Package + " " + e.Test
		switch {
		case e.Action == "build-output":
			fmt.Fprint(w, e.Output)
		case e.Action == "build-fail":
			failed = true
		case e.Test == "" && e.Action == "output":
			if e.Output != "PASS\n" && !strings.HasPrefix(e.Output, "=== ") {
				fmt.Fprint(w, e.Output)
			}
		case e.Test == "" && e.Action == "fail":
			failed = true
		case e.Action == "output":
			if !strings.HasPrefix(e.Output, "=== ") {
				logs[key] = append(logs[key], e.Output)
			}
		case e.Action == "fail":
			failed = true
			ran[key] = true
			fmt.Fprint(w, strings.Join(logs[key], ""))
			delete(logs, key)
		case e.Action == "skip" && e.Test != "":
			// A package without tests is skipped too; its "no test files"
			// line says so already, and it hides no test.
			skips = append(skips, skipped{e.Package, e.Test, reason(logs[key])})
			delete(logs, key)
		case e.Action == "pass":
			ran[key] = true
			delete(logs, key)
		}
		if e.Test == "" && (e.Action == "pass" || e.Action == "fail" || e.Action == "skip") {
			// A package ended: its line is shown now, not at the end of a
			// run that may take many minutes.
			if err := w.Flush(); err != nil {
				return failed, err
			}
		}
	}
	if err := sc.Err(); err != nil {
		return failed, err
	}
	var missing, rerun []skipped
	for _, s := range skips {
		if ran[s.pkg+" "+s.test] {
			rerun = append(rerun, s)
		} else {
			missing = append(missing, s)
		}
	}
	if len(missing) == 0 {
		fmt.Fprintln(w, "\nNo test was skipped.")
	} else {
		byReason(w, fmt.Sprintf("Skipped: %d %s", len(missing), plural(len(missing), "test", "tests")), missing)
	}
	if len(rerun) > 0 {
		byReason(w, fmt.Sprintf("Skipped in one run and run in another: %d %s", len(rerun), plural(len(rerun), "test", "tests")), rerun)
	}
	return failed, nil
}

// byReason prints the title, then the tests grouped by reason, in the
// order the reasons first came.
func byReason(w io.Writer, title string, skips []skipped) {
	var reasons []string
	group := map[string][]skipped{}
	for _, s := range skips {
		if _, ok := group[s.reason]; !ok {
			reasons = append(reasons, s.reason)
		}
		group[s.reason] = append(group[s.reason], s)
	}
	fmt.Fprintf(w, "\n%s, by reason:\n", title)
	for _, r := range reasons {
		fmt.Fprintf(w, "  %s\n", r)
		for _, s := range group[r] {
			fmt.Fprintf(w, "    %s %s\n", s.pkg, s.test)
		}
	}
}

// reason is what a skipped test logged: its t.Skip message, without the
// "--- SKIP" line and the file:line prefix.
func reason(lines []string) string {
	var parts []string
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "--- SKIP") {
			continue
		}
		if file, rest, ok := strings.Cut(l, ": "); ok && strings.Contains(file, ".go:") && !strings.Contains(file, " ") {
			l = rest
		}
		parts = append(parts, l)
	}
	if len(parts) == 0 {
		return "(no reason given)"
	}
	return strings.Join(parts, " ")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
