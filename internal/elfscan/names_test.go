package elfscan_test

import (
	"bytes"
	"debug/elf"
	"errors"
	"os"
	"testing"

	"github.com/kmeta-dev/kmeta/internal/elfscan"
	"github.com/kmeta-dev/kmeta/internal/testfixtures/hostile"
)

// elfSeeds are ELF files for Check: a BPF object the project
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

// TestCheck: the files whose names debug/elf would copy into more
// bytes than the file are refused, the others pass, and debug/elf opens
// them.
func TestCheck(t *testing.T) {
	for name, data := range elfSeeds(t) {
		err := elfscan.Check(data)
		if want := name == "long shared names"; want != errors.Is(err, elfscan.ErrNames) {
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
