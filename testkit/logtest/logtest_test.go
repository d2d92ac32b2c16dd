package logtest

import (
	"strings"
	"sync"
	"testing"
)

// Writers and a reader at once: every line arrives whole, and reading
// while they write is safe (go test -race).
func TestBuffer(t *testing.T) {
	var b Buffer
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 100 {
				_, _ = b.Write([]byte("a line\n"))
				_ = b.String()
			}
		}()
	}
	wg.Wait()
	if n := strings.Count(b.String(), "a line\n"); n != 800 {
		t.Fatalf("%d lines, want 800", n)
	}
}
