package memstore_test

import (
	"testing"

	"github.com/trawlhq/trawl/testkit/memstore"
	"github.com/trawlhq/trawl/testkit/storetest"
)

func TestDashboardContract(t *testing.T) {
	storetest.RunDashboard(t, func(*testing.T) storetest.Stores { return memstore.New() })
}
