package sqlstore_test

import (
	"testing"

	"github.com/trawlhq/trawl/testkit/storetest"
)

func TestCacheContractSQLite(t *testing.T)   { storetest.RunCache(t, openSQLite) }
func TestCacheContractPostgres(t *testing.T) { storetest.RunCache(t, openPostgres) }
