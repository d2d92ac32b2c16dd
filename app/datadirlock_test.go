package app

import (
	"bytes"
	"strings"
	"testing"
)

// A second server on an SQLite data directory stops at start-up, saying
// why, while the first holds it; once the first lets go, a server starts.
func TestServeOwnsItsSQLiteDataDir(t *testing.T) {
	dir := t.TempDir()
	release, err := lockDataDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	code := CLI{Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" }}.Main([]string{"serve", "--addr", "127.0.0.1:0", "--data-dir", dir})
	if code == 0 || !strings.Contains(errb.String(), "another trawl serve is running on the data directory") || !strings.Contains(errb.String(), "PostgreSQL") {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
	if strings.Contains(out.String(), "trawl_") {
		t.Fatalf("a server that never started printed a token:\n%s", out.String())
	}
	if _, err := lockDataDir(dir); err == nil {
		t.Fatal("the data directory was locked twice")
	}
	release()
	again, err := lockDataDir(dir)
	if err != nil {
		t.Fatalf("after release: %v", err)
	}
	again()
}
