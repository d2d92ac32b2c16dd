package sqlstore_test

import (
	"testing"

	"github.com/trawlhq/trawl/testkit/storetest"
)

func TestMonitorContractSQLite(t *testing.T)   { storetest.RunMonitors(t, openSQLite) }
func TestMonitorContractPostgres(t *testing.T) { storetest.RunMonitors(t, openPostgres) }
