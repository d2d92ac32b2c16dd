package failure_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/trawlhq/trawl/core/failure"
)

func TestKindSurvivesWrapping(t *testing.T) {
	base := failure.E("store.Get", failure.NotFound, "account not found")
	wrapped := fmt.Errorf("loading: %w", failure.Wrap("svc.Load", base))
	if !failure.Is(wrapped, failure.NotFound) || failure.KindOf(wrapped) != failure.NotFound {
		t.Fatalf("kind lost: %v", wrapped)
	}
	if failure.KindOf(errors.New("plain")) != failure.Internal || failure.Is(nil, failure.Internal) {
		t.Fatal("plain errors are Internal; nil is nothing")
	}
	if failure.Wrap("op", nil) != nil {
		t.Fatal("Wrap(nil) must be nil")
	}
	cause := errors.New("disk full")
	e := failure.E("op", failure.Unavailable, "try later", cause)
	if !errors.Is(e, cause) || !strings.Contains(e.Error(), "disk full") || !strings.Contains(e.Error(), "unavailable") {
		t.Fatalf("cause lost: %v", e)
	}
}

func TestFieldErrors(t *testing.T) {
	var fe failure.FieldErrors
	if !fe.Empty() || fe.Err("op") != nil {
		t.Fatal("empty FieldErrors is no error")
	}
	fe.Add("url", "The url field is required.")
	fe.Add("limit", "The limit must be between 1 and 1000.")
	fe.Add("url", "second")
	err := fe.Err("op")
	e, ok := failure.As(err)
	if !ok || e.Kind != failure.Invalid || e.Message != "The url field is required." || len(e.Fields["url"]) != 2 {
		t.Fatalf("err = %+v", e)
	}
	if names := failure.FieldNames(err); len(names) != 2 || names[0] != "limit" || names[1] != "url" {
		t.Fatalf("FieldNames = %v", names)
	}
	if failure.Invalid.String() != "invalid" || failure.Kind(200).String() != "kind(200)" {
		t.Fatal("kind names")
	}
}

func TestKindsListsEveryNamedKind(t *testing.T) {
	kinds := failure.Kinds()
	if len(kinds) == 0 || kinds[0] != failure.Internal || kinds[len(kinds)-1] != failure.TemporarilyUnavailable {
		t.Fatalf("Kinds() = %v", kinds)
	}
	for _, k := range kinds {
		if strings.HasPrefix(k.String(), "kind(") {
			t.Errorf("kind %d has no name", k)
		}
	}
	if failure.TemporarilyUnavailable.String() != "temporarily_unavailable" {
		t.Error(failure.TemporarilyUnavailable.String())
	}
}

func TestUntilAvailable(t *testing.T) {
	busy := failure.E("store", failure.TemporarilyUnavailable, "busy")
	n := 0
	attempts, err := failure.UntilAvailable(context.Background(), time.Millisecond, func(context.Context) error {
		if n++; n < 4 {
			return busy
		}
		return nil
	})
	if err != nil || attempts != 4 {
		t.Fatalf("attempts %d, err %v; want 4 and nil", attempts, err)
	}
	// Other failures are not retried.
	attempts, err = failure.UntilAvailable(context.Background(), time.Millisecond, func(context.Context) error { return failure.E("op", failure.NotFound, "gone") })
	if attempts != 1 || !failure.Is(err, failure.NotFound) {
		t.Fatalf("attempts %d, err %v", attempts, err)
	}
	// The context bounds the retrying.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	start := time.Now()
	attempts, err = failure.UntilAvailable(ctx, time.Millisecond, func(context.Context) error { return busy })
	if !failure.Is(err, failure.TemporarilyUnavailable) || attempts < 2 || time.Since(start) > time.Second {
		t.Fatalf("attempts %d, err %v after %s", attempts, err, time.Since(start))
	}
}
