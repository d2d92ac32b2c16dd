//go:build race

package pdf

import "testing"

// skipUnderRace: the race detector slows PDFium's host calls tenfold. The
// tests that only push documents through PDFium and the layout analysis
// (no concurrency of Trawl's own) run without it; those of the converter's
// kill-on-timeout and instance handling run with it.
func skipUnderRace(t testing.TB) { t.Skip("PDFium throughput test: too slow under the race detector") }
