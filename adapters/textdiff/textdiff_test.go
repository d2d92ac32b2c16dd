package textdiff_test

import (
	"strings"
	"testing"

	"github.com/trawlhq/trawl/adapters/textdiff"
)

func TestUnified(t *testing.T) {
	d := textdiff.Differ{}
	if got := d.Unified("previous", "current", "a\nb\n", "a\nb\n"); got != "" {
		t.Fatalf("equal texts: %q", got)
	}
	got := d.Unified("previous", "current", "# Prices\n\nBasic: 10\nPro: 20\n", "# Prices\n\nBasic: 12\nPro: 20\n")
	for _, want := range []string{"--- previous\n", "+++ current\n", "@@ ", "-Basic: 10\n", "+Basic: 12\n", " Pro: 20\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("diff lacks %q:\n%s", want, got)
		}
	}
}
