package httpapi_test

import (
	"context"
	"errors"
	"testing"

	"github.com/trawlhq/trawl/ports"
	"github.com/trawlhq/trawl/testkit/apitest"
	"github.com/trawlhq/trawl/testkit/memstore"
)

// brokenJobs is a store whose job lookups fail.
type brokenJobs struct {
	*memstore.Store
	asked int
}

func (b *brokenJobs) Job(context.Context, string) (ports.BulkJob, error) {
	b.asked++
	return ports.BulkJob{}, errors.New("connection reset by peer")
}

// TestJobStatusStoreFailureIsNotNotFound: a store that cannot answer is a
// server error, not "Job not found"; an id no job can have is a 404
// without asking the store.
func TestJobStatusStoreFailureIsNotNotFound(t *testing.T) {
	store := &brokenJobs{Store: memstore.New()}
	e := apitest.Start(t, store, apitest.Options{NoWorker: true})
	_, tok := e.Account("dev@example.com", "basic")
	if r := e.Do("GET", "/v1/content/bulk/job_0123abcd", tok, nil); r.Status != 500 {
		t.Fatalf("store failure = %d %s", r.Status, r.Body)
	}
	asked := store.asked
	if r := e.Do("GET", "/v1/content/bulk/no%20such%20job", tok, nil); r.Status != 404 || r.JSON(t)["message"] != "Job not found." {
		t.Fatalf("impossible id = %d %s", r.Status, r.Body)
	}
	if store.asked != asked {
		t.Fatal("the store was asked for an impossible id")
	}
}
