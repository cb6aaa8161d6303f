package bpfobj_test

import (
	"errors"
	"fmt"
	"log"
	"os"

	"github.com/kmeta-dev/kmeta/bpfobj"
	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/rawdump"
)

// List the kernel's BTF objects and the programs and maps that use them,
// as "bpftool btf list" does. Without root the walk stops at once with an
// error that says what is missing; this example then prints nothing.
func Example() {
	users, err := bpfobj.BTFUsers()
	if errors.Is(err, os.ErrPermission) {
		return // not root
	}
	if err != nil {
		log.Fatal(err)
	}
	for info, err := range bpfobj.BTFs() {
		if err != nil {
			log.Fatal(err)
		}
		u := users[info.ID]
		if u == nil {
			u = new(bpfobj.Users)
		}
		fmt.Printf("%d %q: %d bytes, kernel %v, programs %v, maps %v\n",
			info.ID, info.Name, info.Size, info.Kernel, u.Progs, u.Maps)
	}
}

// Print the key and value types of every map that has BTF, as "bpftool btf
// dump map id ID" does.
func ExampleOpenMapBTF() {
	for m, err := range bpfobj.Maps() {
		if errors.Is(err, os.ErrPermission) {
			return // not root
		}
		if err != nil {
			log.Fatal(err)
		}
		if m.BTFID == 0 {
			continue
		}
		b, _, err := bpfobj.OpenMapBTF(m.ID, bpfobj.Options{})
		if errors.Is(err, bpfobj.ErrNotFound) {
			continue // unloaded meanwhile
		}
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("map %d %s:\n", m.ID, m.Name)
		for _, id := range []btf.TypeID{m.KeyType, m.ValueType} {
			t, err := b.Spec.TypeByID(id)
			if err == nil {
				err = rawdump.WriteType(os.Stdout, t)
			}
			if err != nil {
				log.Fatal(err)
			}
		}
		b.Close()
	}
}

// Which BTF objects OpenBTF opens on vmlinux: modules' only. vmlinux and
// the BTF of programs and maps stand alone.
func ExampleBTFInfo_Module() {
	for _, info := range []bpfobj.BTFInfo{
		{ID: 1, Name: "vmlinux", Kernel: true},
		{ID: 2, Name: "xfs", Kernel: true},
		{ID: 40}, // loaded with a BPF program
	} {
		fmt.Printf("%d %q: module %v\n", info.ID, info.Name, info.Module())
	}
	// Output:
	// 1 "vmlinux": module false
	// 2 "xfs": module true
	// 40 "": module false
}
