package main

import (
	"os"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/btf/core"
)

func main() {
	s, err := btf.Open(os.Args[1])
	if err != nil {
		panic(err)
	}
	var objs []*core.Object
	for _, p := range os.Args[3:] {
		obj, err := core.OpenObject(p, btf.ReadOptions{})
		if err != nil {
			panic(err)
		}
		objs = append(objs, obj)
	}
	b, err := core.Minimal(nil, core.NewTarget(s), objs)
	if err != nil {
		panic(err)
	}
	data, err := b.Marshal(builder.Options{})
	if err != nil {
		panic(err)
	}
	os.WriteFile(os.Args[2], data, 0o644)
}
