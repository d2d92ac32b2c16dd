package sqlstore_test

import (
	"testing"

	"github.com/trawlhq/trawl/testkit/storetest"
)

func TestDashboardContractSQLite(t *testing.T)   { storetest.RunDashboard(t, openSQLite) }
func TestDashboardContractPostgres(t *testing.T) { storetest.RunDashboard(t, openPostgres) }
