package sqlstore

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"net"
	"syscall"

	"github.com/lib/pq"
	"github.com/lib/pq/pqerror"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/trawlhq/trawl/core/failure"
)

// errQueryTimeout is the cause of a statement's context when the store's own
// bound ran out, not the caller's: the database did not answer in time, and
// waiting for a free connection in the pool counts.
var errQueryTimeout = errors.New("the database did not answer within the query timeout")

// busyMessage is what a caller is told when the database cannot serve now.
const busyMessage = "The service is busy right now. Please retry in a few seconds."

// fail turns an error leaving the store into a failure: kept as it is when it
// already has a kind, TemporarilyUnavailable when the database cannot serve
// now, Internal otherwise. ctx is the statement's bounded context.
func fail(ctx context.Context, op string, err error) error {
	if err == nil {
		return nil
	}
	if failure.KindOf(err) != failure.Internal {
		return err
	}
	if unavailable(ctx, err) {
		return failure.E(op, failure.TemporarilyUnavailable, busyMessage, err)
	}
	return failure.Wrap(op, err)
}

// unavailable reports whether err says the database cannot serve right now
// (its connections are used up, it is unreachable, starting or shutting down,
// or busy past the timeout) rather than that the statement is wrong. It looks
// at error types and codes only, never at message text.
func unavailable(ctx context.Context, err error) bool {
	if interrupted(ctx, err) {
		// A statement cut short by the caller's own deadline or cancellation
		// is the caller leaving, not the database failing.
		return !callerGone(ctx)
	}
	var pe *pq.Error
	if errors.As(err, &pe) {
		switch pe.Code.Class() {
		case pqerror.ClassConnectionException, pqerror.ClassInsufficientResources: // 53300: too many clients
			return true
		}
		switch pe.Code {
		case pqerror.AdminShutdown, pqerror.CrashShutdown, pqerror.CannotConnectNow:
			return true
		}
		return false
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff { // the primary code of an extended one
		case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
			return true
		}
		return false
	}
	if errors.Is(err, driver.ErrBadConn) || errors.Is(err, sql.ErrConnDone) {
		return true
	}
	if errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne)
}

// interrupted reports an error of a statement stopped by its context: the
// context's own error, Postgres' query_canceled, SQLite's interrupt, a
// transaction rolled back because its context ended.
func interrupted(ctx context.Context, err error) bool {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return true
	}
	if errors.Is(err, sql.ErrTxDone) && ctx != nil && ctx.Err() != nil {
		return true // the context ended between the last statement and the commit
	}
	var pe *pq.Error
	if errors.As(err, &pe) && pe.Code == pqerror.QueryCanceled {
		return true
	}
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_INTERRUPT
}

// callerGone reports whether ctx ended for the caller's reasons (its
// deadline, its cancellation) rather than the store's query timeout.
func callerGone(ctx context.Context) bool {
	return ctx != nil && ctx.Err() != nil && !errors.Is(context.Cause(ctx), errQueryTimeout)
}
