package sqliteengine

import "context"

// writerGate lets one transaction of this process write to SQLite at a time.
// SQLite has one writer; a second BEGIN IMMEDIATE finds the file locked and
// its busy handler sleeps (1, 2, 5, 10 ms and longer) before it tries
// again, so under load writers idle while the lock is free. Queued on the
// gate, the next transaction begins the moment the previous one ends. The
// busy timeout still covers other processes on the same file (admin
// commands). PostgreSQL locks rows, not the database, and has no gate.
type writerGate chan struct{}

func newWriterGate() writerGate { return make(writerGate, 1) }

// enter waits for the gate, or for ctx; nil gate: no waiting.
func (g writerGate) enter(ctx context.Context) error {
	if g == nil {
		return nil
	}
	select {
	case g <- struct{}{}:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// tryEnter enters the gate if no one is in it, without waiting.
func (g writerGate) tryEnter() bool {
	select {
	case g <- struct{}{}:
		return true
	default:
		return false
	}
}

// leave opens the gate for the next writer.
func (g writerGate) leave() {
	if g != nil {
		<-g
	}
}
