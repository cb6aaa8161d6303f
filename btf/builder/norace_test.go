//go:build !race

package builder_test

const raceEnabled = false
