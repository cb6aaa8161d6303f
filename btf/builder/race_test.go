//go:build race

package builder_test

const raceEnabled = true
