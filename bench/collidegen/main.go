// Command collidegen writes the inputs of bench/collide.sh: BTF of N
// structs and of N unions equal in every field that dedup hashes and
// different two levels down (internal/testfixtures/hostile's
// BuildCollision), as DIR/structs-N.btf and DIR/unions-N.btf, and the C
// source of a BPF program with a CO-RE relocation on each member of a
// struct of M int members, as DIR/wide-M.c.
//
//	go run ./collidegen DIR N M
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/kmeta-dev/kmeta/internal/testfixtures/hostile"
)

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: collidegen DIR N M")
		os.Exit(2)
	}
	dir := os.Args[1]
	n, err1 := strconv.Atoi(os.Args[2])
	m, err2 := strconv.Atoi(os.Args[3])
	if err1 != nil || err2 != nil {
		fmt.Fprintln(os.Stderr, "collidegen: N and M are numbers")
		os.Exit(2)
	}
	for name, c := range map[string]hostile.Collision{"structs": hostile.CollideStructs, "unions": hostile.CollideUnions} {
		raw, err := hostile.BuildCollision(c, n)
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, fmt.Sprintf("%s-%d.btf", name, n)), raw, 0o644)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "collidegen:", err)
			os.Exit(1)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("wide-%d.c", m)), []byte(hostile.WideCORESource(m)), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "collidegen:", err)
		os.Exit(1)
	}
}
