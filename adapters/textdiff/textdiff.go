// Package textdiff writes unified line diffs with go-udiff (the diff of
// gopls, kept as a library).
package textdiff

import (
	udiff "github.com/aymanbagabas/go-udiff"

	"github.com/trawlhq/trawl/ports"
)

// Differ implements ports.TextDiffer.
type Differ struct{}

var _ ports.TextDiffer = Differ{}

// Unified implements ports.TextDiffer: three lines of context, "" when the
// texts are equal.
func (Differ) Unified(oldLabel, newLabel, old, new string) string {
	return udiff.Unified(oldLabel, newLabel, old, new)
}
