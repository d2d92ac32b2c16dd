package memstore_test

import (
	"testing"

	"github.com/trawlhq/trawl/testkit/memstore"
	"github.com/trawlhq/trawl/testkit/storetest"
)

func TestCredentialsContract(t *testing.T) {
	storetest.RunCredentials(t, func(*testing.T) storetest.Stores { return memstore.New() })
}
