package bpfelf_test

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/kmeta-dev/kmeta/bpfelf"
	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/fuzztest"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// objects are committed BPF objects (testdata/README.md).
var objects = []string{"elf/prog.bpf.o.gz", "core/fields.bpf.o.gz", "core/types.bpf.o.gz", "core/gen/gen1.bpf.o.gz", "core/gen/patchfail.bpf.o.gz"}

// TestProgramsReadelf: the programs are the STT_FUNC symbols of the
// executable sections, as readelf lists them (skipped without readelf).
func TestProgramsReadelf(t *testing.T) {
	readelf, err := exec.LookPath("readelf")
	if err != nil {
		t.Skip("readelf not installed (binutils)")
	}
	for _, rel := range objects {
		data := testfixtures.Read(t, rel)
		obj, err := bpfelf.Parse(data)
		fuzztest.CheckError(t, "bpfelf", err)
		if err != nil {
			t.Fatalf("%s: %v", rel, err)
		}
		path := filepath.Join(t.TempDir(), "obj.o")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		want := readelfFuncs(t, readelf, path)
		var got []string
		c := obj.CORE()
		for _, p := range obj.Programs() {
			got = append(got, p.Section+" "+p.Name+" "+strconv.Itoa(p.InsnOff*8)+" "+strconv.Itoa(p.InsnCnt*8))
			if n := len(obj.Insns(p)); n != p.InsnCnt*bpfelf.InsnSize {
				t.Errorf("%s: Insns(%s) has %d bytes, want %d", rel, p.Name, n, p.InsnCnt*8)
			}
			for i := p.InsnOff; i < p.InsnOff+p.InsnCnt; i++ {
				if q, ok := c.ProgramAt(p.Section, i); !ok || q.Name != p.Name || q.InsnOff != p.InsnOff || len(q.Insns) != p.InsnCnt*bpfelf.InsnSize {
					t.Errorf("%s: ProgramAt(%s, %d) = %s, %v; want %s", rel, p.Section, i, q.Name, ok, p.Name)
				}
			}
			if q, ok := c.ProgramAt(p.Section, p.InsnOff+p.InsnCnt); ok && q.Name == p.Name && q.InsnOff == p.InsnOff {
				t.Errorf("%s: ProgramAt(%s, %d) is %s, past its end", rel, p.Section, p.InsnOff+p.InsnCnt, p.Name)
			}
		}
		slices.Sort(got)
		if len(want) == 0 || !slices.Equal(got, want) {
			t.Errorf("%s: programs\n%q\nreadelf:\n%q", rel, got, want)
		}
		if _, ok := c.ProgramAt("no such section", 0); ok {
			t.Errorf("%s: ProgramAt of a missing section", rel)
		}
		if obj.Insns(bpfelf.Program{Section: "no such section", InsnCnt: 1}) != nil {
			t.Errorf("%s: Insns of a missing program", rel)
		}
		obj.Close()
	}
}

// readelfFuncs lists "section name offset size" for the STT_FUNC symbols
// of executable sections of the object at path, sorted.
func readelfFuncs(t *testing.T, readelf, path string) []string {
	t.Helper()
	secs, err := exec.Command(readelf, "-SW", path).Output()
	if err != nil {
		t.Fatal(err)
	}
	code := map[string]string{} // index -> name of executable sections
	sc := bufio.NewScanner(bytes.NewReader(secs))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if !strings.HasPrefix(line, "[") {
			continue
		}
		idx, rest, _ := strings.Cut(strings.TrimPrefix(line, "["), "]")
		f := strings.Fields(rest)
		if len(f) >= 7 && f[1] == "PROGBITS" && strings.Contains(f[6], "X") && f[4] != "000000" {
			code[strings.TrimSpace(idx)] = f[0]
		}
	}
	syms, err := exec.Command(readelf, "-sW", path).Output()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	sc = bufio.NewScanner(bytes.NewReader(syms))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 8 || f[3] != "FUNC" || code[f[6]] == "" {
			continue
		}
		off, _ := strconv.ParseUint(f[1], 16, 64)
		out = append(out, code[f[6]]+" "+f[7]+" "+strconv.FormatUint(off, 10)+" "+f[2])
	}
	slices.Sort(out)
	return out
}

// TestErrors: what is not a BPF object with BTF and .BTF.ext says so, in
// an error that starts with "bpfelf: ".
func TestErrors(t *testing.T) {
	var fe *btf.FormatError
	if _, err := bpfelf.Parse([]byte("not an ELF file")); !errors.As(err, &fe) {
		t.Errorf("Parse(text): %v, want a *btf.FormatError", err)
	}
	mod := testfixtures.Read(t, "elf/af_key.ko.gz") // x86-64, not BPF
	if _, err := bpfelf.Parse(mod); !errors.As(err, &fe) || !strings.Contains(err.Error(), "not a BPF object") {
		t.Errorf("Parse(module): %v", err)
	}
	if _, err := bpfelf.Open(t.Context(), filepath.Join(t.TempDir(), "missing.o"), bpfelf.Options{}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Open(missing): %v", err)
	}
	fuzztest.CheckFiles(t, "bpfelf", func(path string) error {
		_, err := bpfelf.Open(t.Context(), path, bpfelf.Options{})
		return err
	})
	for _, data := range [][]byte{nil, []byte("not an ELF file"), mod, testfixtures.Read(t, testfixtures.DebianVmlinux)} {
		_, err := bpfelf.Parse(data)
		fuzztest.CheckError(t, "bpfelf", err)
	}
}

// FuzzParse feeds mutated BPF objects to Parse: no panic, no hang, and
// the programs of what parses lie inside their sections.
func FuzzParse(f *testing.F) {
	for _, rel := range objects {
		f.Add(testfixtures.Read(f, rel))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		obj, err := bpfelf.Parse(data)
		fuzztest.CheckError(t, "bpfelf", err)
		if err != nil {
			return
		}
		defer obj.Close()
		c := obj.CORE()
		for _, p := range obj.Programs() {
			if got := len(obj.Insns(p)); got != p.InsnCnt*bpfelf.InsnSize {
				t.Fatalf("Insns(%+v): %d bytes", p, got)
			}
			if p.InsnCnt > 0 {
				if _, ok := c.ProgramAt(p.Section, p.InsnOff); !ok {
					t.Fatalf("ProgramAt(%s, %d): none", p.Section, p.InsnOff)
				}
			}
		}
	})
}
