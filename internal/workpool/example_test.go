package workpool_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/kmeta-dev/kmeta/internal/workpool"
)

// ForEach runs jobs that keep their own results; the error of the first
// failed job in input order is the one returned.
func ExampleForEach() {
	inputs := []string{"a.btf", "b.btf", "", "d.btf"}
	sizes := make([]int, len(inputs))
	err := workpool.ForEach(context.Background(), len(inputs), workpool.Options{Workers: 2}, func(i int) error {
		if inputs[i] == "" {
			return fmt.Errorf("input %d: empty name", i)
		}
		sizes[i] = len(inputs[i])
		return nil
	})
	fmt.Println(err)
	// Output: input 2: empty name
}

// Ordered produces values on several goroutines and consumes them in input
// order on the caller's, here to join strings built in parallel.
func ExampleOrdered() {
	words := []string{"one", "worker", "pool"}
	var out strings.Builder
	err := workpool.Ordered(context.Background(), len(words), workpool.Options{Ahead: 2},
		func(i int) (string, error) { return strings.ToUpper(words[i]), nil },
		func(i int, v string) error {
			if i > 0 {
				out.WriteByte(' ')
			}
			out.WriteString(v)
			return nil
		}, nil)
	fmt.Println(out.String(), err)
	// Output: ONE WORKER POOL <nil>
}

// Chunks splits CPU work over an array; each worker can keep its own
// scratch, indexed by w.
func ExampleChunks() {
	data := make([]int, 1000)
	for i := range data {
		data[i] = i
	}
	const workers = 4
	var partial [workers]int64
	workpool.Chunks(workers, len(data), 64, func(w, lo, hi int) {
		for _, v := range data[lo:hi] {
			partial[w] += int64(v)
		}
	})
	var sum int64
	for _, p := range partial {
		sum += p
	}
	fmt.Println(sum)
	// Output: 499500
}
