package sqlstore_test

import (
	"testing"

	"github.com/trawlhq/trawl/testkit/storetest"
)

func TestCacheContractSQLite(t *testing.T)   { storetest.RunCache(t, openSQLite) }
func TestCacheContractPostgres(t *testing.T) { storetest.RunCache(t, openPostgres) }

func TestSnapshotsContractSQLite(t *testing.T)   { storetest.RunSnapshots(t, openSQLite) }
func TestSnapshotsContractPostgres(t *testing.T) { storetest.RunSnapshots(t, openPostgres) }
