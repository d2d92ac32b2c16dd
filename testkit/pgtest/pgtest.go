// Package pgtest gives tests a fresh PostgreSQL database of their own.
//
// The server comes from TRAWL_TEST_POSTGRES_URL (default
// postgres://postgres@127.0.0.1:5432/test?sslmode=disable). When it cannot be
// reached the test is skipped with a message, except under CI=true, where it
// fails: in CI the Postgres tests must really run.
package pgtest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"testing"
	"time"

	_ "github.com/lib/pq" // the postgres driver
)

// DefaultURL is the server tests use unless TRAWL_TEST_POSTGRES_URL says otherwise.
const DefaultURL = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"

// ServerURL is the admin URL of the test server.
func ServerURL() string {
	if u := os.Getenv("TRAWL_TEST_POSTGRES_URL"); u != "" {
		return u
	}
	return DefaultURL
}

// NewDatabase creates an empty database, dropped when the test ends, and
// returns its URL.
func NewDatabase(tb testing.TB) string {
	tb.Helper()
	admin := ServerURL()
	db, err := sql.Open("postgres", admin)
	if err == nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err = db.PingContext(ctx)
		cancel()
	}
	if err != nil {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("postgres at %s is unreachable and CI=true: %v", admin, err)
		}
		tb.Skipf("postgres at %s is unreachable (set TRAWL_TEST_POSTGRES_URL; CI fails here): %v", admin, err)
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := "trawl_test_" + hex.EncodeToString(b[:])
	if _, err := db.Exec(`CREATE DATABASE ` + name); err != nil {
		db.Close()
		tb.Fatalf("create database: %v", err)
	}
	tb.Cleanup(func() {
		_, _ = db.Exec(`DROP DATABASE IF EXISTS ` + name + ` WITH (FORCE)`)
		db.Close()
	})
	u, err := url.Parse(admin)
	if err != nil {
		tb.Fatalf("parse %s: %v", admin, err)
	}
	u.Path = "/" + name
	return u.String()
}
