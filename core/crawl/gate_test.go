package crawl_test

import (
	"testing"

	"github.com/trawlhq/trawl/core/crawl"
	"github.com/trawlhq/trawl/ports"
	"github.com/trawlhq/trawl/testkit/storetest"
)

// The gate held in the process keeps the store gate's contract.
func TestLocalGate(t *testing.T) {
	storetest.RunHostGate(t, func(*testing.T) ports.HostGate { return crawl.NewLocalGate() })
}
