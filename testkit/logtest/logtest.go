// Package logtest holds what tests use to read what a program logs while
// it runs.
package logtest

import (
	"bytes"
	"sync"
)

// Buffer collects what is written to it, by any number of goroutines, and
// can be read while they write: a server's or a worker's log, a process's
// output.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

// String is what was written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
