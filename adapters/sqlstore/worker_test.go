package sqlstore_test

import (
	"testing"

	"github.com/trawlhq/trawl/testkit/bulktest"
)

// The bulk worker over the SQL stores: a stopped worker's finished URLs
// are recorded and charged once, its lease handed back, the rest completed
// by another worker.
func TestWorkerSQLite(t *testing.T) {
	bulktest.Run(t, func(t *testing.T) bulktest.Stores { return openSQLite(t).(bulktest.Stores) })
}

func TestWorkerPostgres(t *testing.T) {
	bulktest.Run(t, func(t *testing.T) bulktest.Stores { return openPostgres(t).(bulktest.Stores) })
}
