//go:build race

package live

// raceEnabled is set when the tests run under the race detector, which
// slows the goroutines that follow events several times.
const raceEnabled = true
