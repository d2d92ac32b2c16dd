package sqlstore

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/lib/pq"
	"github.com/lib/pq/pqerror"

	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/ports"
)

func TestUnavailableClassification(t *testing.T) {
	live := context.Background()
	ours, cancelOurs := context.WithTimeoutCause(live, time.Nanosecond, errQueryTimeout)
	defer cancelOurs()
	callers, cancelCallers := context.WithCancel(live)
	cancelCallers()
	callerDeadline, cancelDeadline := context.WithTimeout(live, time.Nanosecond)
	defer cancelDeadline()
	ourChild, cancelChild := context.WithTimeoutCause(callerDeadline, time.Hour, errQueryTimeout)
	defer cancelChild()
	<-ours.Done()
	<-callerDeadline.Done()

	pqErr := func(code string) error {
		return &pq.Error{Severity: "FATAL", Code: pqerror.Code(code), Message: "whatever the server says"}
	}
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: &os.SyscallError{Syscall: "connect", Err: syscall.ECONNREFUSED}}
	for _, c := range []struct {
		name string
		ctx  context.Context
		err  error
		want bool
	}{
		{"postgres too many clients (53300)", live, fmt.Errorf("begin: %w", pqErr("53300")), true},
		{"postgres out of memory (53200)", live, pqErr("53200"), true},
		{"postgres connection failure (08006)", live, pqErr("08006"), true},
		{"postgres starting up (57P03)", live, pqErr("57P03"), true},
		{"postgres shutting down (57P01)", live, pqErr("57P01"), true},
		{"postgres statement timeout (57014)", live, pqErr("57014"), true},
		{"postgres unique violation", live, pqErr("23505"), false},
		{"postgres syntax error", live, pqErr("42601"), false},
		{"connection refused", live, fmt.Errorf("open: %w", refused), true},
		{"bare ECONNREFUSED", live, syscall.ECONNREFUSED, true},
		{"connection reset", live, syscall.ECONNRESET, true},
		{"dns failure", live, &net.DNSError{Err: "no such host", Name: "db.internal", IsNotFound: true}, true},
		{"bad connection", live, driver.ErrBadConn, true},
		{"connection done", live, sql.ErrConnDone, true},
		{"our query timeout (waiting for a connection)", ours, context.DeadlineExceeded, true},
		{"our query timeout inside the caller's", ourChild, context.DeadlineExceeded, false},
		{"our timeout cancels the postgres statement", ours, pqErr("57014"), true},
		{"the caller cancelled", callers, context.Canceled, false},
		{"the caller cancelled a postgres statement", callers, pqErr("57014"), false},
		{"the caller's deadline", callerDeadline, context.DeadlineExceeded, false},
		{"transaction ended with our deadline", ours, sql.ErrTxDone, true},
		{"transaction misuse", live, sql.ErrTxDone, false},
		{"no rows", live, sql.ErrNoRows, false},
		{"a message is not a type", live, errors.New("pq: sorry, too many clients already"), false},
		{"nil", live, nil, false},
	} {
		if c.err == nil {
			if fail(c.ctx, "op", nil) != nil {
				t.Errorf("%s: fail(nil) is not nil", c.name)
			}
			continue
		}
		if got := unavailable(c.ctx, c.err); got != c.want {
			t.Errorf("%s: unavailable = %v, want %v", c.name, got, c.want)
		}
		got := failure.KindOf(fail(c.ctx, "op", c.err))
		want := failure.Internal
		if c.want {
			want = failure.TemporarilyUnavailable
		}
		if got != want {
			t.Errorf("%s: kind = %s, want %s", c.name, got, want)
		}
	}
}

func TestFailKeepsKindsAndHidesCauses(t *testing.T) {
	ctx := context.Background()
	conflict := failure.E("op", failure.Conflict, "token limit reached")
	if got := fail(ctx, "outer", conflict); got != conflict {
		t.Fatalf("a kinded error changed: %v", got)
	}
	// An Internal wrapper around an exhausted pool is still "try again".
	wrapped := failure.Wrap("inner", &pq.Error{Code: "53300", Message: "sorry, too many clients already"})
	err := fail(ctx, "outer", wrapped)
	fe, ok := failure.As(err)
	if !ok || fe.Kind != failure.TemporarilyUnavailable {
		t.Fatalf("fail = %v", err)
	}
	if msg := failure.Public(err, ""); msg != busyMessage {
		t.Fatalf("public message = %q", msg)
	}
	var pe *pq.Error
	if !errors.As(err, &pe) {
		t.Fatal("the cause is lost for the log")
	}
}

// SQLite busy past its timeout: another connection holds the write lock.
func TestSQLiteBusyIsTemporarilyUnavailable(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(context.Background(), Options{DataDir: dir, QueryTimeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	other, err := sql.Open("sqlite", "file:"+SQLitePath(dir)+"?_pragma=busy_timeout(0)")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	conn, err := other.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(context.Background(), "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = s.CreateAccount(context.Background(), ports.Account{Email: "busy@example.com", CreatedAt: start, UpdatedAt: start})
	if !failure.Is(err, failure.TemporarilyUnavailable) {
		t.Fatalf("write under another writer's lock = %v, want TemporarilyUnavailable", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("the busy store answered after %s", d)
	}
	if _, err := conn.ExecContext(context.Background(), "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateAccount(context.Background(), ports.Account{Email: "busy@example.com", CreatedAt: start, UpdatedAt: start}); err != nil {
		t.Fatalf("after the lock is gone: %v", err)
	}
}
