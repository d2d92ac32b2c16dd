package httpapi

import (
	"fmt"
	"testing"

	"github.com/trawlhq/trawl/core/failure"
)

// TestReadBool: a boolean read from a query parameter or a body takes
// true, 1, false and 0 in any case, the default when empty, and answers
// anything else with a 422 naming the field.
func TestReadBool(t *testing.T) {
	for in, want := range map[string]bool{"": true, "true": true, "TRUE": true, "1": true, "false": false, " False ": false, "0": false} {
		var fe failure.FieldErrors
		if got := readBool(&fe, "store", in, true); got != want || !fe.Empty() {
			t.Errorf("store %q = %v, %v", in, got, fe.Err("test"))
		}
	}
	var fe failure.FieldErrors
	readBool(&fe, "include_links", "maybe", false)
	err := fe.Err("test")
	if !failure.Is(err, failure.Invalid) || fmt.Sprint(failure.FieldNames(err)) != "[include_links]" {
		t.Errorf("include_links maybe: %v, want a 422 naming include_links", err)
	}
}
