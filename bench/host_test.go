package bench

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkHost measures the machine itself, for reading the other
// benchmarks of the same run: ns/op is one load whose address depends on
// the previous one (a random cycle through a buffer of the given size),
// so that it is the latency of the cache level that holds the buffer.
// These VMs share their last-level cache with other guests: at 1 MiB (as
// big as a core's L2, and as the kallsyms lookup's working set) the
// figure moves with the neighbours' load, and the random-address lookup
// with it.
func BenchmarkHost(b *testing.B) {
	for _, size := range []int{16 << 10, 256 << 10, 1 << 20, 4 << 20} {
		b.Run(fmt.Sprintf("Chase%dKiB", size>>10), func(b *testing.B) { benchChase(b, size) })
	}
}

// benchChase follows a random cycle through size bytes, one 64-byte line
// a step.
func benchChase(b *testing.B, size int) {
	const line = 8 // uint64s per 64-byte cache line
	n := size / 64
	order := rand.Perm(n)
	next := make([]uint64, n*line)
	for i, at := range order {
		next[at*line] = uint64(order[(i+1)%n] * line)
	}
	j := uint64(0)
	for b.Loop() {
		j = next[j]
	}
	sink = j
}

// sink keeps benchmark results alive.
var sink uint64
