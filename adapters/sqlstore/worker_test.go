package sqlstore_test

import (
	"testing"

	"github.com/trawlhq/trawl/testkit/bulktest"
)

// The bulk worker's tests over the SQL stores.
func TestWorkerSQLite(t *testing.T) {
	bulktest.Run(t, func(t *testing.T) bulktest.Stores { return openSQLite(t).(bulktest.Stores) })
}

func TestWorkerPostgres(t *testing.T) {
	bulktest.Run(t, func(t *testing.T) bulktest.Stores { return openPostgres(t).(bulktest.Stores) })
}
