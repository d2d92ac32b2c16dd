package memstore_test

import (
	"testing"

	"github.com/trawlhq/trawl/testkit/memstore"
	"github.com/trawlhq/trawl/testkit/storetest"
)

func TestCacheContract(t *testing.T) {
	storetest.RunCache(t, func(*testing.T) storetest.Stores { return memstore.New() })
}

func TestSnapshotsContract(t *testing.T) {
	storetest.RunSnapshots(t, func(*testing.T) storetest.Stores { return memstore.New() })
}
