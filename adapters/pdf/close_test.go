package pdf

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/trawlhq/trawl/core/content"
	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/ports"
)

// A server that stops while PDFium is still compiling must not wait for the
// compile: Close returns at once, and a conversion after it is refused
// cleanly instead of using a released reader.
func TestCloseDoesNotWaitForTheCompile(t *testing.T) {
	c := New(Options{}) // in the process: a worker is killed on Close
	c.Warm()
	start := time.Now()
	if err := c.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	if d := time.Since(start); d > 500*time.Millisecond {
		t.Fatalf("Close waited %v for the compile", d)
	}
	body, err := os.ReadFile(corpus + "/report.pdf")
	if err != nil {
		t.Skipf("corpus: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	_, err = c.Convert(ctx, ports.DocumentRequest{Body: body})
	if !failure.Is(content.DocumentFailure(err), failure.Unavailable) {
		t.Fatalf("convert after close: %v, want Unavailable", err)
	}
}
