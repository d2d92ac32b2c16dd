package sqlstore_test

import (
	"testing"

	"github.com/trawlhq/trawl/testkit/storetest"
)

func TestCredentialsContractSQLite(t *testing.T)   { storetest.RunCredentials(t, openSQLite) }
func TestCredentialsContractPostgres(t *testing.T) { storetest.RunCredentials(t, openPostgres) }
