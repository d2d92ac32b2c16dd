//go:build race

package fetch

// raceEnabled: the race detector drops pooled values at random, so what a
// read allocates once its pools are warm is not measured under it.
const raceEnabled = true
