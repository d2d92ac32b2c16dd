package app

import (
	"bytes"
	"path/filepath"
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

// A server on an SQLite file named with --database owns that file as one
// on the data directory owns its own: a second one stops at start-up.
func TestServeOwnsItsSQLiteFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "shared.db")
	if got := sqliteFileOf("sqlite://" + file); got != file {
		t.Fatalf("sqliteFileOf = %q, want %q", got, file)
	}
	if got := sqliteFileOf("postgres://u@h/db"); got != "" {
		t.Fatalf("sqliteFileOf(postgres) = %q", got)
	}
	release, err := lockSQLiteFile(file)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	var out, errb bytes.Buffer
	code := CLI{Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" }}.Main([]string{"serve", "--addr", "127.0.0.1:0", "--database", "sqlite://" + file})
	if code == 0 || !strings.Contains(errb.String(), "another trawl serve is running on the SQLite database") {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
}
