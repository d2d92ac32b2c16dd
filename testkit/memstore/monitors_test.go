package memstore_test

import (
	"testing"

	"github.com/trawlhq/trawl/testkit/memstore"
	"github.com/trawlhq/trawl/testkit/storetest"
)

func TestMonitorContract(t *testing.T) {
	storetest.RunMonitors(t, func(*testing.T) storetest.Stores { return memstore.New() })
}
