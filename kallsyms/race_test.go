//go:build race

package kallsyms

// raceEnabled is set when the tests run under the race detector, which
// slows the goroutines that follow events several times.
const raceEnabled = true
