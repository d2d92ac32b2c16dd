package failure

import (
	"context"
	"time"
)

// UntilAvailable runs fn, and runs it again while it fails with
// TemporarilyUnavailable, until ctx ends. The first wait between tries is
// pause; it doubles, up to a second. It returns fn's last error and how
// many times fn ran. Cleanup that must happen (a hold released, a claimed
// key given back) uses it to ride out a moment of database exhaustion.
func UntilAvailable(ctx context.Context, pause time.Duration, fn func(context.Context) error) (attempts int, err error) {
	if pause <= 0 {
		pause = 100 * time.Millisecond
	}
	for {
		attempts++
		if err = fn(ctx); err == nil || !Is(err, TemporarilyUnavailable) {
			return attempts, err
		}
		t := time.NewTimer(pause)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return attempts, err
		}
		pause = min(2*pause, time.Second)
	}
}
