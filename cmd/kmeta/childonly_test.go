package main

import (
	"flag"
	"testing"
)

// childrenOnly skips t when go test runs with -cpu. t runs kmeta (and its
// peers) only as child processes, whose GOMAXPROCS is their own default
// whatever -cpu sets in the test process: each -cpu value would run the
// same commands again and check nothing new. go test without -cpu (the
// README's command, the first run in .ci/run) runs it.
func childrenOnly(t *testing.T) {
	t.Helper()
	if f := flag.Lookup("test.cpu"); f != nil && f.Value.String() != "" {
		t.Skip("runs kmeta only in child processes, which -cpu does not change: run go test without -cpu")
	}
}
