// Command distillgen writes the hostile inputs of bench/distill.sh: for
// each shape of cmd/kmeta's TestDistillPeakRSS and a few more, a base BTF
// of that shape (internal/testfixtures/hostile) and split BTF of 100,000
// structs on it that all reach the base's deepest type (hostile.SplitOn),
// as DIR/SHAPE-base.btf and DIR/SHAPE-split.btf.
//
//	go run ./distillgen DIR
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/kmeta-dev/kmeta/internal/testfixtures/hostile"
)

// shapes are the bases, with their size parameter: those of
// TestDistillPeakRSS first.
var shapes = []struct {
	k hostile.Shape
	n int
}{
	{hostile.PointerChain, 100_000}, {hostile.NestedRecords, 3000}, {hostile.Wide, 20_000}, {hostile.SelfEmbed, 0},
	{hostile.TypedefChain, 100_000}, {hostile.ModifierChain, 100_000}, {hostile.ArrayChain, 100_000},
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: distillgen DIR")
		os.Exit(2)
	}
	for _, s := range shapes {
		if err := write(os.Args[1], s.k, s.n); err != nil {
			fmt.Fprintln(os.Stderr, "distillgen:", err)
			os.Exit(1)
		}
	}
}

// write writes the base of shape k and size n and its split BTF into dir.
func write(dir string, k hostile.Shape, n int) error {
	base, err := hostile.Build(k, n)
	if err != nil {
		return err
	}
	split, err := hostile.SplitOn(base, 100_000)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, k.String()+"-base.btf"), base, 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, k.String()+"-split.btf"), split, 0o644)
}
