//go:build !race

package pdf

import "testing"

func skipUnderRace(testing.TB) {}
