package sqlstore_test

import (
	"context"
	"testing"

	"github.com/trawlhq/trawl/adapters/sqlstore"
	"github.com/trawlhq/trawl/testkit/pgtest"
	"github.com/trawlhq/trawl/testkit/storetest"
)

func openSQLite(t *testing.T) storetest.Stores {
	s, err := sqlstore.Open(context.Background(), sqlstore.Options{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func openPostgres(t *testing.T) storetest.Stores {
	s, err := sqlstore.Open(context.Background(), sqlstore.Options{DatabaseURL: pgtest.NewDatabase(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestContractSQLite(t *testing.T) {
	storetest.Run(t, openSQLite)
	storetest.RunJobs(t, openSQLite)
	storetest.RunCrawl(t, openSQLite)
}
func TestContractPostgres(t *testing.T) {
	storetest.Run(t, openPostgres)
	storetest.RunJobs(t, openPostgres)
	storetest.RunCrawl(t, openPostgres)
}

func TestMigrateTwiceIsHarmless(t *testing.T) {
	dir := t.TempDir()
	for range 2 {
		s, err := sqlstore.Open(context.Background(), sqlstore.Options{DataDir: dir})
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
	}
}
