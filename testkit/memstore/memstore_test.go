package memstore_test

import (
	"testing"

	"github.com/trawlhq/trawl/testkit/memstore"
	"github.com/trawlhq/trawl/testkit/storetest"
)

func TestContract(t *testing.T) {
	storetest.Run(t, func(*testing.T) storetest.Stores { return memstore.New() })
	storetest.RunJobs(t, func(*testing.T) storetest.Stores { return memstore.New() })
	storetest.RunCrawl(t, func(*testing.T) storetest.Stores { return memstore.New() })
}
