package input_test

import (
	"bytes"
	"debug/elf"
	"errors"
	"os"
	"testing"

	"github.com/kmeta-dev/kmeta/internal/input"
	"github.com/kmeta-dev/kmeta/internal/testfixtures/hostile"
)

// elfSeeds are ELF files for CheckELFNames: a BPF object the project
// compiled, and hostile.BuildELF's shapes on a little BTF.
func elfSeeds(tb testing.TB) map[string][]byte {
	raw, err := hostile.Build(hostile.Pointers, 10)
	if err != nil {
		tb.Fatal(err)
	}
	obj, err := os.ReadFile("../../testdata/bpfobj/objs.bpf.o")
	if err != nil {
		tb.Fatal(err)
	}
	return map[string][]byte{
		"bpf object":        obj,
		"few sections":      hostile.BuildELF(raw, hostile.ELFShape{Sections: 10, NameLen: 8}),
		"escaped count":     hostile.BuildELF(raw, hostile.ELFShape{Sections: 70_000, NameLen: 8}),
		"odd, two .BTF":     hostile.BuildELF(raw, hostile.ELFShape{Sections: 3, NameLen: 8, TwoBTF: true, Odd: true}),
		"long shared names": hostile.BuildELF(raw, hostile.ELFShape{Sections: 2_000, NameLen: 4096}),
	}
}

// TestCheckELFNames: the files whose names debug/elf would copy into more
// bytes than the file are refused, the others pass, and debug/elf opens
// them.
func TestCheckELFNames(t *testing.T) {
	for name, data := range elfSeeds(t) {
		err := input.CheckELFNames(data)
		if want := name == "long shared names"; want != errors.Is(err, input.ErrELFNames) {
			t.Errorf("%s: %v", name, err)
		}
		if err != nil {
			continue
		}
		f, err := elf.NewFile(bytes.NewReader(data))
		if err != nil {
			t.Errorf("%s: debug/elf: %v", name, err)
			continue
		}
		if name != "bpf object" && f.Section(".BTF") == nil {
			t.Errorf("%s: no .BTF", name)
		}
	}
}

// FuzzCheckELFNames: CheckELFNames never panics, and what it passes costs
// debug/elf at most the file's size in section names.
func FuzzCheckELFNames(f *testing.F) {
	for _, data := range elfSeeds(f) {
		if len(data) < 1<<20 {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if input.CheckELFNames(data) != nil {
			return
		}
		ef, err := elf.NewFile(bytes.NewReader(data))
		if err != nil {
			return
		}
		n := 0
		for _, s := range ef.Sections {
			n += len(s.Name)
		}
		if n > len(data) {
			t.Errorf("section names of %d bytes passed for a file of %d", n, len(data))
		}
	})
}
