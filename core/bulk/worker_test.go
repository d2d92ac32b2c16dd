package bulk_test

import (
	"testing"

	"github.com/trawlhq/trawl/testkit/bulktest"
	"github.com/trawlhq/trawl/testkit/memstore"
)

// TestWorker runs the worker's tests over the in-memory store.
func TestWorker(t *testing.T) {
	bulktest.Run(t, func(*testing.T) bulktest.Stores { return memstore.New() })
}
